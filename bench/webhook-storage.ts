/**
 * `bun run bench:webhook-storage`: what one change costs in storage with 0
 * and with 20 webhook endpoints of its owner (docs/events-and-webhooks.md,
 * Storage). On a fresh SQLite file, a customer's property gets `--changes`
 * PUTs of 64 KiB additional data through the API; the fan-out then queues a
 * delivery of each to every endpoint. The bytes are SQLite's own count
 * (`dbstat`): the payload of the rows of `events` and `webhook_deliveries`
 * and of their indexes, before and after, divided by the changes.
 * test/webhooks/storage.test.ts asserts the per-delivery figure.
 *
 *   bun run bench:webhook-storage [-- --changes 10]
 */
import { parseArgs } from 'node:util';
import { createTestApp, manualClock } from '../test/support/harness';

/** The tables a change and its deliveries are stored in, and their indexes. */
const TABLES = ['events', 'webhook_deliveries'];

export interface StoragePerChange {
  endpoints: number;
  changes: number;
  /** Bytes of `events` rows and index entries, per change. */
  eventBytes: number;
  /** Bytes of `webhook_deliveries` rows and index entries, per change. */
  deliveryBytes: number;
  /** `deliveryBytes` per delivery (0 without endpoints). */
  perDelivery: number;
  /** Of `perDelivery`, the row alone (without its index entries). */
  perDeliveryRow: number;
}

/** Payload bytes by table (its rows) and by index of `table`, from SQLite's `dbstat`. */
function payloadOf(db: ReturnType<typeof createTestApp>['db']) {
  const rows = db.$client
    .query(
      `SELECT s.name, m.tbl_name AS tableName, m.type, sum(s.payload) AS bytes
       FROM dbstat s JOIN sqlite_master m ON m.name = s.name GROUP BY s.name`,
    )
    .all() as { name: string; tableName: string; type: string; bytes: number }[];
  const sum = (table: string, rowsOnly: boolean) =>
    rows
      .filter((row) => row.tableName === table && (!rowsOnly || row.type === 'table'))
      .reduce((total, row) => total + row.bytes, 0);
  return Object.fromEntries(
    TABLES.map((table) => [table, { all: sum(table, false), rows: sum(table, true) }]),
  ) as Record<string, { all: number; rows: number }>;
}

/** A JSON object of exactly 64 KiB, different for each `seed`. */
function additionalData(seed: number): Record<string, string> {
  const skeleton = JSON.stringify({ seed: String(seed), fill: '' });
  return { seed: String(seed), fill: 'x'.repeat(64 * 1024 - skeleton.length) };
}

export async function measureStoragePerChange(
  endpoints: number,
  changes = 10,
): Promise<StoragePerChange> {
  const clock = manualClock(Date.UTC(2026, 3, 1));
  const app = createTestApp({
    clock,
    env: { WEBHOOKS_ALLOW_HTTP: 'true', WEBHOOKS_ALLOW_PRIVATE: 'true' },
  });
  try {
    const owner = await app.tokenFor('owner-1');
    const created = await app.request('POST', '/listings/properties', {
      token: owner,
      body: {
        type: 'apartment',
        ownerId: 'owner-1',
        location: {
          addressLine1: 'Calle Mayor 5',
          city: 'Madrid',
          cityId: 'madrid',
          postalCode: '28013',
          latitude: 40.4168,
          longitude: -3.7038,
        },
      },
    });
    if (created.status !== 201) throw new Error(`property: ${created.status} ${created.text}`);
    const id = created.headers.get('location')!.split('/').pop()!;
    for (let i = 0; i < endpoints; i++) {
      const made = await app.request('POST', '/listings/webhooks', {
        token: owner,
        body: { url: `http://127.0.0.1:9/hook-${i}` },
      });
      if (made.status !== 201) throw new Error(`endpoint: ${made.status} ${made.text}`);
    }
    const quotas = app.config.webhookQuotas;
    const before = payloadOf(app.db);
    for (let i = 0; i < changes; i++) {
      const put = await app.request('PUT', `/listings/properties/${id}/additional-data`, {
        token: owner,
        body: { data: additionalData(i) },
      });
      if (put.status !== 200 && put.status !== 201) throw new Error(`PUT: ${put.status}`);
    }
    const queued = await app.deps.stores.webhooks.fanOut(clock(), quotas);
    if (queued !== endpoints * changes) throw new Error(`queued ${queued} deliveries`);
    const after = payloadOf(app.db);
    const grown = (table: string, key: 'all' | 'rows') => after[table]![key] - before[table]![key];
    const deliveries = endpoints * changes;
    return {
      endpoints,
      changes,
      eventBytes: Math.round(grown('events', 'all') / changes),
      deliveryBytes: Math.round(grown('webhook_deliveries', 'all') / changes),
      perDelivery: deliveries && Math.round(grown('webhook_deliveries', 'all') / deliveries),
      perDeliveryRow: deliveries && Math.round(grown('webhook_deliveries', 'rows') / deliveries),
    };
  } finally {
    await app.closeDatabase();
  }
}

if (import.meta.main) {
  const { values } = parseArgs({
    args: Bun.argv.slice(2).filter((arg) => arg !== '--'),
    options: { changes: { type: 'string', default: '10' } },
  });
  const kib = (bytes: number) => `${(bytes / 1024).toFixed(1)} KiB`;
  for (const endpoints of [0, 20]) {
    const figure = await measureStoragePerChange(endpoints, Number(values.changes));
    console.log(
      `${endpoints} endpoints: ${kib(figure.eventBytes + figure.deliveryBytes)} stored per 64 KiB change ` +
        `(events ${kib(figure.eventBytes)}, deliveries ${figure.deliveryBytes} B: ` +
        `${figure.perDelivery} B a delivery, ${figure.perDeliveryRow} B of it the row)`,
    );
  }
}
