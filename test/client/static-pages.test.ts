import { describe, expect, test } from 'bun:test';
import { StaticPage, StaticPageList } from '@/content/schemas';
import { ProblemError } from '../../client/src';
import { problemOf } from '../support/harness';
import { serviceUnderTest } from './support';

const svc = await serviceUnderTest();
const pages = svc.employee.staticPages;
const page = (language: string, title: string) => ({
  language,
  title,
  content: `# ${title}`,
  published: true,
});

describe('happy', () => {
  test('write, read by language, list, read conditionally and delete', async () => {
    expect(await pages.put('about', page('en', 'About'))).toMatchObject({ created: true });
    const replaced = await pages.put('about', page('en', 'About us'));
    expect(replaced.created).toBe(false);
    expect(StaticPage.parse(replaced.page).title).toBe('About us');
    await pages.put('about', page('es', 'Sobre nosotros'));

    const reader = svc.anonymous.staticPages;
    expect((await reader.get('about', { language: 'es' })).title).toBe('Sobre nosotros');
    expect((await reader.get('about', { acceptLanguage: 'es-ES,es;q=0.9' })).title).toBe(
      'Sobre nosotros',
    );
    expect(StaticPage.parse(await reader.get('about')).title).toBe('About us');
    const list = StaticPageList.parse(await reader.list());
    expect(list.map(({ slug, locale, group }) => ({ slug, locale, group }))).toEqual([
      { slug: 'about', locale: 'en', group: '' },
      { slug: 'about', locale: 'es', group: '' },
    ]);

    const first = await reader.getIfChanged('about', { language: 'en' });
    expect(first.notModified).toBe(false);
    expect(first.etag).not.toBeNull();
    const again = await reader.getIfChanged('about', { language: 'en', ifNoneMatch: first.etag! });
    expect(again).toEqual({ notModified: true, etag: first.etag });

    await pages.delete('about', 'es');
    expect((await reader.list()).map((summary) => summary.locale)).toEqual(['en']);
  });
});

describe('error', () => {
  test('a missing page is a ProblemError whose detail names it', async () => {
    const error = await svc.anonymous.staticPages.get('missing-page').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ProblemError);
    expect((error as ProblemError).status).toBe(404);
    expect((error as ProblemError).detail).toContain('missing-page');
  });
});

describe('auth', () => {
  test('writes need an employee token', async () => {
    const error = await svc.anonymous.staticPages
      .put('x', page('en', 'X'))
      .catch((e: unknown) => e);
    expect((error as ProblemError).body).toEqual(problemOf(401));
    const customer = await svc.customer('c-1');
    await expect(customer.staticPages.delete('x', 'en')).rejects.toMatchObject({ status: 403 });
  });
});
