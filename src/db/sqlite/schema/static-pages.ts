import { index, integer, sqliteTable, text, uniqueIndex } from 'drizzle-orm/sqlite-core';

/** Static pages: one row per slug and language. */
export const staticPages = sqliteTable(
  'static_pages',
  {
    id: integer().primaryKey({ autoIncrement: true }),
    slug: text().notNull(),
    /** Canonical language tag (`en`, `es-ES`): primary subtag lower-case, region upper-case. */
    language: text().notNull(),
    title: text().notNull(),
    content: text().notNull(),
    metaTitle: text().notNull().default(''),
    metaDescription: text().notNull().default(''),
    category: text().notNull().default(''),
    group: text().notNull().default(''),
    accounting: text({ mode: 'json' }).$type<Record<string, unknown>>().notNull().default({}),
    seoMetaData: text({ mode: 'json' }).$type<Record<string, unknown>>().notNull().default({}),
    published: integer({ mode: 'boolean' }).notNull().default(false),
    createdAt: integer({ mode: 'timestamp_ms' }).notNull(),
    updatedAt: integer({ mode: 'timestamp_ms' }).notNull(),
  },
  (table) => [
    uniqueIndex('static_pages_slug_language_unique').on(table.slug, table.language),
    index('static_pages_published_id').on(table.published, table.id),
  ],
);

export type StaticPageRow = typeof staticPages.$inferSelect;
