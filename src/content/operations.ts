import type { AuditContext } from '@/audit/record';
import type { PageTables } from '@/content/tables';
import type { StaticPageRow } from '@/db/sqlite/schema';
import type { StaticPageEventData } from '@/events/schemas';
import type { NewEvent } from '@/events/store';
import { fail } from '@/kernel/errors';
import { etagOfJson } from '@/kernel/etag';
import type { MaybePromise } from '@/kernel/maybe-promise';
import { ensureMatches } from '@/kernel/preconditions';
import { type Steps, step } from '@/kernel/steps';
import { notFoundDetail, toStaticPage } from './representation';
import type {
  AcceptedFile,
  ContentStore,
  ImportedPage,
  StaticPageValues,
  StaticPageWrite,
  WrittenPage,
} from './store';

/**
 * The event of a page write: which page, never its body (up to 512 KiB and
 * two 16 KiB objects); a published page is read with its GET.
 */
const pageEvent = (row: StaticPageRow): NewEvent => ({
  type: row.published ? 'static_page.published' : 'static_page.unpublished',
  resource: { kind: 'static_page', id: String(row.id) },
  ownerId: null,
  data: {
    id: String(row.id),
    slug: row.slug,
    language: row.language,
  } satisfies StaticPageEventData,
});

/**
 * Creates or replaces the page of one slug and language (a slug is unique
 * per language), with its event.
 */
export function* upsertPage(
  tables: PageTables,
  slug: string,
  page: StaticPageWrite,
  now: number,
): Steps<WrittenPage> {
  const at = new Date(now);
  const values: StaticPageValues = {
    title: page.title,
    content: page.content,
    metaTitle: page.metaTitle,
    metaDescription: page.metaDescription,
    category: page.category,
    group: page.group,
    accounting: page.accounting,
    seoMetaData: page.seoMetaData,
    published: page.published,
    updatedAt: at,
  };
  const existing = yield* step(tables.pageId(slug, page.language));
  const row =
    existing !== undefined
      ? yield* step(tables.updatePage(existing, values))
      : yield* step(tables.insertPage({ ...values, slug, language: page.language, createdAt: at }));
  yield* step(tables.appendEvent(pageEvent(row), now));
  return { row, created: existing === undefined };
}

/**
 * 412 unless `ifMatch` (when given) names the ETag GET serves for the stored
 * version of `slug` in `language` (the same bytes, published or not).
 */
function* ensurePageMatches(
  tables: PageTables,
  slug: string,
  language: string,
  ifMatch: string,
  orNotFound = false,
): Steps<void> {
  const row = yield* step(tables.page(slug, language));
  if (row === undefined && orNotFound) {
    throw fail('page.not_found', { detail: notFoundDetail(slug, language) });
  }
  ensureMatches(ifMatch, row && etagOfJson(toStaticPage(row)));
}

/** An employee's PUT: the page and its audit entry; 412 when `ifMatch` names another version. */
export function* writePage(
  tables: PageTables,
  slug: string,
  page: StaticPageWrite,
  audit: AuditContext,
  ifMatch?: string,
): Steps<WrittenPage> {
  yield* step(tables.lockPages());
  if (ifMatch !== undefined) yield* ensurePageMatches(tables, slug, page.language, ifMatch);
  const written = yield* upsertPage(tables, slug, page, audit.at);
  yield* step(
    tables.recordAudit(audit, {
      action: 'static_page.written',
      target: slug,
      details: { language: page.language, created: written.created },
    }),
  );
  return written;
}

/**
 * An employee's delete of one language version; 404 (and no event) when
 * there is none, then 412 when `ifMatch` names another version.
 */
export function* removePage(
  tables: PageTables,
  slug: string,
  language: string,
  audit: AuditContext,
  ifMatch?: string,
): Steps<void> {
  yield* step(tables.lockPages());
  if (ifMatch !== undefined) yield* ensurePageMatches(tables, slug, language, ifMatch, true);
  const removed = yield* step(tables.deletePages(slug, language));
  if (removed.length === 0) {
    throw fail('page.not_found', { detail: notFoundDetail(slug, language) });
  }
  for (const id of removed) {
    yield* step(
      tables.appendEvent(
        {
          type: 'static_page.deleted',
          resource: { kind: 'static_page', id: String(id) },
          ownerId: null,
          data: { id: String(id), slug, language } satisfies StaticPageEventData,
        },
        audit.at,
      ),
    );
  }
  yield* step(
    tables.recordAudit(audit, {
      action: 'static_page.deleted',
      target: slug,
      details: { language },
    }),
  );
}

/** An import's upserts, in the order of its files. */
export function* importPages(
  tables: PageTables,
  files: readonly AcceptedFile[],
  now: number,
): Steps<ImportedPage[]> {
  yield* step(tables.lockPages());
  const imported: ImportedPage[] = [];
  for (const { file, page } of files) {
    const { row, created } = yield* upsertPage(tables, page.slug, page, now);
    imported.push({ file, slug: row.slug, language: row.language, created });
  }
  return imported;
}

/** A store's page writes, each run by `run` inside one transaction of its database. */
export const pageWrites = (
  run: <T>(operation: (tables: PageTables) => Steps<T>) => MaybePromise<T>,
): Pick<ContentStore, 'writePage' | 'removePage' | 'importPages'> => ({
  writePage: (slug, page, audit, ifMatch) =>
    run((tables) => writePage(tables, slug, page, audit, ifMatch)),
  removePage: (slug, language, audit, ifMatch) =>
    run((tables) => removePage(tables, slug, language, audit, ifMatch)),
  importPages: (files, now) => run((tables) => importPages(tables, files, now)),
});
