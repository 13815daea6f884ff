import type { Caller } from '@/auth/tokens';
import { uuidv7 } from '@/db/ids';
import type { EventType, UnitEventData } from '@/events/schemas';
import { fail } from '@/kernel/errors';
import { type Steps, step } from '@/kernel/steps';
import { ensureVisible } from '@/listings/access';
import type { Paging } from '@/listings/paging';
import { MAX_UNITS } from '@/listings/properties/schemas';
import { countsAgainstQuota, unitQuotaDetail } from '@/listings/quotas';
import type { UnitTables } from '@/listings/units/tables';
import type { Unit, UnitCreate, UnitPatch } from './schemas';

/** A property as `caller` may see it (404 otherwise). */
function* visibleProperty(t: UnitTables, id: string, caller: Caller | null) {
  return ensureVisible(yield* step(t.property(id)), caller);
}

function* existingUnit(t: UnitTables, propertyId: string, unitId: string) {
  const row = yield* step(t.unit(propertyId, unitId));
  if (!row) throw fail('unit.not_found');
  return row;
}

/** Unit writes are refused (409) on an archived property; answers its owner. */
function* writableProperty(t: UnitTables, id: string, caller: Caller | null) {
  const property = yield* visibleProperty(t, id, caller);
  if (property.archived) throw fail('property.archived');
  return property.owner_id;
}

/** A unit's event data: the unit without its features. */
const unitEventData = ({ features: _, ...unit }: Unit): UnitEventData => unit;

/**
 * One event per unit written, `data` the unit as GET answers it after the
 * write without its `features` (up to 50 × 4 texts of 255 characters): the
 * event stays small, and a consumer that mirrors features reads the unit.
 */
export function* unitEvents(
  t: UnitTables,
  type: EventType,
  ownerId: string,
  unitIds: readonly string[],
  now: number,
) {
  const units = yield* step(t.units(unitIds));
  const batch = units.map((unit) => ({
    event: {
      type,
      resource: { kind: 'unit' as const, id: unit.id },
      ownerId,
      data: unitEventData(unit),
    },
    now,
  }));
  yield* step(t.appendEvents(batch));
}

/** GET /properties/{id}/units: a page in id (creation) order; deleted ones only on request. */
export function* listUnits(
  t: UnitTables,
  propertyId: string,
  caller: Caller | null,
  includeDeleted: boolean,
  paging: Paging,
): Steps<{ total: number; units: Unit[] }> {
  yield* visibleProperty(t, propertyId, caller);
  const { total, rows } = yield* step(t.pageOfUnits(propertyId, includeDeleted, paging));
  const units = yield* step(t.units(rows.map((row) => row.id)));
  return { total, units };
}

/** GET /properties/{id}/units/{unitId}. */
export function* getUnit(
  t: UnitTables,
  propertyId: string,
  unitId: string,
  caller: Caller | null,
): Steps<Unit> {
  yield* visibleProperty(t, propertyId, caller);
  const row = yield* existingUnit(t, propertyId, unitId);
  return (yield* step(t.units([row.id])))[0]!;
}

/**
 * POST /properties/{id}/units: 409 past 30 live units, or past
 * `unitQuota` unit rows (deleted ones included) for a caller who counts
 * against quotas. Answers the new unit's id.
 */
export function* addUnit(
  t: UnitTables,
  propertyId: string,
  caller: Caller | null,
  input: UnitCreate,
  now: number,
  unitQuota?: number,
): Steps<string> {
  const ownerId = yield* writableProperty(t, propertyId, caller);
  if ((yield* step(t.liveUnits(propertyId))) >= MAX_UNITS) throw fail('unit.limit_reached');
  if (unitQuota !== undefined && countsAgainstQuota(caller)) {
    const rows = yield* step(t.unitRowsUpTo(propertyId, unitQuota));
    if (rows >= unitQuota)
      throw fail('quota.units_reached', { detail: unitQuotaDetail(unitQuota) });
  }
  const id = uuidv7(now);
  yield* step(t.insertUnit(id, propertyId, input?.rentable !== false, now));
  yield* step(t.writeFeatures(id, propertyId, input?.features ?? []));
  yield* step(t.refreshCounters(propertyId, now));
  yield* unitEvents(t, 'unit.created', ownerId, [id], now);
  return id;
}

/** PATCH: 409 for a deleted unit or a published unit that is not rentable. */
export function* patchUnit(
  t: UnitTables,
  propertyId: string,
  unitId: string,
  caller: Caller | null,
  patch: UnitPatch,
  now: number,
): Steps<void> {
  const ownerId = yield* writableProperty(t, propertyId, caller);
  const unit = yield* existingUnit(t, propertyId, unitId);
  if (unit.deleted_at !== null) throw fail('unit.deleted');
  const rentable = patch.rentable ?? unit.rentable === 1;
  const published = patch.published ?? unit.published === 1;
  if (published && !rentable) throw fail('unit.not_rentable');
  yield* step(t.updateUnit(unitId, rentable, published, now));
  if (patch.features) yield* step(t.writeFeatures(unitId, propertyId, patch.features));
  yield* step(t.refreshCounters(propertyId, now));
  yield* unitEvents(t, 'unit.updated', ownerId, [unitId], now);
}

/** DELETE: a soft delete that also unpublishes; 409 for the last live unit or one already deleted. */
export function* deleteUnit(
  t: UnitTables,
  propertyId: string,
  unitId: string,
  caller: Caller | null,
  now: number,
): Steps<void> {
  const ownerId = yield* writableProperty(t, propertyId, caller);
  const unit = yield* existingUnit(t, propertyId, unitId);
  if (unit.deleted_at !== null) throw fail('unit.deleted');
  if ((yield* step(t.liveUnits(propertyId))) <= 1) throw fail('unit.last_live');
  yield* step(t.deleteUnit(unitId, now));
  yield* step(t.refreshCounters(propertyId, now));
  yield* unitEvents(t, 'unit.deleted', ownerId, [unitId], now);
}

/** A unit operation, for the store to run in one transaction. */
export type UnitOperation<T> = (tables: UnitTables) => Steps<T>;
