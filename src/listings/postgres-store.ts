import type { SQL } from 'bun';
import { sql } from 'drizzle-orm';
import { bunClientOf, type PgTx, pgDatabase } from '@/db/pg/client';
import { insertRows } from '@/db/pg/insert-rows';
import { properties, unitFeatures, units } from '@/db/pg/schema';
import { announcedAfter, appendEvents } from '@/events/postgres-outbox';
import { runLater } from '@/kernel/steps';
import { createdEventsOf } from './events';
import { listCountersOn } from './multi-listing-units/postgres-list';
import { putNeighbourhood } from './neighbourhoods/operations';
import {
  listNeighbourhoodsOn,
  postgresNeighbourhoodTables,
} from './neighbourhoods/postgres-tables';
import { type PlannedCreates, planCreates } from './properties/bulk';
import { type CreateTables, createProperties } from './properties/create';
import {
  feedPositionOn,
  hasNul,
  listPropertiesOn,
  selectRecords,
} from './properties/postgres-list';
import { postgresReconcileTables } from './properties/postgres-reconcile';
import { postgresPropertyTables } from './properties/postgres-tables';
import { reconcileChunk } from './properties/reconcile';
import type { PropertyRecord } from './properties/representation';
import type { QuotaCreate } from './quotas';
import type { ListingsStore } from './store';
import { unitAdministration } from './units/administration';
import { postgresUnitTables } from './units/postgres-tables';

/** 25 parameters a property row: far below PostgreSQL's 65,535 a statement. */
const CHUNK = 500;

/** Creates per transaction at most, as SQLite's group commit. */
const MAX_BATCH = 64;

async function insertPlanned(tx: PgTx, planned: PlannedCreates): Promise<void> {
  // The properties first, then the units, then their features, so every foreign key resolves.
  await insertRows(tx, properties, planned.properties, CHUNK);
  await insertRows(tx, units, planned.units, CHUNK);
  await insertRows(tx, unitFeatures, planned.features, CHUNK);
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
const createTablesOf = (tx: PgTx): CreateTables => ({
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
  insert: (planned) => insertPlanned(tx, planned),
  records: (ids) => recordsIn(tx, ids),
  appendEvents: (batch) => appendEvents(tx, batch),
});

interface Pending {
  create: QuotaCreate;
  quota: number;
  resolve: (id: string) => void;
  reject: (error: unknown) => void;
}

/**
 * The listings domain on PostgreSQL (Bun's `SQL` client through drizzle's
 * `bun-sql` driver): the same results and errors as `sqliteListingsStore`,
 * every one a promise. Creates submitted in one event-loop turn share one
 * transaction with multi-row inserts (SQLite's group commit); when that
 * transaction fails, each create runs again alone, so only the creates
 * refused on their own fail. The caller owns `client` and closes it.
 */
export function postgresListingsStore(client: SQL): ListingsStore {
  const db = pgDatabase(client);
  let queue: Pending[] = [];
  let scheduled = false;

  const createAll = (inputs: readonly QuotaCreate[], quota: number) =>
    announcedAfter(db, (tx) => runLater(createProperties(createTablesOf(tx), inputs, quota)));

  async function commit(batch: Pending[]): Promise<void> {
    try {
      const ids = await createAll(
        batch.map((item) => item.create),
        batch[0]!.quota,
      );
      for (const [index, item] of batch.entries()) item.resolve(ids[index]!);
    } catch (error) {
      if (batch.length === 1) {
        batch[0]!.reject(error);
        return;
      }
      await Promise.all(batch.map((item) => commit([item])));
    }
  }

  function flush(): void {
    scheduled = false;
    const waiting = queue;
    queue = [];
    while (waiting.length > 0) {
      // One quota a transaction (the server has one); at most MAX_BATCH creates.
      const { quota } = waiting[0]!;
      let end = 1;
      while (end < waiting.length && end < MAX_BATCH && waiting[end]!.quota === quota) end++;
      void commit(waiting.splice(0, end));
    }
  }

  return {
    async propertyById(id) {
      if (hasNul(id)) return null;
      // Text, not a drizzle query: building one cost several times this hottest read's round trip.
      const [row] = await selectRecords(client, 'WHERE id = $1', [id]);
      return row ?? null;
    },
    listProperties: (filter, paging) => listPropertiesOn(db, filter, paging),
    feedPosition: () => feedPositionOn(db),
    createProperty(create, quota) {
      const { promise, resolve, reject } = Promise.withResolvers<string>();
      queue.push({ create, quota, resolve, reject });
      if (!scheduled) {
        scheduled = true;
        setImmediate(flush);
      }
      return promise;
    },
    ...unitAdministration(
      (operation) =>
        db.transaction((tx) => runLater(operation(postgresUnitTables(tx, false))), {
          isolationLevel: 'repeatable read',
          accessMode: 'read only',
        }),
      (operation) => announcedAfter(db, (tx) => runLater(operation(postgresUnitTables(tx, true)))),
    ),
    listNeighbourhoods: (cityId) => listNeighbourhoodsOn(db, cityId),
    async putNeighbourhood(id, body, now) {
      await announcedAfter(db, (tx) =>
        runLater(putNeighbourhood(postgresNeighbourhoodTables(tx), id, body, now)),
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
        await insertPlanned(tx, planned);
        const records = await recordsIn(tx, planned.ids);
        const batch = createdEventsOf(planned.created, records);
        await appendEvents(tx, batch);
      });
      return planned.ids;
    },
  };
}
