import type { Caller } from '@/auth/tokens';
import { etagOfJson } from '@/kernel/etag';
import { ensureMatches } from '@/kernel/preconditions';
import { type PropertyRecord, toProperty } from '@/listings/properties/representation';
import type { Property } from '@/listings/properties/schemas';

/** Strong ETag of a property: `etagOfText` of its JSON representation. */
export const etagOf = (property: Property): string => etagOfJson(property);

/**
 * A property write's caller, clock reading and `If-Match` header. Services
 * check the header inside the write's transaction, right after reading the
 * row (after 401/403/404, before 409 and the write), so a stale editor gets
 * 412 and nothing is written.
 */
export interface PropertyWrite {
  caller: Caller | null;
  now: number;
  ifMatch?: string | null;
}

/** Throws 412 when `If-Match` names another version of `row`. */
export function ensureCurrent(row: PropertyRecord, ifMatch: string | null | undefined): void {
  if (ifMatch === null || ifMatch === undefined) return;
  ensureMatches(ifMatch, etagOf(toProperty(row)));
}
