import { describe, expect, test } from 'bun:test';
import { mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { JobRunResult } from '@/api/admin/schemas';
import { ConfigError, parseConfig } from '@/config';
import { createTestApp, manualClock, problemOf, tempDir } from '../support/harness';
import { BACKUPS_COPY_THE_FILE, sqliteOnly } from '../support/postgres-mode';

const AT = Date.UTC(2026, 10, 22, 3, 0, 0, 123);
const DAY_MS = 86_400_000;
const nameAt = (at: number) => `backup-${new Date(at).toISOString().replace(/[-:.]/g, '')}.db.gz`;
const backupNames = (dir: string) =>
  readdirSync(dir)
    .filter((name) => name.startsWith('backup-'))
    .sort();

describe('BACKUP_TO_REPLICA settings', () => {
  const file = () => join(tempDir(), 'app.db');

  test('off by default; with a file:// REPLICA_URL, the backups/ folder inside the replica', () => {
    expect(
      parseConfig({ DATABASE_PATH: file(), REPLICA_URL: 'file:///mnt/replica/listings' }).backups
        .replicaDir,
    ).toBeUndefined();
    expect(
      parseConfig({
        DATABASE_PATH: file(),
        REPLICA_URL: 'file:///mnt/replica/listings',
        BACKUP_TO_REPLICA: 'true',
      }).backups.replicaDir,
    ).toBe('/mnt/replica/listings/backups');
  });

  test.each([
    [{}, 'BACKUP_TO_REPLICA: needs REPLICA_URL (a file:// replica)'],
    [
      { REPLICA_URL: 's3://bucket/listings' },
      'BACKUP_TO_REPLICA: only a file:// REPLICA_URL is supported (got s3://); copy the backups off the host yourself (docs/operations.md, Backups)',
    ],
    [
      { REPLICA_URL: 'sftp://backup@nas/srv/listings', REPLICA_SFTP_KEY_PATH: import.meta.path },
      'BACKUP_TO_REPLICA: only a file:// REPLICA_URL is supported (got sftp://); copy the backups off the host yourself (docs/operations.md, Backups)',
    ],
  ])('refused at start: %j', (env, message) => {
    const start = () => parseConfig({ DATABASE_PATH: file(), BACKUP_TO_REPLICA: 'true', ...env });
    expect(start).toThrow(ConfigError);
    expect(start).toThrow(message);
  });

  test('refused: a value that is not a switch', () => {
    expect(() => parseConfig({ DATABASE_PATH: file(), BACKUP_TO_REPLICA: 'maybe' })).toThrow(
      'BACKUP_TO_REPLICA:',
    );
  });
});

async function replicatedApp(replicaDir: string, keep: string) {
  const clock = manualClock(AT);
  const ctx = createTestApp({
    clock,
    env: { REPLICA_URL: `file://${replicaDir}`, BACKUP_TO_REPLICA: 'true', BACKUP_KEEP: keep },
  });
  // Valid across the days the clock moves on.
  const token = await ctx.tokenFor('ops', 'employee', (10 * DAY_MS) / 1000);
  const backupNow = () => ctx.request('POST', '/admin/backups', { token });
  return { ctx, clock, backupNow };
}

sqliteOnly.describe(BACKUPS_COPY_THE_FILE, 'a backup copied into the replica', () => {
  test("each run's file is copied into <replica>/backups/ byte for byte (0600), and BACKUP_KEEP applies there too; Litestream's generations/ and other files are left alone", async () => {
    const replicaDir = join(tempDir(), 'replica');
    // What Litestream keeps there, and a file of the operator's.
    mkdirSync(join(replicaDir, 'generations', '1f4a5453c529dda8'), { recursive: true });
    writeFileSync(join(replicaDir, 'generations', '1f4a5453c529dda8', 'x'), 'litestream');
    mkdirSync(join(replicaDir, 'backups'));
    writeFileSync(join(replicaDir, 'backups', 'notes.txt'), 'keep me');
    const { ctx, clock, backupNow } = await replicatedApp(replicaDir, '2');
    const copies = join(replicaDir, 'backups');

    const first = await backupNow();
    expect(first.status).toBe(201);
    expect(JobRunResult.parse(first.body).details).toEqual({
      name: nameAt(AT),
      size: expect.any(Number),
      databaseSize: expect.any(Number),
      durationMs: expect.any(Number),
      pruned: 0,
      copiedTo: join(copies, nameAt(AT)),
      prunedInReplica: 0,
    });
    const local = join(ctx.config.backups.dir, nameAt(AT));
    expect(readFileSync(join(copies, nameAt(AT)))).toEqual(readFileSync(local));
    expect(statSync(join(copies, nameAt(AT))).mode & 0o777).toBe(0o600);

    clock.advance(DAY_MS);
    expect((await backupNow()).status).toBe(201);
    clock.advance(DAY_MS);
    expect((await backupNow()).status).toBe(201);
    const newest = [nameAt(AT + DAY_MS), nameAt(AT + 2 * DAY_MS)];
    expect(backupNames(ctx.config.backups.dir)).toEqual(newest);
    expect(backupNames(copies)).toEqual(newest);
    // Only whole copies under backup names: no hidden temporary file left.
    expect(readdirSync(copies).sort()).toEqual([...newest, 'notes.txt'].sort());
    expect(readFileSync(join(replicaDir, 'generations', '1f4a5453c529dda8', 'x'), 'utf8')).toBe(
      'litestream',
    );
  });

  test('a copy that cannot be written fails the run with the reason; the local backup stays', async () => {
    const replicaDir = join(tempDir(), 'replica');
    mkdirSync(replicaDir);
    // A file where the copies' folder should be.
    writeFileSync(join(replicaDir, 'backups'), 'not a folder');
    const { ctx, backupNow } = await replicatedApp(replicaDir, '7');
    const res = await backupNow();
    expect(res.status).toBe(500);
    expect(res.body).toEqual(
      problemOf(
        500,
        `The backup failed: ${nameAt(AT)} was written, but not copied into ${join(replicaDir, 'backups')}: it is not a folder`,
      ),
    );
    expect(backupNames(ctx.config.backups.dir)).toEqual([nameAt(AT)]);
  });
});
