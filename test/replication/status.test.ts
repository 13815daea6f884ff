import { afterAll, expect } from 'bun:test';
import { resolve } from 'node:path';
import { readingOf } from '@/replication';
import { createTestApp, manualClock } from '../support/harness';
import { sqliteOnly } from '../support/postgres-mode';

const REPLICATION = 'REPLICA_URL replicates the SQLite file only';

/** Litestream's figures as version 0.3.13 serves them, for one database and one file replica. */
function litestreamText(
  db: string,
  figures: { replicaOffset: number; shadowSize: number; syncErrors?: number; index?: number },
) {
  const { replicaOffset, shadowSize, syncErrors = 0, index = 0 } = figures;
  const on = `db=${JSON.stringify(db)}`;
  return [
    '# TYPE litestream_db_size gauge',
    `litestream_db_size{${on}} 16384`,
    '# TYPE litestream_replica_wal_index gauge',
    `litestream_replica_wal_index{${on},name="file"} ${index}`,
    '# TYPE litestream_replica_wal_offset gauge',
    `litestream_replica_wal_offset{${on},name="file"} ${replicaOffset}`,
    '# TYPE litestream_shadow_wal_index gauge',
    `litestream_shadow_wal_index{${on}} ${index}`,
    '# TYPE litestream_shadow_wal_size gauge',
    `litestream_shadow_wal_size{${on}} ${shadowSize}`,
    '# TYPE litestream_sync_count counter',
    `litestream_sync_count{${on}} 40`,
    '# TYPE litestream_sync_error_count counter',
    `litestream_sync_error_count{${on}} ${syncErrors}`,
    '',
  ].join('\n');
}

/** A stand-in for Litestream's metrics endpoint: real HTTP, the text the test sets (or a 500). */
let served: string | undefined;
const litestream = Bun.serve({
  port: 0,
  hostname: '127.0.0.1',
  fetch: () =>
    served === undefined ? new Response('down', { status: 500 }) : new Response(served),
});
afterAll(() => litestream.stop(true));

function replicatedApp() {
  const clock = manualClock();
  const ctx = createTestApp({
    clock,
    env: { REPLICA_URL: 'file:///mnt/replica/listings', REPLICA_MAX_LAG: '60s' },
    replicationMetricsUrl: `http://127.0.0.1:${litestream.port}/metrics`,
  });
  const db = resolve(ctx.config.databasePath);
  const admin = ctx.tokenFor('employee-1', 'employee');
  const health = async () => (await ctx.request<Record<string, unknown>>('GET', '/health')).body;
  const events = async () =>
    (await ctx.deps.stores.audit.searchAudit({})).events
      .filter(({ action }) => action.startsWith('replication.'))
      .map(({ action, target }) => ({ action, target }));
  const metric = async (name: string) => {
    const text = (await ctx.request('GET', '/metrics', { token: await admin })).text;
    return new RegExp(`^${name} (\\S+)$`, 'm').exec(text)?.[1];
  };
  return { ctx, clock, db, health, events, metric, poll: () => ctx.deps.replication!.poll() };
}

sqliteOnly.test(
  REPLICATION,
  'figures of another database on the port are not read as this one',
  () => {
    const text = litestreamText('/data/app.db', { replicaOffset: 10, shadowSize: 30 });
    expect(readingOf(text, '/data/app.db')).toEqual({
      ...{ replicaIndex: 0, replicaOffset: 10, shadowIndex: 0, shadowSize: 30, syncErrors: 0 },
    });
    expect(readingOf(text, '/other/app.db')).toBeUndefined();
  },
);

sqliteOnly.test(
  REPLICATION,
  'the last sync follows the shipped position; no sync for REPLICA_MAX_LAG with writes waiting turns /health degraded, with one audit event each way',
  async () => {
    const { ctx, clock, db, health, events, metric, poll } = replicatedApp();
    // Caught up at the first reading: synced now.
    served = litestreamText(db, { replicaOffset: 4096, shadowSize: 4096 });
    await poll();
    const start = clock();
    expect(await health()).toMatchObject({
      status: 'ok',
      replication: {
        replica: 'file:///mnt/replica/listings',
        state: 'ok',
        lastSyncAt: new Date(start).toISOString(),
        lastSyncAgeSeconds: 0,
        lagBytes: 0,
        syncErrors: 0,
        lastError: null,
      },
    });

    // Writes wait, the replica advances: the last sync moves on.
    clock.advance(5000);
    served = litestreamText(db, { replicaOffset: 8192, shadowSize: 12_288 });
    await poll();
    expect(await health()).toMatchObject({
      status: 'ok',
      replication: { lastSyncAt: new Date(start + 5000).toISOString(), lagBytes: 4096 },
    });

    // The replica stops advancing while writes wait: ok until the maximum lag, then degraded.
    served = litestreamText(db, { replicaOffset: 8192, shadowSize: 20_480, syncErrors: 2 });
    clock.advance(59_000);
    await poll();
    expect(await health()).toMatchObject({ status: 'ok', replication: { state: 'ok' } });
    clock.advance(1000);
    await poll();
    clock.advance(5000);
    await poll();
    const degraded = await health();
    expect(degraded).toMatchObject({
      status: 'degraded',
      database: 'ok',
      replication: {
        state: 'degraded',
        lastSyncAt: new Date(start + 5000).toISOString(),
        lastSyncAgeSeconds: 65,
        lagBytes: 12_288,
        syncErrors: 2,
      },
    });
    expect(String((degraded.replication as { lastError: unknown }).lastError)).toContain(
      'failed 2 sync(s)',
    );
    // Degraded is still 200: the instance serves.
    expect((await ctx.request('GET', '/health')).status).toBe(200);
    expect(await metric('listings_replication_last_sync_age_seconds')).toBe('65');
    expect(await metric('listings_replication_lag_bytes')).toBe('12288');
    expect(await metric('listings_replication_sync_errors_total')).toBe('2');
    // Polls while degraded add no event.
    expect(await events()).toEqual([
      { action: 'replication.degraded', target: 'file:///mnt/replica/listings' },
    ]);

    // The replica catches up: ok again, one more event.
    clock.advance(5000);
    served = litestreamText(db, { replicaOffset: 20_480, shadowSize: 20_480, syncErrors: 2 });
    await poll();
    await poll();
    expect(await health()).toMatchObject({
      status: 'ok',
      replication: { state: 'ok', lagBytes: 0, lastSyncAgeSeconds: 0 },
    });
    expect((await events()).map(({ action }) => action).sort()).toEqual([
      'replication.degraded',
      'replication.recovered',
    ]);
  },
);

sqliteOnly.test(
  REPLICATION,
  'no writes waiting: a quiet replica stays ok however long it has not shipped',
  async () => {
    const { clock, db, health, events, poll } = replicatedApp();
    served = litestreamText(db, { replicaOffset: 4096, shadowSize: 4096 });
    await poll();
    clock.advance(10 * 60_000);
    await poll();
    expect(await health()).toMatchObject({ status: 'ok', replication: { state: 'ok' } });
    expect(await events()).toEqual([]);
  },
);

sqliteOnly.test(
  REPLICATION,
  "Litestream's figures unreadable for REPLICA_MAX_LAG: degraded, with the reason",
  async () => {
    const { clock, health, events, metric, poll } = replicatedApp();
    served = undefined;
    await poll();
    expect(await health()).toMatchObject({
      status: 'ok',
      replication: { lastSyncAt: null, lagBytes: null },
    });
    // Before any figure the lag is unknown: no sample, the family stays.
    expect(await metric('listings_replication_lag_bytes')).toBeUndefined();
    clock.advance(60_000);
    await poll();
    const body = await health();
    expect(body).toMatchObject({ status: 'degraded', replication: { state: 'degraded' } });
    expect(String((body.replication as { lastError: unknown }).lastError)).toContain(
      "Litestream's metrics answered 500",
    );
    expect((await events()).map(({ action }) => action)).toEqual(['replication.degraded']);
  },
);

sqliteOnly.test(REPLICATION, 'without Litestream, /health has no replication', async () => {
  const ctx = createTestApp({ env: { REPLICA_URL: 'file:///mnt/replica/listings' } });
  const body = (await ctx.request<Record<string, unknown>>('GET', '/health')).body;
  expect(body.status).toBe('ok');
  expect(body).not.toHaveProperty('replication');
});
