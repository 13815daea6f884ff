import type { Caller } from '@/auth/tokens';
import { fail } from '@/kernel/errors';

/** The owner a customer is confined to (its token `sub`); null for employees and anonymous. */
export const scopeOf = (caller: Caller | null): string | null =>
  caller?.aud === 'customer' ? caller.sub : null;

/**
 * Another owner's property does not exist for a customer (404, existence not
 * revealed); employees and anonymous readers see every property.
 */
export function ensureVisible<T extends { owner_id: string }>(
  row: T | null,
  caller: Caller | null,
): T {
  if (!row || !canSee(row.owner_id, caller)) throw fail('property.not_found');
  return row;
}

/** Whether `caller` may see a property of `ownerId`. */
export function canSee(ownerId: string, caller: Caller | null): boolean {
  const scope = scopeOf(caller);
  return scope === null || ownerId === scope;
}
