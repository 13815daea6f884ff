import { fail } from '@/kernel/errors';
import { type Steps, step } from '@/kernel/steps';
import { createdEventsOf } from '@/listings/events';
import type { CreateTables } from '@/listings/properties/tables';
import { propertyQuotaDetail, type QuotaCreate } from '@/listings/quotas';
import { planCreates } from './bulk';

/**
 * Creates `inputs` (one create, or all the creates of a group commit) checked
 * against QUOTA_PROPERTIES_PER_OWNER owner by owner: when any counted owner
 * would go past `quota` the whole operation throws the 409 and writes
 * nothing (the group commit then runs the creates one by one). Answers the
 * ids in input order; each property gets its `property.created` event.
 */
export function* createProperties(
  tables: CreateTables,
  inputs: readonly QuotaCreate[],
  quota: number,
): Steps<string[]> {
  const adding = new Map<string, number>();
  for (const { row, counted } of inputs) {
    if (counted) adding.set(row.ownerId, (adding.get(row.ownerId) ?? 0) + 1);
  }
  // Every owner, counted or not (an employee's create takes room too), in
  // one order so two transactions never wait on each other's locks.
  for (const ownerId of [...new Set(inputs.map(({ row }) => row.ownerId))].sort()) {
    yield* step(tables.lockOwner(ownerId));
  }
  for (const [ownerId, count] of adding) {
    const owned = yield* step(tables.ownedUpTo(ownerId, quota));
    if (owned + count > quota) {
      throw fail('quota.properties_reached', { detail: propertyQuotaDetail(quota) });
    }
  }
  const planned = planCreates(
    inputs.map(({ row }) => row),
    Date.now(),
  );
  yield* step(tables.insert(planned));
  const rows = yield* step(tables.records(planned.ids));
  yield* step(tables.appendEvents(createdEventsOf(planned.created, rows)));
  return planned.ids;
}
