import { and, asc, eq, sql } from 'drizzle-orm';
import type { StaticPage, StaticPageFile, StaticPageSummary } from '@/content/schemas';
import type { Db, DbOrTx } from '@/db/client';
import { type StaticPageRow, staticPages } from '@/db/schema';
import { appendEvent } from '@/events/outbox';

/** The default language: step three of the choice, after `?language=` and Accept-Language. */
export const DEFAULT_LANGUAGE = 'en';

export const notFoundDetail = (slug: string, language?: string) =>
  language
    ? `Static page "${slug}" in language "${language}" was not found`
    : `Static page "${slug}" was not found`;

export function toStaticPage(row: StaticPageRow): StaticPage {
  return {
    content: row.content,
    accounting: row.accounting,
    title: row.title,
    metaTitle: row.metaTitle,
    metaDescription: row.metaDescription,
    language: row.language,
    category: row.category,
    slug: row.slug,
    group: row.group,
    seoMetaData: row.seoMetaData,
  };
}

export const toSummary = (row: Pick<StaticPageRow, 'id' | 'slug' | 'language' | 'group'>) =>
  ({ id: row.id, slug: row.slug, locale: row.language, group: row.group }) as StaticPageSummary;

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
      .select({
        id: staticPages.id,
        slug: staticPages.slug,
        language: staticPages.language,
        group: staticPages.group,
      })
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

export type StaticPageWrite = Omit<StaticPageFile, 'slug'>;

/** The event of a page write: the page as its GET answers it (even while unpublished). */
function pageEvent(db: DbOrTx, row: StaticPageRow, now: number) {
  appendEvent(
    db,
    {
      type: row.published ? 'static_page.published' : 'static_page.unpublished',
      resource: { kind: 'static_page', id: String(row.id) },
      ownerId: null,
      data: toStaticPage(row),
    },
    now,
  );
}

/**
 * Creates or replaces the page of one slug and language (a slug is unique
 * per language), with its event. Synchronous: call it inside a transaction.
 */
export function upsertStaticPage(
  db: DbOrTx,
  slug: string,
  page: StaticPageWrite,
  now: number,
): { row: StaticPageRow; created: boolean } {
  const at = new Date(now);
  const values = {
    title: page.title,
    content: page.content,
    metaTitle: page.metaTitle,
    metaDescription: page.metaDescription,
    category: page.category,
    group: page.group,
    accounting: page.accounting,
    seoMetaData: page.seoMetaData,
    published: page.published,
    updatedAt: at,
  };
  const match = and(eq(staticPages.slug, slug), eq(staticPages.language, page.language));
  const existing = db.select({ id: staticPages.id }).from(staticPages).where(match).get();
  if (existing) {
    const row = db
      .update(staticPages)
      .set(values)
      .where(eq(staticPages.id, existing.id))
      .returning()
      .get();
    pageEvent(db, row, now);
    return { row, created: false };
  }
  const row = db
    .insert(staticPages)
    .values({ ...values, slug, language: page.language, createdAt: at })
    .returning()
    .get();
  pageEvent(db, row, now);
  return { row, created: true };
}

/**
 * Removes one language version, with its event; false when there was none.
 * Synchronous: call it inside a transaction.
 */
export function deleteStaticPage(db: DbOrTx, slug: string, language: string, now: number): boolean {
  const removed = db
    .delete(staticPages)
    .where(and(eq(staticPages.slug, slug), eq(staticPages.language, language)))
    .returning({ id: staticPages.id })
    .all();
  for (const { id } of removed) {
    appendEvent(
      db,
      {
        type: 'static_page.deleted',
        resource: { kind: 'static_page', id: String(id) },
        ownerId: null,
        data: { id: String(id), slug, language },
      },
      now,
    );
  }
  return removed.length > 0;
}
