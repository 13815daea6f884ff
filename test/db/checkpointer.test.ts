import { afterEach, describe, expect, spyOn, test } from 'bun:test';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  BACKSTOP_FRAMES,
  CHECK_EVERY_MS,
  type Checkpointer,
  startCheckpointer,
} from '@/db/sqlite/checkpointer';
import { type Db, openDatabase } from '@/db/sqlite/client';
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

describe('the WAL checkpointer thread', () => {
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

  test('looks at the WAL every 10 ms by default, so a burst of creates reaches the thread before the backstop', async () => {
    // At 50 ms the WAL of 200,000-property creates grew up to 1,850 pages
    // past the threshold between two looks (docs/performance.md).
    expect(CHECK_EVERY_MS).toBeLessThanOrEqual(10);
    const { db, path } = fileWithRows();
    const timers = spyOn(globalThis, 'setInterval');
    try {
      opened.at(-1)!.checkpointer = await startCheckpointer(db.$client, path);
      expect(timers.mock.calls.map(([, ms]) => ms)).toEqual([CHECK_EVERY_MS]);
    } finally {
      timers.mockRestore();
    }
  });
});
