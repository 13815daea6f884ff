import { beforeAll, describe, expect, test } from 'bun:test';
import { eq } from 'drizzle-orm';
import { toolContext } from '@/audit/record';
import { postgresContentStore } from '@/content/postgres-store';
import type { StaticPageFile } from '@/content/schemas';
import type { ContentStore } from '@/content/store';
import { type PgDb, pgDatabase } from '@/db/pg/client';
import * as pg from '@/db/pg/schema';
import { migratedDatabaseForSuite, pgSuite, postgresAvailable } from '../support/postgres';
import { fullPage } from './factory';

/** What only PostgreSQL can get wrong in the static pages (docs/postgresql.md). */
describe.skipIf(!postgresAvailable)(pgSuite('PostgreSQL content store'), () => {
  const database = migratedDatabaseForSuite(6);
  let store: ContentStore;
  let db: PgDb;

  beforeAll(() => {
    db = pgDatabase(database.client());
    store = postgresContentStore(database.client());
  });

  const audit = toolContext(Date.UTC(2026, 0, 2));
  const fileOf = (slug: string, overrides: Partial<StaticPageFile> = {}) => ({
    file: `${slug}.json`,
    page: { ...fullPage(), slug, ...overrides },
  });

  test('five writes of one new slug and language at once: one creates, four replace, one row', async () => {
    const titles = ['A', 'B', 'C', 'D', 'E'];
    const written = await Promise.all(
      titles.map((title) => store.writePage('race', fullPage({ title }), audit)),
    );
    expect(written.filter((page) => page.created)).toHaveLength(1);
    const rows = await db.select().from(pg.staticPages);
    expect(rows.filter((row) => row.slug === 'race')).toHaveLength(1);
    // One event per write, each naming the one page (a consumer reads the row kept).
    const id = String(written[0]!.row.id);
    const events = await db.select().from(pg.events).orderBy(pg.events.id);
    const ofRace = events.filter((event) => event.resourceId === id);
    expect(ofRace.map((event) => JSON.parse(event.data))).toEqual(
      Array(5).fill({ id, slug: 'race', language: 'en' }),
    );
  });

  test('an import failing at its last page stores none of them', async () => {
    const files = [fileOf('first'), fileOf('second'), fileOf('third', { content: 'a\u0000b' })];
    await expect(Promise.resolve(store.importPages(files, audit.at))).rejects.toThrow();
    const slugs = (await db.select({ slug: pg.staticPages.slug }).from(pg.staticPages)).map(
      (row) => row.slug,
    );
    expect(slugs).not.toContain('first');
    expect(slugs).not.toContain('second');
  });

  test('a page holding NUL in a text column (the routes refuse it first): the write fails whole', async () => {
    const page = fullPage({ category: '\u0000\u0000' });
    await expect(Promise.resolve(store.writePage('nul-text', page, audit))).rejects.toThrow();
    const rows = await db.select().from(pg.staticPages).where(eq(pg.staticPages.slug, 'nul-text'));
    expect(rows).toEqual([]);
  });

  test('JSON objects come back as written (key order, numbers), times as Dates, booleans as booleans', async () => {
    const accounting = {
      zeta: 1,
      alpha: { list: [1, 2.5, 'x', null, true] },
      big: 9007199254740991,
    };
    const seoMetaData = { 'b-key': 'ü ✓ 日本', a: { nested: {} } };
    const { row } = await store.writePage(
      'json',
      fullPage({ accounting, seoMetaData, published: true }),
      audit,
    );
    const [variant] = await store.publishedVariants('json');
    expect(variant).toEqual(row);
    expect(JSON.stringify(variant!.accounting)).toBe(JSON.stringify(accounting));
    expect(JSON.stringify(variant!.seoMetaData)).toBe(JSON.stringify(seoMetaData));
    expect(variant!.updatedAt).toBeInstanceOf(Date);
    expect(variant!.updatedAt.getTime()).toBe(audit.at);
    expect(variant!.published).toBe(true);
    expect(typeof variant!.id).toBe('number');
  });

  test('the list and the variants go by id, not by slug or language; unpublished pages are left out', async () => {
    await store.writePage('zz-last', fullPage({ language: 'fr' }), audit);
    await store.writePage('aa-first', fullPage({ language: 'en' }), audit);
    await store.writePage('zz-last', fullPage({ language: 'de' }), audit);
    await store.writePage('zz-last', fullPage({ language: 'es', published: false }), audit);
    const variants = await store.publishedVariants('zz-last');
    expect(variants.map((row) => row.language)).toEqual(['fr', 'de']);
    const list = await store.listPublished();
    const ids = list.map((page) => page.id);
    expect(ids).toEqual([...ids].sort((a, b) => a - b));
    expect(list.some((page) => page.locale === 'es')).toBe(false);
  });

  test('a delete removes one language with its event and audit entry; a missing one is page.not_found', async () => {
    await store.writePage('gone', fullPage({ language: 'en' }), audit);
    await store.writePage('gone', fullPage({ language: 'it' }), audit);
    await store.removePage('gone', 'it', audit);
    expect((await store.publishedVariants('gone')).map((row) => row.language)).toEqual(['en']);
    await expect(Promise.resolve(store.removePage('gone', 'it', audit))).rejects.toMatchObject({
      code: 'page.not_found',
    });
    const actions = await db
      .select({ action: pg.auditEvents.action, target: pg.auditEvents.target })
      .from(pg.auditEvents);
    expect(actions.filter((entry) => entry.target === 'gone').map((entry) => entry.action)).toEqual(
      ['static_page.written', 'static_page.written', 'static_page.deleted'],
    );
  });
});
