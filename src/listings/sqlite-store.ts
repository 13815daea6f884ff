import type { ReadCache } from '@/db/read-cache';
import type { Db } from '@/db/sqlite/client';
import { type Combinable, groupCommitOf } from '@/db/sqlite/group-commit';
import { appendEvents } from '@/events/sqlite-outbox';
import { runNow } from '@/kernel/steps';
import type { CreateTables } from '@/listings/properties/tables';
import { listCounters } from './multi-listing-units/sqlite-list';
import {
  findNeighbourhood,
  listNeighbourhoods,
  putNeighbourhoodOnSqlite,
} from './neighbourhoods/sqlite-tables';
import { createProperties } from './properties/create';
import type { PropertyRecord } from './properties/representation';
import { insertPlanned, insertPropertiesBulk } from './properties/sqlite-bulk';
import { feedPositionOf, listProperties } from './properties/sqlite-list-page';
import { reconcileUnitCounters } from './properties/sqlite-reconcile';
import { PROPERTY_BY_ID, PROPERTY_COLUMNS } from './properties/sqlite-record';
import { sqlitePropertyTables } from './properties/sqlite-tables';
import { kindPerQuota, type QuotaCreate } from './quotas';
import { countUpTo, many, one, writeTransaction } from './sqlite-statements';
import type { ListingsStore } from './store';
import { unitAdministration } from './units/administration';

/** The create queries on the connection, inside the group commit's transaction. */
const sqliteCreateTables = (db: Db): CreateTables => ({
  // SQLite admits one writer at a time: the transaction already excludes other creates.
  lockOwner: () => {},
  ownedUpTo: (ownerId, limit) =>
    countUpTo(db, 'SELECT 1 FROM properties WHERE owner_id = ?', ownerId, limit),
  insert: (planned) => insertPlanned(db, planned),
  records: (ids) =>
    many<PropertyRecord>(
      db,
      `SELECT ${PROPERTY_COLUMNS} FROM properties p WHERE p.id IN (SELECT value FROM json_each(?))`,
      JSON.stringify(ids),
    ),
  appendEvents: (batch) => appendEvents(db, batch),
});

/**
 * Property creates checked against `quota`, as a group-commit kind: combined,
 * the batch is checked owner by owner; if any owner would go past its quota
 * the combined write throws and the group commit runs the creates one by
 * one, each seeing the ones before it in the same transaction, so exactly
 * the creates past the quota fail.
 */
export function quotaCheckedCreates(db: Db, quota: number): Combinable<QuotaCreate, string> {
  const tables = sqliteCreateTables(db);
  const run = (inputs: readonly QuotaCreate[]) => runNow(createProperties(tables, inputs, quota));
  return { one: (input) => run([input])[0]!, many: run };
}

/**
 * The listings domain on `bun:sqlite`: the reads answer at once (and may be
 * remembered in `cache`, which hears of every write through the change-log
 * triggers); creates share one write transaction per event-loop turn (the
 * group commit), the 201 going out only after its COMMIT.
 */
export function sqliteListingsStore(db: Db, cache: ReadCache) {
  const creates = groupCommitOf(db);
  const kindFor = kindPerQuota((quota) => quotaCheckedCreates(db, quota));
  const tables = sqlitePropertyTables(db);
  return {
    propertyById: (id: string) => one<PropertyRecord>(db, PROPERTY_BY_ID, id),
    listProperties: (...args: Parameters<ListingsStore['listProperties']>) =>
      listProperties(db, cache, ...args),
    feedPosition: () => feedPositionOf(db),
    // One kind per quota, so consecutive creates are combined by the group commit.
    createProperty: (create, quota) => creates.submit(kindFor(quota), create),
    insertProperties: (rows) => insertPropertiesBulk(db, rows).ids,
    ...unitAdministration(
      // Reads as before: their statements outside a transaction.
      (operation) => runNow(operation(tables)),
      (operation) => writeTransaction(db, () => runNow(operation(tables))),
    ),
    listNeighbourhoods: (cityId) => listNeighbourhoods(db, cityId),
    neighbourhood: (id) => findNeighbourhood(db, id),
    putNeighbourhood: (id, body, now, ifMatch) =>
      putNeighbourhoodOnSqlite(db, id, body, now, ifMatch),
    writeProperty: (operation) => writeTransaction(db, () => runNow(operation(tables))),
    // Reads as before: their statements outside a transaction.
    readProperty: (operation) => runNow(operation(tables)),
    listCounters: (query, scopeOwner, paging) => listCounters(db, query, scopeOwner, paging),
    reconcileUnitCounters: (chunk) => reconcileUnitCounters(db, chunk),
  } satisfies ListingsStore;
}
