import { afterEach, describe, expect, test } from 'bun:test';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { BACKSTOP_FRAMES, type Checkpointer, startCheckpointer } from '@/db/sqlite/checkpointer';
import { type Db, openDatabase } from '@/db/sqlite/client';
import { GroupCommit } from '@/db/sqlite/group-commit';
import { tempDir } from '../support/harness';

/** The wal-index's frame count and how many of them are in the database file (the -shm layout). */
function walIndexOf(path: string) {
  const shm = readFileSync(`${path}-shm`);
  return { frames: shm.readUInt32LE(16), backfilled: shm.readUInt32LE(96) };
}

const opened: { db: Db; checkpointer?: Checkpointer }[] = [];
afterEach(async () => {
  for (const { db, checkpointer } of opened.splice(0)) {
    await checkpointer?.stop();
    db.$client.close();
  }
});

function fileWithRows() {
  const path = join(tempDir('checkpointer-'), 'data.db');
  const db = openDatabase(path);
  db.$client.exec('CREATE TABLE blobs (body BLOB)');
  const insert = db.$client.prepare('INSERT INTO blobs (body) VALUES (?)');
  const entry: { db: Db; checkpointer?: Checkpointer } = { db };
  opened.push(entry);
  // About 2 WAL frames a commit: a 3 KB row and the table's page.
  const write = (commits: number) => {
    for (let i = 0; i < commits; i++) insert.run(new Uint8Array(3000).fill(i));
  };
  /** The thread on this file, the serving connection's own checkpoint out of reach: only the thread copies. */
  const threadOnly = async (checkpointFrames: number) => {
    entry.checkpointer = await startCheckpointer(db.$client, path, {
      everyMs: 5,
      checkpointFrames,
      backstopFrames: 1_000_000,
    });
  };
  return { path, db, write, threadOnly };
}

/** Waits (at most `tries` × 10 ms) until every committed frame is in the database file. */
async function backfilled(path: string, tries = 500): Promise<boolean> {
  for (let i = 0; i < tries; i++) {
    const { frames, backfilled } = walIndexOf(path);
    if (frames > 0 && backfilled === frames) return true;
    await Bun.sleep(10);
  }
  return false;
}

/**
 * `commits` group commits one after the other, each starting as the one
 * before it has committed (writes without a pause): answers the WAL's
 * largest frame count seen after a commit, how often it started over and
 * the frames written.
 */
async function writeWithoutPause(path: string, db: Db, group: GroupCommit, commits: number) {
  const insert = db.$client.prepare('INSERT INTO blobs (body) VALUES (?)');
  let most = 0;
  let restarts = 0;
  let last = 0;
  let written = 0;
  for (let i = 0; i < commits; i++) {
    await group.run(() => insert.run(new Uint8Array(3000).fill(i)));
    const { frames } = walIndexOf(path);
    if (frames < last) restarts++;
    written += frames < last ? frames : frames - last;
    last = frames;
    most = Math.max(most, frames);
  }
  return { most, restarts, written };
}

describe('the WAL checkpointer thread', () => {
  test('under writes without a pause it holds them for one checkpoint once the WAL is large, so the WAL starts over instead of growing to the backstop', async () => {
    const { path, db } = fileWithRows();
    const group = new GroupCommit(db.$client);
    const checkpointer = await startCheckpointer(db.$client, path, {
      everyMs: 5,
      checkpointFrames: 50,
      restartFrames: 200,
      backstopFrames: 1_000_000,
      holdWrites: (until) => group.holdUntil(until),
    });
    opened.at(-1)!.checkpointer = checkpointer;
    const { most, restarts } = await writeWithoutPause(path, db, group, 1500);
    expect(restarts).toBeGreaterThanOrEqual(1);
    expect(most).toBeLessThan(1000);
    expect(checkpointer.counts.held).toBeGreaterThanOrEqual(1);
    expect(db.$client.query('SELECT count(*) AS n FROM blobs').get()).toEqual({ n: 1500 });
  });

  test('without holding the writes, the same writes never let the thread copy every frame: the WAL grows on (the control)', async () => {
    const { path, db } = fileWithRows();
    const group = new GroupCommit(db.$client);
    const checkpointer = await startCheckpointer(db.$client, path, {
      everyMs: 5,
      checkpointFrames: 50,
      restartFrames: 200,
      backstopFrames: 1_000_000,
    });
    opened.at(-1)!.checkpointer = checkpointer;
    const { most } = await writeWithoutPause(path, db, group, 1500);
    expect(most).toBeGreaterThanOrEqual(2000);
    expect(checkpointer.counts.held).toBe(0);
  });

  test('runs one checkpoint at a time, each from checkpointFrames pages not yet copied, not one per tick', async () => {
    const { path, db } = fileWithRows();
    const group = new GroupCommit(db.$client);
    const checkpointer = await startCheckpointer(db.$client, path, {
      everyMs: 1,
      checkpointFrames: 400,
      backstopFrames: 1_000_000,
    });
    opened.at(-1)!.checkpointer = checkpointer;
    const { written } = await writeWithoutPause(path, db, group, 1500);
    // At most one per 400 frames written, and one more for what was left.
    expect(checkpointer.counts.checkpoints).toBeGreaterThanOrEqual(1);
    expect(checkpointer.counts.checkpoints).toBeLessThanOrEqual(Math.floor(written / 400) + 1);
  });

  test("copies the serving connection's commits into the file, so the next write restarts the WAL instead of growing it", async () => {
    const { path, db, write, threadOnly } = fileWithRows();
    await threadOnly(100);
    write(300);
    expect(walIndexOf(path).frames).toBeGreaterThanOrEqual(300);
    expect(await backfilled(path)).toBe(true);
    write(1);
    expect(walIndexOf(path).frames).toBeLessThan(10);
    expect(db.$client.query('SELECT count(*) AS n FROM blobs').get()).toEqual({ n: 301 });
  });

  test('below its threshold it waits for a pause in the commits, so a steady trickle of writes does not restart the WAL at every commit', async () => {
    const { path, db, write, threadOnly } = fileWithRows();
    await threadOnly(1000);
    // Ten commits 30 ms apart: six ticks between each, none of them a second without a commit.
    for (let i = 0; i < 10; i++) {
      write(5);
      await Bun.sleep(30);
    }
    // One WAL all along: a checkpoint between them would have let the next commit restart it.
    expect(walIndexOf(path).frames).toBeGreaterThanOrEqual(100);
    // A second without a commit: the thread copies what is there.
    expect(await backfilled(path)).toBe(true);
    write(1);
    expect(walIndexOf(path).frames).toBeLessThan(10);
    expect(db.$client.query('SELECT count(*) AS n FROM blobs').get()).toEqual({ n: 51 });
  });

  test('without it the same commits stay in the WAL (the control)', async () => {
    const { path, db, write } = fileWithRows();
    db.$client.exec('PRAGMA wal_autocheckpoint = 1000000');
    write(300);
    expect(await backfilled(path, 20)).toBe(false);
    write(1);
    expect(walIndexOf(path).frames).toBeGreaterThanOrEqual(300);
  });

  test("the serving connection's checkpoint is the backstop while it runs, and the default again once it stops", async () => {
    const path = join(tempDir('checkpointer-'), 'data.db');
    const db = openDatabase(path);
    db.$client.exec('CREATE TABLE blobs (body BLOB)');
    const frames = () =>
      db.$client.query<{ wal_autocheckpoint: number }, []>('PRAGMA wal_autocheckpoint').get()!
        .wal_autocheckpoint;
    expect(frames()).toBe(1000);
    const checkpointer = await startCheckpointer(db.$client, path);
    expect(frames()).toBe(BACKSTOP_FRAMES);
    await checkpointer.stop();
    expect(frames()).toBe(1000);
    // Its connection is closed: the serving one is the last, and closing it removes the WAL.
    db.$client.close();
    expect(existsSync(`${path}-wal`)).toBe(false);
  });
});
