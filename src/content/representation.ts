import type { StaticPage, StaticPageEntry, StaticPageSummary } from '@/content/schemas';
import type { StaticPageRow } from '@/db/sqlite/schema';

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

/** A list entry with its state (`?published=false` or `all`). */
export const toEntry = (
  row: Pick<StaticPageRow, SummaryColumn | 'published'>,
): StaticPageEntry => ({
  ...toSummary(row),
  published: row.published,
});

/** The columns of a list entry, of either database's table. */
export const summaryColumnsOf = <T extends Record<SummaryColumn, unknown>>(
  table: T,
): Pick<T, SummaryColumn> => ({
  id: table.id,
  slug: table.slug,
  language: table.language,
  group: table.group,
});

/** The columns of a list entry with its state, of either database's table. */
export const entryColumnsOf = <T extends Record<SummaryColumn | 'published', unknown>>(
  table: T,
): Pick<T, SummaryColumn | 'published'> => ({
  ...summaryColumnsOf(table),
  published: table.published,
});
