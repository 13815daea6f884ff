import type { AuditContext, AuditEntry } from '@/audit/record';
import type { PropertyRow } from '@/db/sqlite/schema';
import type { NewEvent } from '@/events/store';
import type { MaybePromise } from '@/kernel/maybe-promise';
import type { PlannedCreates } from '@/listings/properties/bulk';
import type { PropertyRecord } from '@/listings/properties/representation';
import type { UnitTables } from '@/listings/units/tables';

/** The queries of the property writes, inside one transaction of a store. */
export interface PropertyTables extends UnitTables {
  updateProperty(id: string, changes: PropertyChanges): MaybePromise<void>;
  /** Unpublishes the property's published units; answers their ids. */
  unpublishUnits(propertyId: string, now: number): MaybePromise<string[]>;
  /** The city of a neighbourhood, or null when there is none with that id. */
  neighbourhoodCity(id: string): MaybePromise<string | null>;
  recordAudit(context: AuditContext, entry: AuditEntry): MaybePromise<void>;
  /** The property's additional data (JSON text), or null. */
  storedData(id: string): MaybePromise<string | null>;
  /** Creates or replaces the property's additional data. */
  saveData(id: string, json: string, now: number): MaybePromise<void>;
  /** The multi-listing counter and owner of a property, or null. */
  counter(id: string): MaybePromise<{ unitsCounter: number; ownerId: string } | null>;
  /** Sets the counter; false when there is no such property. */
  setCounter(id: string, counter: number, now: number): MaybePromise<boolean>;
}

/** Columns a property write changes: any but its identity and creation. */
export type PropertyChanges = Partial<Omit<PropertyRow, 'seq' | 'id' | 'createdAt'>>;

/** The queries of a property create, inside one transaction of a store. */
export interface CreateTables {
  /**
   * Holds back other creates for `ownerId` until this transaction ends, so
   * the quota count below sees every create before it (SQLite: nothing to
   * do, its single writer already excludes them).
   */
  lockOwner(ownerId: string): MaybePromise<void>;
  /** The owner's properties, counted up to `limit` (the scan stops there). */
  ownedUpTo(ownerId: string, limit: number): MaybePromise<number>;
  insert(planned: PlannedCreates): MaybePromise<void>;
  /** The rows just inserted, as GET renders them. */
  records(ids: readonly string[]): MaybePromise<PropertyRecord[]>;
  appendEvents(batch: readonly { event: NewEvent; now: number }[]): MaybePromise<void>;
}

/** What a store answers for one page of a walk whose order is frozen: its SQL. */
export interface WalkTables<Page> {
  /** The changes in the walk's scope after `from`, counted up to `MOST_CHANGES_IN_A_WALK + 1`. */
  changesSince(from: number, owner: string | null): MaybePromise<number>;
  /** The page itself. */
  page(): MaybePromise<Page>;
  /** The highest event id pruning may have removed (the feed's `prunedThrough`). */
  prunedThrough(): MaybePromise<number>;
}

/** The queries of one reconcile chunk, inside one transaction of a store. */
export interface ReconcileTables {
  /**
   * The chunk's properties after `afterId` in id order, with their live
   * units counted; held until the transaction ends so no unit write lands
   * between the count and the repair (SQLite: the single writer).
   */
  tallies(afterId: string, limit: number): MaybePromise<Tally[]>;
  repair(id: string, repair: Repair, now: number): MaybePromise<void>;
}

/** A property's stored counters beside the ones its live units give. */
export interface Tally {
  id: string;
  total_units: number;
  rentable_units: number;
  published_units: number;
  published: number;
  archived: number;
  live: number;
  rentable: number;
  live_published: number;
}

/** Counters rewritten from the units. */
export interface Repair {
  totalUnits: number;
  rentableUnits: number;
  publishedUnits: number;
  published: boolean;
}
