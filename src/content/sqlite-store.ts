import { and, asc, eq, sql } from 'drizzle-orm';
import { recordAudit } from '@/audit/sqlite-store';
import type { PageTables } from '@/content/tables';
import type { Db, DbOrTx } from '@/db/sqlite/client';
import { type StaticPageRow, staticPages } from '@/db/sqlite/schema';
import { readSnapshot } from '@/db/sqlite/snapshot';
import { announcedAfter, appendEvent } from '@/events/sqlite-outbox';
import { runNow, type Steps } from '@/kernel/steps';
import { pageWrites, upsertPage } from './operations';
import { entryColumnsOf, summaryColumnsOf, toEntry, toSummary } from './representation';
import type { StaticPageSummary } from './schemas';
import type { ContentStore, StaticPageWrite, WrittenPage } from './store';

/** Prepared once per database handle: these run on every uncached read. */
const prepared = new WeakMap<Db, ReturnType<typeof prepare>>();

function prepare(db: Db) {
  return {
    variants: db
      .select()
      .from(staticPages)
      .where(and(eq(staticPages.slug, sql.placeholder('slug')), eq(staticPages.published, true)))
      .orderBy(asc(staticPages.id))
      .prepare(),
    published: db
      .select()
      .from(staticPages)
      .where(eq(staticPages.published, true))
      .orderBy(asc(staticPages.id))
      .prepare(),
    summaries: db
      .select(summaryColumnsOf(staticPages))
      .from(staticPages)
      .where(eq(staticPages.published, true))
      .orderBy(asc(staticPages.id))
      .prepare(),
  };
}

function statements(db: Db) {
  let found = prepared.get(db);
  if (!found) {
    found = prepare(db);
    prepared.set(db, found);
  }
  return found;
}

/** Every published language version of one slug, lowest id first. */
export const findPublishedVariants = (db: Db, slug: string): StaticPageRow[] =>
  statements(db).variants.all({ slug });

/** Every published page, lowest id first. */
export const findAllPublished = (db: Db): StaticPageRow[] => statements(db).published.all();

/** GET /content/static-pages/: published pages in id order. */
export const listPublished = (db: Db): StaticPageSummary[] =>
  statements(db).summaries.all().map(toSummary);

const ofSlugAndLanguage = (slug: string, language: string) =>
  and(eq(staticPages.slug, slug), eq(staticPages.language, language));

/** The page queries on a SQLite connection or transaction; every one answers at once. */
const sqlitePageTables = (db: DbOrTx): PageTables => ({
  // The writes run in an immediate transaction: it holds SQLite's only write lock.
  lockPages: () => {},
  pageId: (slug, language) =>
    db
      .select({ id: staticPages.id })
      .from(staticPages)
      .where(ofSlugAndLanguage(slug, language))
      .get()?.id,
  page: (slug, language) =>
    db.select().from(staticPages).where(ofSlugAndLanguage(slug, language)).get(),
  updatePage: (id, values) =>
    db.update(staticPages).set(values).where(eq(staticPages.id, id)).returning().get(),
  insertPage: (values) => db.insert(staticPages).values(values).returning().get(),
  deletePages: (slug, language) =>
    db
      .delete(staticPages)
      .where(ofSlugAndLanguage(slug, language))
      .returning({ id: staticPages.id })
      .all()
      .map(({ id }) => id),
  appendEvent: (event, now) => appendEvent(db, event, now),
  recordAudit: (context, entry) => recordAudit(db, context, entry),
});

/**
 * Creates or replaces one page with its event, at once on `db` (demo data
 * and test factories; inside a transaction of the caller's when given one).
 */
export const upsertStaticPage = (
  db: DbOrTx,
  slug: string,
  page: StaticPageWrite,
  now: number,
): WrittenPage => runNow(upsertPage(sqlitePageTables(db), slug, page, now));

/**
 * The static pages on `bun:sqlite`: every method answers at once, each
 * write in one immediate transaction (nothing inside it is awaited).
 */
export function sqliteContentStore(db: Db) {
  // The page's event is announced once the transaction committed.
  const run = <T>(operation: (tables: PageTables) => Steps<T>): T =>
    announcedAfter(() =>
      db.transaction((tx) => runNow(operation(sqlitePageTables(tx))), { behavior: 'immediate' }),
    );
  const reads = {
    publishedVariants: (slug: string) => findPublishedVariants(db, slug),
    listPublished: () => listPublished(db),

    // One read transaction: the pages and the list agree.
    everyPublished: () =>
      readSnapshot(db.$client, () => ({ rows: findAllPublished(db), list: listPublished(db) })),
  };
  return {
    ...reads,
    // The change-log triggers tell the read cache of every write to static_pages.
    cacheable: reads,
    // Employees' reads of drafts: rare, never cached.
    everyVariant: (slug: string) =>
      db
        .select()
        .from(staticPages)
        .where(eq(staticPages.slug, slug))
        .orderBy(asc(staticPages.id))
        .all(),
    listEvery: (published?: boolean) =>
      db
        .select(entryColumnsOf(staticPages))
        .from(staticPages)
        .where(published === undefined ? undefined : eq(staticPages.published, published))
        .orderBy(asc(staticPages.id))
        .all()
        .map(toEntry),
    ...pageWrites(run),
  } satisfies ContentStore;
}
