import { upsertStaticPage } from '@/content/sqlite-store';
import type { StaticPageWrite } from '@/content/store';
import type { Db } from '@/db/client';

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
