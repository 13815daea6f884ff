import { describe, expect, test } from 'bun:test';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import {
  type CheckpointResult,
  RESTART_FRAMES,
  SAFETY_AUTOCHECKPOINT,
  startCheckpointer,
} from '@/db/checkpointer';
import { openDatabase } from '@/db/client';
import { walIndexOf } from '@/db/wal-index';
import { tempDir } from '../support/harness';

/** A file database opened as the server opens it, with a table to fill. */
function serving() {
  const path = join(tempDir('checkpointer-'), 'app.db');
  const db = openDatabase(path);
  const client = db.$client;
  client.exec('CREATE TABLE filler (body BLOB NOT NULL)');
  const header = walIndexOf(client);
  if (!header) throw new Error('not in WAL mode');
  /** Frames in the WAL (the wal-index header's mxFrame), as the serving connection last wrote it. */
  const frames = () => header[4]!;
  /** One transaction of `rows` rows of 3 KB: about one WAL frame each. */
  const write = (rows: number) => {
    client.transaction(() => {
      const insert = client.query('INSERT INTO filler (body) VALUES (randomblob(3000))');
      for (let row = 0; row < rows; row++) insert.run();
    })();
  };
  return { path, client, frames, write };
}

/** Resolves with the first checkpoint that copied at least `wanted()` frames and the whole WAL it saw. */
function caughtUp(wanted: () => number) {
  const { promise, resolve } = Promise.withResolvers<CheckpointResult>();
  return {
    promise,
    onCheckpoint: (result: CheckpointResult) => {
      if (result.checkpointed === result.log && result.checkpointed >= wanted()) resolve(result);
    },
  };
}

describe('background checkpointer', () => {
  describe('happy', () => {
    test('the worker copies the WAL and the next write starts it over, without the serving connection checkpointing', async () => {
      const { client, frames, write } = serving();
      let grown = Number.POSITIVE_INFINITY;
      const done = caughtUp(() => grown);
      const checkpointer = startCheckpointer(client, {
        intervalMs: 5,
        onCheckpoint: done.onCheckpoint,
      })!;
      await checkpointer.started;
      // Below the serving connection's own threshold: only the worker can checkpoint this.
      expect(
        client.query<{ wal_autocheckpoint: number }, []>('PRAGMA wal_autocheckpoint').get(),
      ).toEqual({ wal_autocheckpoint: SAFETY_AUTOCHECKPOINT });
      write(500);
      grown = frames();
      expect(grown).toBeGreaterThan(500);
      expect(grown).toBeLessThan(SAFETY_AUTOCHECKPOINT);
      const result = await done.promise;
      expect(result.checkpointed).toBeGreaterThanOrEqual(grown);
      write(1);
      expect(frames()).toBeLessThan(10);
      await checkpointer.stop();
      expect(
        client.query<{ wal_autocheckpoint: number }, []>('PRAGMA wal_autocheckpoint').get(),
      ).toEqual({ wal_autocheckpoint: 1000 });
      client.close();
    });

    test('a WAL past the restart length is started over by a RESTART checkpoint of the worker', async () => {
      const { client, frames, write } = serving();
      const { promise, resolve } = Promise.withResolvers<CheckpointResult>();
      const checkpointer = startCheckpointer(client, {
        intervalMs: 5,
        onCheckpoint: (result) => {
          if (result.mode === 'restart') resolve(result);
        },
      })!;
      await checkpointer.started;
      write(RESTART_FRAMES + 200);
      expect(frames()).toBeGreaterThan(RESTART_FRAMES);
      const result = await promise;
      expect(result.checkpointed).toBe(result.log);
      write(1);
      expect(frames()).toBeLessThan(10);
      await checkpointer.stop();
      client.close();
    });

    test('stopped before the serving connection closes, no WAL is left behind', async () => {
      const { path, client, write } = serving();
      const checkpointer = startCheckpointer(client, { intervalMs: 5 })!;
      await checkpointer.started;
      write(50);
      await checkpointer.stop();
      client.close();
      expect(existsSync(`${path}-wal`)).toBe(false);
      expect(existsSync(path)).toBe(true);
    });

    test('an in-memory database gets none', () => {
      const db = openDatabase(':memory:');
      expect(startCheckpointer(db.$client)).toBeUndefined();
      db.$client.close();
    });
  });
});
