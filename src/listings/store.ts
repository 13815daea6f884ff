import type { Caller } from '@/auth/tokens';
import type { MaybePromise } from '@/kernel/maybe-promise';
import type {
  MultiListingUnit,
  MultiListingUnitQuery,
} from '@/listings/multi-listing-units/schemas';
import type { Neighbourhood, NeighbourhoodBody } from '@/listings/neighbourhoods/schemas';
import type { PropertyOperation } from '@/listings/properties/operations';
import type { ReconcileChunk, ReconcileResult } from '@/listings/properties/reconcile';
import type { PropertyRecord } from '@/listings/properties/representation';
import type { Unit, UnitCreate, UnitPatch } from '@/listings/units/schemas';
import type { Paging } from './paging';
import type { BulkPropertyInput } from './properties/bulk';
import type { KeyValues, ListPaging, PropertyFilter } from './properties/list-plan';
import type { QuotaCreate } from './quotas';

/**
 * One page of a list's properties, the number matching (null: a keyset
 * page that did not ask for it), and the change feed's last event id in
 * the snapshot the page was read from; `sortKeys`: each row's key in the
 * order of a walk that keeps its first snapshot's order (walk-order.ts).
 */
export interface PropertyListing {
  total: number | null;
  rows: PropertyRecord[];
  feedPosition: number;
  sortKeys?: KeyValues[];
}

/**
 * Where the listings domain keeps its properties. Every method is one whole
 * operation in one transaction of the store, with the same results and
 * errors on every store; the rules live outside the stores (`properties/
 * list-query.ts`, `list-filters.ts` and `list-plan.ts` for the list, `properties/create.ts`
 * for the creates), so a store holds only its SQL.
 *
 * `sqliteListingsStore` answers the reads at once, so the routes and the
 * fast lane stay synchronous on SQLite; `postgresListingsStore` answers
 * with promises. Callers compose results with `whenReady`. The other
 * listings writes (additional data, multi-listing counters) still run on the SQLite database
 * (docs/postgresql.md).
 */
export interface ListingsStore {
  /** A property by id, whoever owns it (the caller checks visibility), or null. */
  propertyById(id: string): MaybePromise<PropertyRecord | null>;
  /** A page of the list in the filter's sort, `_id` breaking ties, with the filter's total. */
  /**
   * A page of the list in the filter's sort, `_id` breaking ties, with the
   * filter's total; its rows and `feedPosition` from one snapshot.
   */
  listProperties(filter: PropertyFilter, paging: ListPaging): MaybePromise<PropertyListing>;
  /**
   * The change feed's position now, as a listing's `feedPosition` is read:
   * the last event id committed (or, with none kept, the last assigned).
   */
  feedPosition(): MaybePromise<number>;
  /**
   * POST /properties: creates one property checked against `quota`
   * (`createProperties`), committed with the creates submitted alongside it
   * (one transaction, one multi-row statement per table); answers its id
   * once committed. A create refused on its own fails alone.
   */
  createProperty(create: QuotaCreate, quota: number): Promise<string>;
  /** GET /properties/{id}/units: a page in id order (404 for a property the caller may not see). */
  listUnits(
    propertyId: string,
    caller: Caller | null,
    includeDeleted: boolean,
    paging: Paging,
  ): MaybePromise<{ total: number; units: Unit[] }>;
  getUnit(propertyId: string, unitId: string, caller: Caller | null): MaybePromise<Unit>;
  /** Answers the new unit's id; the property's counters follow in the same transaction. */
  addUnit(
    propertyId: string,
    caller: Caller | null,
    input: UnitCreate,
    now: number,
    unitQuota?: number,
  ): MaybePromise<string>;
  patchUnit(
    propertyId: string,
    unitId: string,
    caller: Caller | null,
    patch: UnitPatch,
    now: number,
  ): MaybePromise<void>;
  deleteUnit(
    propertyId: string,
    unitId: string,
    caller: Caller | null,
    now: number,
  ): MaybePromise<void>;
  /**
   * A property write in one transaction (`properties/operations.ts`: archive,
   * convert, move, owner…; additional data; multi-listing counters).
   */
  writeProperty<T>(operation: PropertyOperation<T>): MaybePromise<T>;
  /** A read of one property's data (additional data, its counter) in one snapshot. */
  readProperty<T>(operation: PropertyOperation<T>): MaybePromise<T>;
  /** GET /multi-listing-units: counters in property id order, the total in the same snapshot. */
  listCounters(
    query: MultiListingUnitQuery,
    scopeOwner: string | null,
    paging: Paging,
  ): MaybePromise<{ total: number; rows: MultiListingUnit[] }>;
  /** GET /neighbourhoods[?cityId=]: the catalogue, by city then name. */
  listNeighbourhoods(cityId: string | undefined): MaybePromise<Neighbourhood[]>;
  /** GET /neighbourhoods/{id}: one entry, undefined when there is none. */
  neighbourhood(id: string): MaybePromise<Neighbourhood | undefined>;
  /** PUT /neighbourhoods/{id} (`neighbourhoods/operations.ts`). */
  /** `ifMatch`: the entry's ETag (or *), else 412 and nothing written. */
  putNeighbourhood(
    id: string,
    body: NeighbourhoodBody,
    now: number,
    ifMatch?: string,
  ): MaybePromise<void>;
  /** One chunk of the unit-counter reconcile, in one transaction (`properties/reconcile.ts`). */
  reconcileUnitCounters(chunk: ReconcileChunk): MaybePromise<ReconcileResult>;
  /** Seeds and imports: all or nothing, no quota, each with its event; answers the ids. */
  insertProperties(rows: readonly BulkPropertyInput[]): MaybePromise<string[]>;
}
