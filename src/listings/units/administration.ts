import type { MaybePromise } from '@/kernel/maybe-promise';
import type { ListingsStore } from '@/listings/store';
import {
  addUnit,
  deleteUnit,
  getUnit,
  listUnits,
  patchUnit,
  type UnitOperation,
} from './operations';

/** The store methods of the unit operations, reads and writes each run by the store. */
export const unitAdministration = (
  read: <T>(operation: UnitOperation<T>) => MaybePromise<T>,
  write: <T>(operation: UnitOperation<T>) => MaybePromise<T>,
): Pick<ListingsStore, 'listUnits' | 'getUnit' | 'addUnit' | 'patchUnit' | 'deleteUnit'> => ({
  listUnits: (propertyId, caller, includeDeleted, paging) =>
    read((t) => listUnits(t, propertyId, caller, includeDeleted, paging)),
  getUnit: (propertyId, unitId, caller) => read((t) => getUnit(t, propertyId, unitId, caller)),
  addUnit: (propertyId, caller, input, now, unitQuota) =>
    write((t) => addUnit(t, propertyId, caller, input, now, unitQuota)),
  patchUnit: (propertyId, unitId, caller, patch, now) =>
    write((t) => patchUnit(t, propertyId, unitId, caller, patch, now)),
  deleteUnit: (propertyId, unitId, caller, now) =>
    write((t) => deleteUnit(t, propertyId, unitId, caller, now)),
});
