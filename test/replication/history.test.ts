import { expect, test } from 'bun:test';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ReplicaSettings } from '@/config';
import { migrateDatabase, openDatabase } from '@/db/sqlite/client';
import {
  findLitestream,
  litestreamErrorOf,
  parseGenerations,
  parseHistory,
  parseSnapshots,
  ReplicaListing,
  runUnderLitestream,
} from '@/replication';
import { manualClock, tempDir } from '../support/harness';

// Litestream 0.3.13's own output, as `litestream generations` and `litestream snapshots` print it.
const GENERATIONS = [
  'name  generation        lag   start                 end',
  'file  1f4a5453c529dda8  6s    2026-11-29T13:23:42Z  2026-11-29T13:23:42Z',
  'file  847dc849d91daff4  -7ms  2026-11-29T13:23:48Z  2026-11-29T14:01:05Z',
  '',
].join('\n');
const SNAPSHOTS = [
  'replica  generation        index  size  created',
  'file     1f4a5453c529dda8  0      354   2026-11-29T13:23:42Z',
  'file     847dc849d91daff4  0      354   2026-11-29T13:23:48Z',
  'file     847dc849d91daff4  12     9001  2026-11-29T14:00:00Z',
  '',
].join('\n');

test('the generations and snapshots Litestream prints: newest generation first, each with its snapshots newest first', () => {
  expect(parseHistory(GENERATIONS, SNAPSHOTS)).toEqual([
    {
      id: '847dc849d91daff4',
      start: '2026-11-29T13:23:48Z',
      end: '2026-11-29T14:01:05Z',
      snapshots: [
        { index: 12, size: 9001, createdAt: '2026-11-29T14:00:00Z' },
        { index: 0, size: 354, createdAt: '2026-11-29T13:23:48Z' },
      ],
    },
    {
      id: '1f4a5453c529dda8',
      start: '2026-11-29T13:23:42Z',
      end: '2026-11-29T13:23:42Z',
      snapshots: [{ index: 0, size: 354, createdAt: '2026-11-29T13:23:42Z' }],
    },
  ]);
});

test('an empty replica: the headers alone are no generation', () => {
  expect(parseGenerations('name  generation  lag  start  end\n')).toEqual([]);
  expect(parseSnapshots('replica  generation  index  size  created\n')).toEqual([]);
});

test('output of another form is unreadable, not half read', () => {
  // Another header (a later Litestream prints other columns).
  expect(parseGenerations('name generation start end\n')).toBeUndefined();
  expect(parseGenerations('')).toBeUndefined();
  // A row with a column missing, a bad id, a time that is none.
  expect(parseGenerations(`${GENERATIONS}file 1f4a5453c529dda8 6s 2026-11-29T13:23:42Z\n`)).toBe(
    undefined,
  );
  expect(
    parseGenerations(
      'name generation lag start end\nfile xyz 1s 2026-11-29T13:23:42Z 2026-11-29T13:23:42Z',
    ),
  ).toBeUndefined();
  expect(
    parseSnapshots('replica generation index size created\nfile 1f4a5453c529dda8 0 354 yesterday'),
  ).toBeUndefined();
  expect(
    parseSnapshots(
      'replica generation index size created\nfile 1f4a5453c529dda8 x 354 2026-11-29T13:23:42Z',
    ),
  ).toBeUndefined();
  expect(parseHistory(GENERATIONS, 'nothing')).toBeUndefined();
});

test("Litestream's error lines, which come with exit code 0, name what went wrong", () => {
  const stderr =
    'time=2026-11-29T13:24:18.633Z level=ERROR msg="cannot list generations" db=/d/app.db replica=sftp error="dial tcp 127.0.0.1:1: connect: connection refused"\n';
  expect(litestreamErrorOf(stderr)).toBe('dial tcp 127.0.0.1:1: connect: connection refused');
  expect(litestreamErrorOf('')).toBeUndefined();
  expect(litestreamErrorOf('time=… level=INFO msg="ok"\n')).toBeUndefined();
});

function replicaIn(dir: string): ReplicaSettings {
  return {
    url: `file://${dir}`,
    syncInterval: '100ms',
    retention: '72h',
    metricsPort: 19_093,
    maxLagMs: 60_000,
  };
}

test('a real file:// replica: the listing shows its generation, with a snapshot inside its time range; kept for maxAgeMs, then taken again', async () => {
  const databasePath = join(tempDir(), 'app.db');
  const replica = replicaIn(join(tempDir(), 'replica'));
  const db = openDatabase(databasePath);
  migrateDatabase(db);
  db.$client.close();
  expect(await runUnderLitestream(databasePath, replica, { command: ['sleep', '0.5'] })).toBe(0);

  const clock = manualClock(Date.UTC(2026, 10, 29, 15, 0, 0));
  let runs = 0;
  const listing = new ReplicaListing({
    ...{ databasePath, replica, clock, maxAgeMs: 15_000 },
    findBinary: () => {
      runs++;
      return findLitestream();
    },
  });
  const first = await listing.read();
  expect(first.listedAt).toBe(clock());
  if (!('generations' in first)) throw new Error(`not listed: ${first.problem}`);
  expect(first.generations).toHaveLength(1);
  const [generation] = first.generations;
  expect(generation!.id).toMatch(/^[0-9a-f]{16}$/);
  expect(Date.parse(generation!.end)).toBeGreaterThanOrEqual(Date.parse(generation!.start));
  expect(generation!.snapshots).toHaveLength(1);
  expect(generation!.snapshots[0]!.size).toBeGreaterThan(0);

  // Fresh: the same answer, no new run of Litestream.
  clock.advance(14_000);
  expect(await listing.read()).toBe(first);
  expect(runs).toBe(1);
  // Stale: the old answer at once, a new one taken meanwhile.
  clock.advance(2_000);
  expect(await listing.read()).toBe(first);
  await listing.settled();
  expect(runs).toBe(2);
  const second = await listing.read();
  expect(second).not.toBe(first);
  expect(second.listedAt).toBe(clock());
});

test('a replica Litestream cannot read is a problem naming the cause; no binary is the install hint', async () => {
  const databasePath = join(tempDir(), 'app.db');
  const db = openDatabase(databasePath);
  migrateDatabase(db);
  db.$client.close();
  // A file where Litestream expects its generations folder.
  const replicaDir = join(tempDir(), 'replica');
  mkdirSync(replicaDir);
  writeFileSync(join(replicaDir, 'generations'), 'not a folder');
  const clock = manualClock();
  const broken = await new ReplicaListing({
    ...{ databasePath, replica: replicaIn(replicaDir), clock },
  }).read();
  expect(broken).toEqual({
    listedAt: clock(),
    problem: expect.stringMatching(
      /^Litestream could not list the replica: .*generations: not a directory/,
    ),
  });

  const missing = await new ReplicaListing({
    ...{ databasePath, replica: replicaIn(replicaDir), clock, findBinary: () => undefined },
  }).read();
  expect(missing).toEqual({
    listedAt: clock(),
    problem: expect.stringContaining('the litestream binary is not installed'),
  });
});

test('a Litestream that does not answer in time is stopped and named', async () => {
  const databasePath = join(tempDir(), 'app.db');
  const dir = tempDir();
  const hanging = join(dir, 'litestream');
  writeFileSync(hanging, '#!/bin/sh\nexec sleep 30\n', { mode: 0o755 });
  const clock = manualClock();
  const listing = new ReplicaListing({
    ...{ databasePath, replica: replicaIn(join(dir, 'replica')), clock, timeoutMs: 200 },
    findBinary: () => hanging,
  });
  expect(await listing.read()).toEqual({
    listedAt: clock(),
    problem: 'Litestream did not list the replica within 0.2 s',
  });
});
