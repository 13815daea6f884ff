import { type AuditContext, recordAudit } from '@/audit/record';
import type { Db } from '@/db/client';
import type { StaticPageRow } from '@/db/schema';
import { fail } from '@/kernel/errors';
import {
  deleteStaticPage,
  notFoundDetail,
  type StaticPageWrite,
  upsertStaticPage,
} from './service';

/**
 * An employee's `PUT /content/static-pages/{slug}`: the page and its audit
 * event in one immediate write transaction.
 */
export function writeStaticPage(
  db: Db,
  slug: string,
  page: StaticPageWrite,
  audit: AuditContext,
): { row: StaticPageRow; created: boolean } {
  return db.transaction(
    (tx) => {
      const written = upsertStaticPage(tx, slug, page, audit.at);
      recordAudit(tx, audit, {
        action: 'static_page.written',
        target: slug,
        details: { language: page.language, created: written.created },
      });
      return written;
    },
    { behavior: 'immediate' },
  );
}

/** An employee's delete of one language version; 404 (and no event) when there is none. */
export function removeStaticPage(db: Db, slug: string, language: string, audit: AuditContext) {
  db.transaction(
    (tx) => {
      if (!deleteStaticPage(tx, slug, language, audit.at)) {
        throw fail('page.not_found', { detail: notFoundDetail(slug, language) });
      }
      recordAudit(tx, audit, {
        action: 'static_page.deleted',
        target: slug,
        details: { language },
      });
    },
    { behavior: 'immediate' },
  );
}
