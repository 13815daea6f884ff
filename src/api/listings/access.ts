import type { Identity } from '@/auth/tokens';
import { NotFound } from '../errors';

/** The caller of a listings operation; null when anonymous (GET /properties/{id}). */
export type Actor = Pick<Identity, 'sub' | 'aud'> | null;

/** The owner a customer is confined to (CONTRACT §3); null for employees and anonymous reads. */
export const scopeOf = (actor: Actor): string | null =>
  actor?.aud === 'customer' ? actor.sub : null;

/**
 * Another owner's property does not exist for a customer (404, existence not
 * revealed); employees and anonymous readers see every property.
 */
export function ensureVisible<T extends { owner_id: string }>(row: T | null, actor: Actor): T {
  const scope = scopeOf(actor);
  if (!row || (scope !== null && row.owner_id !== scope)) throw new NotFound();
  return row;
}
