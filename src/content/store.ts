import type { AuditContext } from '@/audit/record';
import type { StaticPageEntry, StaticPageFile, StaticPageSummary } from '@/content/schemas';
import type { StaticPageRow, staticPages } from '@/db/sqlite/schema';
import type { MaybePromise } from '@/kernel/maybe-promise';

export type StaticPageWrite = Omit<StaticPageFile, 'slug'>;

/** A page written: the row as stored, and whether its slug and language were new. */
export interface WrittenPage {
  row: StaticPageRow;
  created: boolean;
}

/** One file of an import, accepted by the rules (`src/content/import.ts`). */
export interface AcceptedFile {
  file: string;
  page: StaticPageFile;
}

export interface ImportedPage {
  file: string;
  slug: string;
  language: string;
  created: boolean;
}

/** Reads answered at once from a database whose writes the read cache hears of. */
export interface CacheableContentReads {
  publishedVariants(slug: string): StaticPageRow[];
  listPublished(): StaticPageSummary[];
  /** Every published page and the list, read in one snapshot (the warm job). */
  everyPublished(): { rows: StaticPageRow[]; list: StaticPageSummary[] };
}

/**
 * Where the static pages live. Every method is one whole operation in one
 * transaction of the store, with the same results and errors on every
 * store; the rules (what is written, the events, the audit entries, the 404)
 * are the steps of `./operations.ts`, so a store holds only its SQL.
 *
 * `sqliteContentStore` answers every call at once, so the routes and the
 * fast lane stay synchronous on SQLite; `postgresContentStore` answers
 * with promises. Callers compose results with `whenReady`.
 */
export interface ContentStore {
  /** Every published language version of one slug, lowest id first. */
  publishedVariants(slug: string): MaybePromise<StaticPageRow[]>;
  /** GET /content/static-pages/: published pages in id order. */
  listPublished(): MaybePromise<StaticPageSummary[]>;
  /** Every language version of one slug, published or not, lowest id first (never cached). */
  everyVariant(slug: string): MaybePromise<StaticPageRow[]>;
  /**
   * Every page with its state, in id order, or only those whose state is
   * `published` when it is given: the filter is the query's (never cached).
   */
  listEvery(published?: boolean): MaybePromise<StaticPageEntry[]>;
  /**
   * The same reads at once, present only where the read cache is told of
   * every write that changes their answers (SQLite's change-log triggers):
   * only such answers may be remembered.
   */
  readonly cacheable?: CacheableContentReads;
  /** An employee's PUT: the page, its event and its audit entry together. */
  writePage(
    slug: string,
    page: StaticPageWrite,
    audit: AuditContext,
    ifMatch?: string,
  ): MaybePromise<WrittenPage>;
  /** An employee's delete of one language version; `page.not_found` when there is none. */
  removePage(
    slug: string,
    language: string,
    audit: AuditContext,
    ifMatch?: string,
  ): MaybePromise<void>;
  /** Upserts every file in the order given, all or nothing. */
  importPages(files: readonly AcceptedFile[], now: number): MaybePromise<ImportedPage[]>;
}

export type NewStaticPage = typeof staticPages.$inferInsert;
export type StaticPageValues = Omit<NewStaticPage, 'id' | 'slug' | 'language' | 'createdAt'>;
