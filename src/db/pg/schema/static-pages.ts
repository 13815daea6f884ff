import { boolean, index, json, pgTable, text, uniqueIndex } from 'drizzle-orm/pg-core';
import { epochMs, serialKey } from './columns';

export const staticPages = pgTable(
  'static_pages',
  {
    id: serialKey(),
    slug: text().notNull(),
    language: text().notNull(),
    title: text().notNull(),
    content: text().notNull(),
    metaTitle: text().notNull().default(''),
    metaDescription: text().notNull().default(''),
    category: text().notNull().default(''),
    group: text().notNull().default(''),
    accounting: json().$type<Record<string, unknown>>().notNull().default({}),
    seoMetaData: json().$type<Record<string, unknown>>().notNull().default({}),
    published: boolean().notNull().default(false),
    createdAt: epochMs().notNull(),
    updatedAt: epochMs().notNull(),
  },
  (table) => [
    uniqueIndex('static_pages_slug_language_unique').on(table.slug, table.language),
    index('static_pages_published_id').on(table.published, table.id),
  ],
);
