import { boolean, epochMs, json, serialKey, text } from './columns';
import { index, table, uniqueIndex } from './table';

/** Static pages: one row per slug and language. */
export const staticPages = table(
  'static_pages',
  {
    id: serialKey({ neverReused: true }),
    slug: text().notNull(),
    /** Canonical language tag (`en`, `es-ES`): primary subtag lower-case, region upper-case. */
    language: text().notNull(),
    title: text().notNull(),
    content: text().notNull(),
    metaTitle: text().notNull().default(''),
    metaDescription: text().notNull().default(''),
    category: text().notNull().default(''),
    group: text().notNull().default(''),
    accounting: json<Record<string, unknown>>().notNull().default({}),
    seoMetaData: json<Record<string, unknown>>().notNull().default({}),
    published: boolean().notNull().default(false),
    createdAt: epochMs().notNull(),
    updatedAt: epochMs().notNull(),
  },
  (t) => [
    uniqueIndex('static_pages_slug_language_unique').on(t.slug, t.language),
    index('static_pages_published_id').on(t.published, t.id),
  ],
);
