import type { SQL } from 'bun';
import { upsertStaticPage } from '@/content/sqlite-store';
import type { StaticPageWrite } from '@/content/store';
import { pgDatabase } from '@/db/pg/client';
import * as pg from '@/db/pg/schema';
import type { Db } from '@/db/sqlite/client';
import type { TestContext } from '../support/harness';

export const fullPage = (overrides: Partial<StaticPageWrite> = {}): StaticPageWrite => ({
  language: 'en',
  title: 'About us',
  content: '# About us\n\nWe list homes.',
  metaTitle: 'About us | Listings',
  metaDescription: 'Who we are.',
  category: 'company',
  group: 'footer',
  accounting: { costCenter: 'marketing', budget: 12.5 },
  seoMetaData: { canonical: '/about', robots: 'index,follow' },
  published: true,
  ...overrides,
});

/** Stores a page straight through the service (no HTTP, no cache invalidation). */
export function makePage(db: Db, slug: string, overrides: Partial<StaticPageWrite> = {}) {
  return upsertStaticPage(db, slug, fullPage(overrides), Date.now()).row;
}

/** A page written straight into a PostgreSQL database (no event, no audit entry). */
export async function makePostgresPage(
  client: SQL,
  slug: string,
  overrides: Partial<StaticPageWrite> = {},
) {
  const at = new Date();
  const [row] = await pgDatabase(client)
    .insert(pg.staticPages)
    .values({ ...fullPage(overrides), slug, createdAt: at, updatedAt: at })
    .returning();
  return row!;
}

/** `makePage` on the app's own database, SQLite or PostgreSQL. */
export async function addPage(
  ctx: Pick<TestContext, 'db' | 'deps'>,
  slug: string,
  overrides: Partial<StaticPageWrite> = {},
) {
  const { postgres } = ctx.deps;
  if (postgres) return makePostgresPage(postgres, slug, overrides);
  return makePage(ctx.db, slug, overrides);
}
