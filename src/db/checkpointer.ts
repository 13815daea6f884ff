import type { Database } from 'bun:sqlite';

/**
 * What the checkpointer's thread runs: its own connection to the file, a
 * PASSIVE checkpoint every `everyMs` (copies the committed WAL frames no
 * reader still needs into the database file, then syncs it; cheap when
 * there is nothing to copy), closed on 'stop'. Plain JavaScript in a string,
 * so the single binary carries it without a second entry point.
 */
const WORKER_SOURCE = `
import { Database } from 'bun:sqlite';
let db;
let checkpoint;
let timer;
self.onmessage = ({ data }) => {
  if (data.type === 'start') {
    db = new Database(data.path, { readwrite: true });
    // A write transaction that is starting waits for the WAL header a moment.
    db.exec('PRAGMA busy_timeout = 1000');
    checkpoint = db.prepare('PRAGMA wal_checkpoint(PASSIVE)');
    timer = setInterval(() => {
      try {
        checkpoint.values();
      } catch {
        // Busy (another checkpoint) or the file going away at shutdown: the next tick tries again.
      }
    }, data.everyMs);
    postMessage('started');
  } else if (data.type === 'stop') {
    clearInterval(timer);
    // Finalized first: a statement left open would keep the connection alive after close.
    checkpoint?.finalize();
    db?.close();
    postMessage('stopped');
  }
};
`;

/** How long `stop` waits for the thread to close its connection before it ends the thread anyway. */
const STOP_WAIT_MS = 2000;

/** Pages in the WAL at which the serving connection checkpoints itself after all (the backstop). */
export const BACKSTOP_FRAMES = 4000;

export interface CheckpointerOptions {
  /** How often the thread checkpoints, in ms. */
  everyMs?: number;
  /** The serving connection's own `wal_autocheckpoint` while the thread runs. */
  backstopFrames?: number;
}

export interface Checkpointer {
  /** Stops the thread and closes its connection; the serving connection checkpoints itself again. */
  stop(): Promise<void>;
}

/**
 * Moves WAL checkpoints off the event loop. SQLite checkpoints in the
 * COMMIT that takes the WAL past `wal_autocheckpoint` pages (1000 by
 * default): the committing call copies those pages into the database file
 * and syncs it before it returns, and every request on the one event loop
 * waits meanwhile (13 ms for ~670 pages of a 1.4 GB file here, one every
 * second or two under 20 creates/s, which set the reads' p99). A worker
 * thread with its own connection checkpoints every `everyMs` instead, while
 * the serving connection only commits; its own autocheckpoint stays as a
 * backstop at `backstopFrames` (16 MiB of WAL), for a burst of writes the
 * thread cannot keep up with. Durability is unchanged: a checkpoint copies
 * committed frames only, and the WAL is restarted by the next writer once
 * every frame is in the file.
 */
export async function startCheckpointer(
  client: Database,
  path: string,
  { everyMs = 50, backstopFrames = BACKSTOP_FRAMES }: CheckpointerOptions = {},
): Promise<Checkpointer> {
  const source = URL.createObjectURL(new Blob([WORKER_SOURCE], { type: 'text/javascript' }));
  // `smol`: the thread holds a connection and a timer, not a heap worth growing.
  const worker = new Worker(source, { smol: true } as WorkerOptions);
  const reply = (expected: string) =>
    new Promise<void>((resolve, reject) => {
      worker.onmessage = ({ data }) => (data === expected ? resolve() : undefined);
      worker.onerror = (event) => reject(new Error(`checkpointer: ${event.message}`));
    });
  const started = reply('started');
  worker.postMessage({ type: 'start', path, everyMs });
  await started;
  // Only once loaded: the thread reads its source from the URL after this call returns.
  URL.revokeObjectURL(source);
  const defaultFrames = client
    .query<{ wal_autocheckpoint: number }, []>('PRAGMA wal_autocheckpoint')
    .get()!.wal_autocheckpoint;
  client.exec(`PRAGMA wal_autocheckpoint = ${backstopFrames}`);
  return {
    async stop() {
      const stopped = reply('stopped');
      worker.postMessage({ type: 'stop' });
      // A thread that died answers nothing: shutdown goes on without it.
      await Promise.race([stopped.catch(() => {}), Bun.sleep(STOP_WAIT_MS)]);
      worker.terminate();
      client.exec(`PRAGMA wal_autocheckpoint = ${defaultFrames}`);
    },
  };
}
