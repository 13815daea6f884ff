import type { Caller } from '@/auth/tokens';
import { fail } from '@/kernel/errors';

/** The owner a customer is confined to (its token `sub`); null for employees and anonymous. */
export const scopeOf = (caller: Caller | null): string | null =>
  caller?.aud === 'customer' ? caller.sub : null;

/** Whether a signed-in caller acts on a property of `ownerId`: employees on all, a customer on its own. */
const actsOn = (ownerId: string, caller: Caller): boolean => {
  const scope = scopeOf(caller);
  return scope === null || ownerId === scope;
};

/**
 * Another owner's property does not exist for a customer (404, existence not
 * revealed); employees see every property. The routes using this need a
 * credential: without one nothing is visible through it.
 */
export function ensureVisible<T extends { owner_id: string }>(
  row: T | null,
  caller: Caller | null,
): T {
  if (!row || caller === null || !actsOn(row.owner_id, caller)) throw fail('property.not_found');
  return row;
}

/**
 * Whether `caller` may read a property: employees every one, a customer its
 * own, an anonymous reader a live one only — an archived property is out of
 * the listings, so it does not exist for anyone but its owner and employees
 * (docs/listings.md).
 */
export function canSee(
  property: { readonly ownerId: string; readonly archived: boolean },
  caller: Caller | null,
): boolean {
  if (caller === null) return !property.archived;
  // The owner only when the caller's scope needs it: a cached read decodes it
  // from its bytes (`PropertyRead`), work an employee's read does not need.
  const scope = scopeOf(caller);
  return scope === null || property.ownerId === scope;
}
