import { describe, expect, test } from 'bun:test';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { importStaticPages, parseMarkdown } from '@/content/import';
import { migrateDatabase, openDatabase } from '@/db/client';
import { tempDir } from '../support/harness';
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
      const report = await importStaticPages(ctx.deps.content, join(root, 'content'), Date.now());
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
      const report = await importStaticPages(ctx.deps.content, dir, Date.now());
      expect(report.imported).toHaveLength(1);
      expect(report.refused).toEqual([
        { file: 'b.json', reason: 'same slug and language as a.json' },
      ]);
    });
  });
}

describe('bun run pages:import -- DIR', () => {
  test('imports the good files, refuses the bad ones by name and reason, exits 1', async () => {
    const dir = tempDir('pages-');
    const db = join(tempDir(), 'app.db');
    writeFileSync(join(dir, 'help.md'), goodMarkdown);
    writeFileSync(
      join(dir, 'terms.json'),
      JSON.stringify({ slug: 'terms', language: 'en', title: 'T', content: 'c', published: false }),
    );
    writeFileSync(
      join(dir, 'broken.json'),
      JSON.stringify({ slug: 'Bad Slug', language: 'en', title: '', content: 'c', extra: 1 }),
    );
    writeFileSync(join(dir, 'broken.md'), '---\nslug: x\n');
    writeFileSync(join(dir, 'notes.txt'), 'ignored');

    const run = Bun.spawnSync([process.execPath, 'scripts/pages-import.ts', dir], {
      cwd: root,
      env: { ...process.env, DATABASE_PATH: db, JWT_SECRET: 'x'.repeat(32) },
    });
    const out = run.stdout.toString();
    const err = run.stderr.toString();
    expect(run.exitCode).toBe(1);
    expect(out).toContain('imported help.md → help (es-ES), created');
    expect(out).toContain('imported terms.json → terms (en), created');
    expect(out).toContain('skipped notes.txt: not .json or .md');
    expect(out).toContain('2 imported, 2 refused');
    expect(err).toContain('refused broken.md: front matter not closed: no second --- line');
    expect(err).toContain(
      'refused broken.json: title: Too small: expected string to have >=1 characters; ' +
        'published: Invalid input: expected boolean, received undefined; ' +
        'slug: must be lower-case letters, digits and single hyphens; unknown field extra\n',
    );

    const check = openDatabase(db);
    migrateDatabase(check);
    const rows = check.$client
      .query('SELECT slug, language, published FROM static_pages ORDER BY id')
      .all();
    expect(rows).toEqual([
      { slug: 'help', language: 'es-ES', published: 1 },
      { slug: 'terms', language: 'en', published: 0 },
    ]);
    check.$client.close();
  });

  test('no directory → usage and exit 1', () => {
    const run = Bun.spawnSync([process.execPath, 'scripts/pages-import.ts', '/no/such/dir'], {
      cwd: root,
      env: { ...process.env, DATABASE_PATH: join(tempDir(), 'app.db') },
    });
    expect(run.exitCode).toBe(1);
    expect(run.stderr.toString()).toContain('/no/such/dir: not a directory');
  });
});
