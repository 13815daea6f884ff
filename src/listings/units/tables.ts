import type { NewEvent } from '@/events/store';
import type { MaybePromise } from '@/kernel/maybe-promise';
import type { Paging } from '@/listings/paging';
import type { PropertyRecord } from '@/listings/properties/representation';
import type { UnitRecord } from '@/listings/units/representation';
import type { Unit, UnitFeature } from '@/listings/units/schemas';

/** The queries of the unit operations, inside one transaction of a store. */
export interface UnitTables {
  /**
   * The property, read for a write: held until the transaction ends so two
   * unit writes of one property run one after the other (SQLite: its
   * single writer already does).
   */
  property(id: string): MaybePromise<PropertyRecord | null>;
  unit(propertyId: string, unitId: string): MaybePromise<UnitRecord | null>;
  /** Units not deleted, counted from the rows (not the stored counters). */
  liveUnits(propertyId: string): MaybePromise<number>;
  /** Unit rows, deleted ones included, counted up to `limit`. */
  unitRowsUpTo(propertyId: string, limit: number): MaybePromise<number>;
  pageOfUnits(
    propertyId: string,
    includeDeleted: boolean,
    paging: Paging,
  ): MaybePromise<{ total: number; rows: UnitRecord[] }>;
  insertUnit(id: string, propertyId: string, rentable: boolean, now: number): MaybePromise<void>;
  updateUnit(id: string, rentable: boolean, published: boolean, now: number): MaybePromise<void>;
  deleteUnit(id: string, now: number): MaybePromise<void>;
  /** Replaces the unit's features, in order. */
  writeFeatures(unitId: string, propertyId: string, features: UnitFeature[]): MaybePromise<void>;
  /**
   * Rewrites the property's unit counters and `published` from its units
   * (counters count the non-deleted units; published = not archived and
   * at least one published unit).
   */
  refreshCounters(propertyId: string, now: number): MaybePromise<void>;
  /** Units by id as GET answers them, in id order. */
  units(ids: readonly string[]): MaybePromise<Unit[]>;
  appendEvents(batch: readonly { event: NewEvent; now: number }[]): MaybePromise<void>;
}
