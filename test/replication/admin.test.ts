import { describe, expect, test } from 'bun:test';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ReplicationOverview } from '@/api/admin/schemas';
import { runUnderLitestream } from '@/replication';
import { expectAnonymousRefused, expectCustomerRefused } from '../support/auth-guards';
import { createTestApp, manualClock, tempDir } from '../support/harness';
import { sqliteOnly } from '../support/postgres-mode';

const REPLICATION = 'REPLICA_URL replicates the SQLite file only';

async function employee(env: Record<string, string> = {}) {
  const ctx = createTestApp({ env, clock: manualClock(Date.UTC(2026, 10, 29, 15, 0, 0)) });
  return { ...ctx, token: await ctx.tokenFor('ops', 'employee') };
}

sqliteOnly.describe(REPLICATION, 'happy', () => {
  test('GET /admin/replication without REPLICA_URL → 200, off, with where the docs say how', async () => {
    const ctx = await employee();
    const res = await ctx.request('GET', '/admin/replication', { token: ctx.token });
    expect(res.status).toBe(200);
    expect(ReplicationOverview.parse(res.body)).toEqual({
      enabled: false,
      docs: 'docs/operations.md, Replication with Litestream',
    });
  });

  test('GET /admin/replication with a file:// replica → its generation and snapshot as Litestream lists them, and the restore command', async () => {
    const replicaDir = join(tempDir(), 'replica');
    const ctx = await employee({ REPLICA_URL: `file://${replicaDir}` });
    // Litestream replicates the app's file while a stand-in for the server runs.
    const code = await runUnderLitestream(ctx.config.databasePath, ctx.config.replica!, {
      command: ['sleep', '0.5'],
    });
    expect(code).toBe(0);

    const res = await ctx.request('GET', '/admin/replication', { token: ctx.token });
    expect(res.status).toBe(200);
    const overview = ReplicationOverview.parse(res.body);
    expect(overview).toEqual({
      enabled: true,
      replica: `file://${replicaDir}`,
      // This app does not run under Litestream: no figures are read.
      status: null,
      history: {
        listed: true,
        listedAt: new Date(ctx.clock()).toISOString(),
        generations: [
          {
            id: expect.stringMatching(/^[0-9a-f]{16}$/),
            start: expect.any(String),
            end: expect.any(String),
            snapshots: [{ index: 0, size: expect.any(Number), createdAt: expect.any(String) }],
          },
        ],
      },
      restoreCommand: 'npm run restore -- --from-replica --timestamp <T>',
    });
  });

  test("under Litestream's watch: the status as /health shows it", async () => {
    const db = JSON.stringify(join(tempDir(), 'app.db'));
    const replicaUrl = `file://${join(tempDir(), 'replica')}`;
    const metrics = Bun.serve({
      port: 0,
      hostname: '127.0.0.1',
      // Litestream 0.3.13's figures: 120 WAL bytes copied aside, 100 shipped.
      fetch: () =>
        new Response(
          [
            `litestream_replica_wal_index{db=${db},name="file"} 0`,
            `litestream_replica_wal_offset{db=${db},name="file"} 100`,
            `litestream_shadow_wal_index{db=${db}} 0`,
            `litestream_shadow_wal_size{db=${db}} 120`,
            `litestream_total_wal_bytes{db=${db}} 120`,
            `litestream_sync_error_count{db=${db}} 0`,
            '',
          ].join('\n'),
        ),
    });
    try {
      const ctx = createTestApp({
        clock: manualClock(Date.UTC(2026, 10, 29, 15, 0, 0)),
        env: { DATABASE_PATH: JSON.parse(db), REPLICA_URL: replicaUrl },
        replicationMetricsUrl: `http://127.0.0.1:${metrics.port}/metrics`,
      });
      await ctx.deps.replication!.poll();
      const res = await ctx.request('GET', '/admin/replication', {
        token: await ctx.tokenFor('ops', 'employee'),
      });
      const overview = ReplicationOverview.parse(res.body);
      expect(overview.enabled && overview.status).toEqual({
        replica: replicaUrl,
        state: 'ok',
        lastSyncAt: null,
        lastSyncAgeSeconds: 0,
        // No Litestream folder beside the database: nothing to count the lag on yet.
        lagBytes: null,
        lagSeconds: null,
        syncErrors: 0,
        lastError: null,
      });
    } finally {
      metrics.stop(true);
    }
  });

  test('the restore command follows LISTINGS_COMMAND_PREFIX (the image: bun run)', async () => {
    const replicaDir = join(tempDir(), 'replica');
    const ctx = await employee({
      REPLICA_URL: `file://${replicaDir}`,
      LISTINGS_COMMAND_PREFIX: 'bun run',
    });
    const res = await ctx.request<{ restoreCommand: string }>('GET', '/admin/replication', {
      token: ctx.token,
    });
    expect(res.body.restoreCommand).toBe('bun run restore -- --from-replica --timestamp <T>');
  });
});

sqliteOnly.describe(REPLICATION, 'error', () => {
  test('a replica Litestream cannot read → 200 with the listing failed and why', async () => {
    const replicaDir = join(tempDir(), 'replica');
    mkdirSync(replicaDir);
    writeFileSync(join(replicaDir, 'generations'), 'not a folder');
    const ctx = await employee({ REPLICA_URL: `file://${replicaDir}` });
    const res = await ctx.request('GET', '/admin/replication', { token: ctx.token });
    expect(res.status).toBe(200);
    const overview = ReplicationOverview.parse(res.body);
    expect(overview.enabled && overview.history).toEqual({
      listed: false,
      listedAt: new Date(ctx.clock()).toISOString(),
      problem: expect.stringMatching(/^Litestream could not list the replica: .*not a directory/),
    });
  });
});

describe('auth', () => {
  test('GET /admin/replication without a token → 401 problem', async () => {
    await expectAnonymousRefused(createTestApp(), ['GET /admin/replication']);
  });

  test('GET /admin/replication as a customer → 403 problem', async () => {
    await expectCustomerRefused(createTestApp(), ['GET /admin/replication']);
  });
});
