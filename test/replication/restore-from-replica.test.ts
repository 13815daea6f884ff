import { expect, test } from 'bun:test';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { migrateDatabase, openDatabase } from '@/db/sqlite/client';
import { runUnderLitestream } from '@/replication';
import { tempDir } from '../support/harness';
import { runScript } from '../support/script';

const marker = (path: string) => {
  const db = openDatabase(path);
  try {
    return db.$client.query<{ v: string }, []>('SELECT v FROM marker').get()?.v;
  } finally {
    db.$client.close();
  }
};

test("npm run restore -- --from-replica: the replica's state, checked, replaces the file; the copy and its files are gone", async () => {
  const dir = tempDir();
  const replicaDir = join(tempDir(), 'replica');
  const databasePath = join(dir, 'app.db');
  const replica = {
    url: `file://${replicaDir}`,
    syncInterval: '500ms',
    retention: '72h',
    metricsPort: 19_091,
    maxLagMs: 60_000,
  };
  const db = openDatabase(databasePath);
  migrateDatabase(db);
  db.$client.exec("CREATE TABLE marker (v TEXT); INSERT INTO marker VALUES ('replicated')");
  db.$client.close();
  // Litestream replicates while a stand-in for the server runs, and syncs a last time after it.
  expect(await runUnderLitestream(databasePath, replica, { command: ['sleep', '1.5'] })).toBe(0);

  const after = openDatabase(databasePath);
  after.$client.exec("UPDATE marker SET v = 'a bad write, not replicated'");
  after.$client.close();
  const env = {
    PATH: process.env.PATH ?? '',
    DATABASE_PATH: databasePath,
    REPLICA_URL: replica.url,
    LOG_LEVEL: 'silent',
  };
  const restored = await runScript('restore.ts', ['--from-replica'], env);
  expect([restored.code, restored.stderr]).toEqual([0, '']);
  expect(restored.stdout).toContain(`restored the replica ${replica.url} into ${databasePath}`);
  expect(marker(databasePath)).toBe('replicated');
  expect(marker(`${databasePath}.before-restore`)).toBe('a bad write, not replicated');
  // Nothing hidden left beside the database: no copy, no -wal/-shm of it, no stale Litestream notes.
  expect(readdirSync(dir).filter((name) => name.startsWith('.'))).toEqual([]);

  const before = await runScript(
    'restore.ts',
    ['--from-replica', '--timestamp', '2020-01-01T00:00:00Z'],
    env,
  );
  expect([before.code, before.stderr]).toEqual([
    1,
    `litestream restore from ${replica.url} failed: no matching backups found`,
  ]);
  expect(readdirSync(dir).filter((name) => name.startsWith('.'))).toEqual([]);
});

test.each([
  [[], 'restore: give a FILE or --from-replica, one of them'],
  [['x.db', '--from-replica'], 'restore: give a FILE or --from-replica, one of them'],
  [
    ['--timestamp', '2026-11-22T03:00:00Z', 'x.db'],
    'restore: --timestamp goes with --from-replica',
  ],
  [
    ['--from-replica', '--timestamp', 'yesterday'],
    'restore: --timestamp must be an RFC 3339 time such as 2026-11-22T03:00:00Z (got "yesterday")',
  ],
])('restore %p: exit 2 with one line', async (args, line) => {
  const env = { PATH: process.env.PATH ?? '', DATABASE_PATH: join(tempDir(), 'app.db') };
  const { code, stderr } = await runScript('restore.ts', args, env);
  expect([code, stderr.split('\n')[0]]).toEqual([2, line]);
});

test('restore --from-replica without REPLICA_URL: one line, exit 1', async () => {
  const env = { PATH: process.env.PATH ?? '', DATABASE_PATH: join(tempDir(), 'app.db') };
  const { code, stderr } = await runScript('restore.ts', ['--from-replica'], env);
  expect([code, stderr]).toEqual([1, '--from-replica: REPLICA_URL is not set']);
});
