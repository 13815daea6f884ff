import type { AuditContext, AuditEntry } from '@/audit/record';
import type { NewStaticPage, StaticPageValues } from '@/content/store';
import type { StaticPageRow } from '@/db/sqlite/schema';
import type { NewEvent } from '@/events/store';
import type { MaybePromise } from '@/kernel/maybe-promise';

/**
 * The queries of the page writes, inside one transaction of a store: at
 * once on SQLite, later on PostgreSQL (`src/kernel/steps.ts`).
 */
export interface PageTables {
  /** Excludes every other page write until the transaction ends. */
  lockPages(): MaybePromise<void>;
  pageId(slug: string, language: string): MaybePromise<number | undefined>;
  /** The whole row (read only to check an If-Match: a body can be 512 KiB). */
  page(slug: string, language: string): MaybePromise<StaticPageRow | undefined>;
  updatePage(id: number, values: StaticPageValues): MaybePromise<StaticPageRow>;
  insertPage(values: NewStaticPage): MaybePromise<StaticPageRow>;
  /** Answers the ids removed. */
  deletePages(slug: string, language: string): MaybePromise<number[]>;
  appendEvent(event: NewEvent, now: number): MaybePromise<void>;
  recordAudit(context: AuditContext, entry: AuditEntry): MaybePromise<void>;
}
