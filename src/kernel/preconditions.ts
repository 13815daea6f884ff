/** RFC 9110 §13.1 preconditions on entity tags, shared by the listings, content and plan routes. */
import { fail } from '@/kernel/errors';

/** The longest If-Match / If-None-Match header read (a list of tags). */
export const TAG_LIST_MAX = 1024;

/** The opaque tags of a list header, `W/` kept so strong comparison can refuse them. */
const tagsOf = (header: string) =>
  header
    .split(',')
    .map((tag) => tag.trim())
    .filter((tag) => tag !== '');

/**
 * RFC 9110 §13.1.1 If-Match: `*` holds for any existing resource, otherwise
 * one listed tag must equal the current one by strong comparison (a weak
 * `W/` tag never matches). No header: the write is unconditional.
 */
export function ifMatchHolds(header: string | null | undefined, etag: string): boolean {
  if (header === null || header === undefined) return true;
  if (header.trim() === '*') return true;
  return tagsOf(header).includes(etag);
}

/** RFC 9110 §13.1.2 If-None-Match on a GET: `*` or any listed tag, compared weakly. */
export function ifNoneMatchHolds(header: string | null | undefined, etag: string): boolean {
  if (!header) return false;
  if (header.trim() === '*') return true;
  return tagsOf(header).some((tag) => tag.replace(/^W\//, '') === etag);
}

/**
 * Throws 412 (`resource.changed`) when `If-Match` names another version than
 * `etag`, the current representation's tag, or when there is none (`undefined`:
 * nothing stored, so even `*` fails). No header: nothing to check. Writes call
 * it inside their transaction, after reading the row and before writing.
 */
export function ensureMatches(ifMatch: string | null | undefined, etag: string | undefined): void {
  if (ifMatch === null || ifMatch === undefined) return;
  if (etag === undefined || !ifMatchHolds(ifMatch, etag)) throw fail('resource.changed');
}
