import { fail } from '@/kernel/errors';
import { ifMatchHolds } from '@/kernel/preconditions';
import type { Actor } from '@/listings/access';
import { type PropertyRecord, toProperty } from '@/listings/properties/representation';
import type { Property } from '@/listings/properties/schemas';

/**
 * Strong ETag of a property: a digest of its JSON representation, so it
 * changes with every change a reader could see, whoever made it (the
 * property routes, unit writes rewriting the counters, the reconcile worker,
 * an import) without each writer having to bump a version column. Equal
 * tags mean byte-equal representations, which is what "strong" promises:
 * a 64-bit wyhash plus the length (a stale tag colliding with the current
 * one is a 2^-64 event; much cheaper than SHA-256, see docs/performance.md).
 */
export const etagOf = (property: Property): string => etagOfJson(JSON.stringify(property));

/** The same tag from the representation already serialised (the read route sends that text). */
export const etagOfJson = (json: string): string =>
  `"${Bun.hash.wyhash(json).toString(36)}-${json.length.toString(36)}"`;

/**
 * A property write's caller, clock reading and `If-Match` header. Services
 * check the header inside the write's transaction, right after reading the
 * row (after 401/403/404, before 409 and the write), so a stale editor gets
 * 412 and nothing is written.
 */
export interface PropertyWrite {
  actor: Actor;
  now: number;
  ifMatch?: string | null;
}

/** Throws 412 when `If-Match` names another version of `row`. */
export function ensureCurrent(row: PropertyRecord, ifMatch: string | null | undefined): void {
  if (ifMatch === null || ifMatch === undefined) return;
  if (!ifMatchHolds(ifMatch, etagOf(toProperty(row)))) throw fail('property.changed');
}

export const TAG_LIST_MAX = 1024;
