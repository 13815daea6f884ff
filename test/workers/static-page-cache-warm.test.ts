import { expect } from 'bun:test';
import { createTestApp } from '../support/harness';
import { READ_CACHE, sqliteOnly } from '../support/postgres-mode';

sqliteOnly.test(
  READ_CACHE,
  'static-page-cache-warm: after a run the cache holds every published page',
  async () => {
    const ctx = createTestApp();
    const token = await ctx.tokenFor('ops', 'employee');
    const page = (language: string, published: boolean) => ({
      language,
      title: `About ${language}`,
      content: `<p>${language}</p>`,
      published,
    });
    await ctx.request('PUT', '/content/static-pages/about', { token, body: page('en', true) });
    await ctx.request('PUT', '/content/static-pages/about', { token, body: page('es', true) });
    await ctx.request('PUT', '/content/static-pages/draft', { token, body: page('en', false) });

    const result = await ctx.deps.jobs!.runNow('static-page-cache-warm');
    expect(result.outcome).toBe('succeeded');
    expect(result.details).toMatchObject({ pages: 2, slugs: 1 });
  },
);
