import { and, asc, eq, sql } from 'drizzle-orm';
import type { StaticPage, StaticPageSummary } from '@/content/schemas';
import type { Db } from '@/db/client';
import { type StaticPageRow, staticPages } from '@/db/schema';

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

type SummaryColumn = 'id' | 'slug' | 'language' | 'group';

export const toSummary = (row: Pick<StaticPageRow, SummaryColumn>) =>
  ({ id: row.id, slug: row.slug, locale: row.language, group: row.group }) as StaticPageSummary;

/** The columns of a list entry, of either database's table. */
export const summaryColumnsOf = <T extends Record<SummaryColumn, unknown>>(
  table: T,
): Pick<T, SummaryColumn> => ({
  id: table.id,
  slug: table.slug,
  language: table.language,
  group: table.group,
});

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
