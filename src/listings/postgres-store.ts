import type { SQL } from 'bun';
import { sql } from 'drizzle-orm';
import { bunClientOf, type PgTx, pgDatabase } from '@/db/pg/client';
import { insertAllReturning, insertRows } from '@/db/pg/insert-rows';
import { properties, unitFeatures, units } from '@/db/pg/schema';
import { type CombinableLater, commitRunsApart, WriteQueue } from '@/db/write-queue';
import { announcedAfter, appendEvents } from '@/events/postgres-outbox';
import { holdsNul } from '@/kernel/nul';
import { runLater } from '@/kernel/steps';
import type { CreateTables } from '@/listings/properties/tables';
import { createdEventsOf } from './events';
import { listCountersOn } from './multi-listing-units/postgres-list';
import { putNeighbourhood } from './neighbourhoods/operations';
import {
  findNeighbourhoodOn,
  listNeighbourhoodsOn,
  postgresNeighbourhoodTables,
} from './neighbourhoods/postgres-tables';
import { type PlannedCreates, planCreates } from './properties/bulk';
import { createProperties } from './properties/create';
import {
  feedPositionOn,
  listPropertiesOn,
  RECORD_COLUMNS_TEXT,
  selectRecords,
} from './properties/postgres-list';
import { postgresReconcileTables } from './properties/postgres-reconcile';
import { postgresPropertyTables } from './properties/postgres-tables';
import { reconcileChunk } from './properties/reconcile';
import type { PropertyRecord } from './properties/representation';
import { kindPerQuota, type QuotaCreate } from './quotas';
import type { ListingsStore } from './store';
import { unitAdministration } from './units/administration';
import { postgresUnitTables } from './units/postgres-tables';

/** 25 parameters a property row: far below PostgreSQL's 65,535 a statement. */
const CHUNK = 500;

/**
 * Create transactions under way at once from this instance. Creates wait
 * on one another's locks (the owner's, the events append's) to COMMIT, so
 * more transactions only hold more pool connections idle, each with a few
 * creates: two keep one committing while the next prepares, and every
 * create arriving meanwhile joins the next batch (up to `MAX_BATCH`).
 */
const CREATE_TRANSACTIONS = 2;

/**
 * Inserts the planned rows and answers them as GET renders them: in one
 * statement returning the properties where the rows go as JSON
 * (`insertAllReturning`), else a statement per table and chunk, then a
 * read by id.
 */
async function insertPlanned(tx: PgTx, planned: PlannedCreates): Promise<PropertyRecord[]> {
  const inserted = await insertAllReturning<PropertyRecord>(
    tx,
    [
      { table: properties, rows: planned.properties },
      { table: units, rows: planned.units },
      { table: unitFeatures, rows: planned.features },
    ],
    RECORD_COLUMNS_TEXT,
  );
  if (inserted) return inserted;
  // The properties first, then the units, then their features, so every foreign key resolves.
  await insertRows(tx, properties, planned.properties, CHUNK);
  await insertRows(tx, units, planned.units, CHUNK);
  await insertRows(tx, unitFeatures, planned.features, CHUNK);
  return recordsIn(tx, planned.ids);
}

/** The rows just written, as GET renders them, read by id `CHUNK` ids a statement. */
async function recordsIn(tx: PgTx, ids: readonly string[]): Promise<PropertyRecord[]> {
  const records: PropertyRecord[] = [];
  for (let start = 0; start < ids.length; start += CHUNK) {
    const some = ids.slice(start, start + CHUNK);
    const placeholders = some.map((_, i) => `$${i + 1}`).join(', ');
    records.push(...(await selectRecords(bunClientOf(tx), `WHERE id IN (${placeholders})`, some)));
  }
  return records;
}

/** The create queries inside one PostgreSQL transaction (READ COMMITTED). */
const postgresCreateTables = (tx: PgTx): CreateTables => {
  /** What the insert returned: the records the events are made of, without reading them again. */
  let inserted: PropertyRecord[] = [];
  return {
    async lockOwner(ownerId) {
      // Held to the end of the transaction: a concurrent create for the owner
      // (on any instance) waits here, then counts this one once committed.
      await tx.execute(sql`SELECT pg_advisory_xact_lock(hashtextextended(${ownerId}, 0))`);
    },
    async ownedUpTo(ownerId, limit) {
      const [row] = await tx.execute<{ n: number }>(
        sql`SELECT count(*)::int AS n FROM (SELECT 1 FROM properties WHERE owner_id = ${ownerId} LIMIT ${limit}) AS owned`,
      );
      return Number(row?.n ?? 0);
    },
    async insert(planned) {
      inserted = await insertPlanned(tx, planned);
    },
    records: () => inserted,
    appendEvents: (batch) => appendEvents(tx, batch),
  };
};

/**
 * The listings domain on PostgreSQL (Bun's `SQL` client through drizzle's
 * `bun-sql` driver): the same results and errors as `sqliteListingsStore`,
 * every one a promise. Creates submitted in one event-loop turn share one
 * transaction with multi-row inserts (the group commit's queue,
 * src/db/write-queue.ts); when that transaction fails, each create runs
 * again alone, so only the creates refused on their own fail. The caller
 * owns `client` and closes it.
 */
export function postgresListingsStore(client: SQL): ListingsStore {
  const db = pgDatabase(client);
  const creates = new WriteQueue(commitRunsApart, { maxInFlight: CREATE_TRANSACTIONS });
  const kindFor = kindPerQuota((quota): CombinableLater<QuotaCreate, string> => {
    const createAll = (inputs: readonly QuotaCreate[]) =>
      announcedAfter(db, (tx) =>
        runLater(createProperties(postgresCreateTables(tx), inputs, quota)),
      );
    return { one: async (input) => (await createAll([input]))[0]!, many: createAll };
  });

  return {
    async propertyById(id) {
      if (holdsNul(id)) return null;
      // Text, not a drizzle query: building one cost several times this hottest read's round trip.
      const [row] = await selectRecords(client, 'WHERE id = $1', [id]);
      return row ?? null;
    },
    listProperties: (filter, paging) => listPropertiesOn(db, filter, paging),
    feedPosition: () => feedPositionOn(db),
    // One kind per quota, so consecutive creates share a transaction.
    createProperty: (create, quota) =>
      creates.submit<string>(kindFor(quota) as CombinableLater<unknown, unknown>, create),
    ...unitAdministration(
      (operation) =>
        db.transaction((tx) => runLater(operation(postgresUnitTables(tx, false))), {
          isolationLevel: 'repeatable read',
          accessMode: 'read only',
        }),
      (operation) => announcedAfter(db, (tx) => runLater(operation(postgresUnitTables(tx, true)))),
    ),
    listNeighbourhoods: (cityId) => listNeighbourhoodsOn(db, cityId),
    neighbourhood: (id) => findNeighbourhoodOn(db, id),
    async putNeighbourhood(id, body, now, ifMatch) {
      await announcedAfter(db, (tx) =>
        runLater(putNeighbourhood(postgresNeighbourhoodTables(tx), id, body, now, ifMatch)),
      );
    },
    writeProperty: (operation) =>
      announcedAfter(db, (tx) => runLater(operation(postgresPropertyTables(tx)))),
    readProperty: (operation) =>
      db.transaction((tx) => runLater(operation(postgresPropertyTables(tx, false))), {
        isolationLevel: 'repeatable read',
        accessMode: 'read only',
      }),
    listCounters: (query, scopeOwner, paging) => listCountersOn(db, query, scopeOwner, paging),
    reconcileUnitCounters: (chunk) =>
      db.transaction((tx) => runLater(reconcileChunk(postgresReconcileTables(tx), chunk))),
    async insertProperties(rows) {
      const planned = planCreates(rows, Date.now());
      await announcedAfter(db, async (tx) => {
        const records = await insertPlanned(tx, planned);
        const batch = createdEventsOf(planned.created, records);
        await appendEvents(tx, batch);
      });
      return planned.ids;
    },
  };
}
