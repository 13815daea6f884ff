import type { Identity } from '@/auth/tokens';
import { fail } from '@/kernel/errors';

/** The caller of a listings operation; null when anonymous (GET /properties/{id}). */
export type Actor = Pick<Identity, 'sub' | 'aud'> | null;

/** The owner a customer is confined to (its token `sub`); null for employees and anonymous. */
export const scopeOf = (actor: Actor): string | null =>
  actor?.aud === 'customer' ? actor.sub : null;

/**
 * Another owner's property does not exist for a customer (404, existence not
 * revealed); employees and anonymous readers see every property.
 */
export function ensureVisible<T extends { owner_id: string }>(row: T | null, actor: Actor): T {
  if (!row || !canSee(row.owner_id, actor)) throw fail('property.not_found');
  return row;
}

/** Whether `actor` may see a property of `ownerId`. */
export function canSee(ownerId: string, actor: Actor): boolean {
  const scope = scopeOf(actor);
  return scope === null || ownerId === scope;
}
