import { describe, expect, test } from 'bun:test';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { importStaticPages, parseMarkdown } from '@/content/import';
import { COMMAND_DATABASES } from '../scripts/databases';
import { tempDir } from '../support/harness';
import { runScript } from '../support/script';
import { storesUnderTest } from './stores';

const root = join(import.meta.dir, '..', '..');

const goodMarkdown = `---
# a comment
slug: help
language: es-ES
title: "Ayuda: preguntas"
published: true
group: footer
accounting: {"costCenter": "support"}
seoMetaData: {"robots": "index"}
---

# Ayuda

Texto.
`;

describe('parseMarkdown', () => {
  test('front matter fields, JSON values, the rest as content', () => {
    expect(parseMarkdown(goodMarkdown)).toEqual({
      slug: 'help',
      language: 'es-ES',
      title: 'Ayuda: preguntas',
      published: true,
      group: 'footer',
      accounting: { costCenter: 'support' },
      seoMetaData: { robots: 'index' },
      content: '# Ayuda\n\nTexto.',
    });
  });

  test.each([
    ['no front matter', '# Title\n', 'front matter missing: the first line must be ---'],
    ['unclosed', '---\nslug: a\n', 'front matter not closed: no second --- line'],
    ['a line without a key', '---\nslug a\n---\n', 'line 2: expected "key: value"'],
    ['a repeated key', '---\nslug: a\nslug: b\n---\n', 'line 3: slug given twice'],
    ['bad JSON', '---\naccounting: {oops}\n---\n', 'line 2: accounting is not valid JSON'],
    [
      'content in front matter',
      '---\ncontent: x\n---\n',
      'line 2: content is the text after the front matter',
    ],
  ])('%s → refused with the reason', (_, text, reason) => {
    expect(() => parseMarkdown(text)).toThrow(reason);
  });
});

for (const store of storesUnderTest()) {
  store.describe('importStaticPages', () => {
    test('the example content folder imports cleanly, unpublished page included', async () => {
      const ctx = await store.app();
      const report = await importStaticPages(
        ctx.deps.stores.content,
        join(root, 'content'),
        Date.now(),
      );
      expect(report.refused).toEqual([]);
      expect(report.imported.map(({ slug, language }) => `${slug}/${language}`)).toEqual([
        'about/en',
        'about/es',
        'careers/en',
        'terms/en',
      ]);
      const list = await ctx.request<{ slug: string }[]>('GET', '/content/static-pages/');
      expect(list.body.map((page) => page.slug)).toEqual(['about', 'about', 'terms']);
      expect((await ctx.request('GET', '/content/static-pages/careers')).status).toBe(404);
    });

    test('a duplicate slug+language in one folder refuses the later file', async () => {
      const ctx = await store.app();
      const dir = tempDir('pages-');
      const page = { slug: 'a', language: 'en', title: 'A', content: 'a', published: true };
      writeFileSync(join(dir, 'a.json'), JSON.stringify(page));
      writeFileSync(join(dir, 'b.json'), JSON.stringify({ ...page, language: 'EN' }));
      const report = await importStaticPages(ctx.deps.stores.content, dir, Date.now());
      expect(report.imported).toHaveLength(1);
      expect(report.refused).toEqual([
        { file: 'b.json', reason: 'same slug and language as a.json' },
      ]);
    });

    test('a file holding NUL is refused by name and field on either database, nothing imported', async () => {
      const ctx = await store.app();
      const dir = tempDir('pages-');
      const page = { slug: 'a', language: 'en', title: 'A', content: 'a', published: true };
      writeFileSync(join(dir, 'a.json'), JSON.stringify({ ...page, group: 'foot\u0000er' }));
      const report = await importStaticPages(ctx.deps.stores.content, dir, Date.now());
      expect(report.imported).toEqual([]);
      expect(report.refused).toEqual([
        { file: 'a.json', reason: 'group: The field must not contain the NUL character (U+0000).' },
      ]);
      expect((await ctx.request('GET', '/content/static-pages/a')).status).toBe(404);
    });
  });
}

/** `bun run pages:import -- DIR` on the database of `env`. */
const pagesImport = (env: Record<string, string>, dir: string) =>
  runScript('pages-import.ts', [dir], env);

for (const target of COMMAND_DATABASES) {
  target.describe('bun run pages:import -- DIR', () => {
    test('imports the good files, refuses the bad ones by name and reason, exits 1', async () => {
      const dir = tempDir('pages-');
      writeFileSync(join(dir, 'help.md'), goodMarkdown);
      const terms = { slug: 'terms', language: 'en', title: 'T', content: 'c', published: false };
      writeFileSync(join(dir, 'terms.json'), JSON.stringify(terms));
      writeFileSync(
        join(dir, 'broken.json'),
        JSON.stringify({ slug: 'Bad Slug', language: 'en', title: '', content: 'c', extra: 1 }),
      );
      writeFileSync(join(dir, 'broken.md'), '---\nslug: x\n');
      writeFileSync(join(dir, 'notes.txt'), 'ignored');

      const fresh = await target.fresh();
      const run = await pagesImport(fresh.env, dir);
      expect(run.code).toBe(1);
      expect(run.stdout.split('\n')).toEqual([
        'imported help.md → help (es-ES), created',
        'imported terms.json → terms (en), created',
        'skipped notes.txt: not .json or .md',
        '2 imported, 2 refused',
      ]);
      expect(run.stderr.split('\n')).toEqual([
        'refused broken.json: title: Too small: expected string to have >=1 characters; ' +
          'published: Invalid input: expected boolean, received undefined; ' +
          'slug: must be lower-case letters, digits and single hyphens; unknown field extra',
        'refused broken.md: front matter not closed: no second --- line',
      ]);

      const database = await fresh.open();
      expect(await database.countRows('static_pages')).toBe(2);
      const help = await database.stores.content.publishedVariants('help');
      expect(help.map(({ language, published }) => ({ language, published }))).toEqual([
        { language: 'es-ES', published: true },
      ]);
      expect(await database.stores.content.publishedVariants('terms')).toEqual([]);
      await database.close();

      // An upsert: the second run finds both pages.
      const again = await pagesImport(fresh.env, dir);
      expect(again.stdout).toContain('imported help.md → help (es-ES), replaced');
      expect(again.stdout).toContain('imported terms.json → terms (en), replaced');
    });

    test('no directory → exit 1 naming it', async () => {
      const run = await pagesImport((await target.fresh()).env, '/no/such/dir');
      expect(run.code).toBe(1);
      expect(run.stderr).toContain('/no/such/dir: not a directory');
    });
  });
}
