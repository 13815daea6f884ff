import type { Database } from 'bun:sqlite';
import { WAL_FRAMES, walIndexOf } from './wal-index';

/**
 * What the checkpointer's thread runs: its own connection to the file and a
 * PASSIVE checkpoint at each 'checkpoint' message (copies the committed WAL
 * frames no reader still needs into the database file, then syncs it);
 * closed on 'stop'. Plain JavaScript in a string, so the single binary
 * carries it without a second entry point.
 */
const WORKER_SOURCE = `
import { Database } from 'bun:sqlite';
let db;
let checkpoint;
self.onmessage = ({ data }) => {
  if (data.type === 'start') {
    db = new Database(data.path, { readwrite: true });
    // A write transaction that is starting waits for the WAL header a moment.
    db.exec('PRAGMA busy_timeout = 1000');
    checkpoint = db.prepare('PRAGMA wal_checkpoint(PASSIVE)');
    postMessage('started');
  } else if (data.type === 'checkpoint') {
    try {
      checkpoint.values();
    } catch {
      // Busy (another checkpoint) or the file going away at shutdown: the next request tries again.
    }
  } else if (data.type === 'stop') {
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

/** Pages in the WAL from which the thread checkpoints (SQLite's own default threshold). */
export const CHECKPOINT_FRAMES = 1000;

/**
 * How often the serving thread looks at the WAL's size, in ms. Under a burst
 * of creates at 200,000 properties the WAL grows by 20 to 37 pages a
 * millisecond: looked at every 50 ms, it could pass the threshold by up to
 * 1,850 pages before the thread was asked, half the way to the backstop
 * (docs/performance.md).
 */
export const CHECK_EVERY_MS = 10;

/** How long the WAL must have gone without a commit before the thread checkpoints a smaller one. */
const IDLE_MS = 1000;

export interface CheckpointerOptions {
  /** How often the WAL's size is looked at, in ms. */
  everyMs?: number;
  /** Pages in the WAL from which the thread checkpoints. */
  checkpointFrames?: number;
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
 * thread with its own connection checkpoints instead, while the serving
 * connection only commits; its own autocheckpoint stays as a backstop at
 * `backstopFrames` (16 MiB of WAL), for a burst of writes the thread cannot
 * keep up with.
 *
 * The thread checkpoints once the WAL holds `checkpointFrames` pages, or
 * once it has gone `IDLE_MS` without a commit, not at every tick: the
 * first commit after a checkpoint that copied every frame restarts the WAL,
 * and a restart syncs the WAL's new header in the committing call (SQLite
 * needs it against out-of-order writes). Checkpointing at every 50 ms tick made that
 * nearly every create's, on the event loop: 27 ms a second of waiting on the
 * disk at 20 creates/s on a 1,000,000-property file. The WAL's size comes
 * from the wal-index header this process has mapped (src/db/sqlite/wal-index.ts),
 * read without a system call; where there is none, every tick checkpoints.
 * Durability is unchanged: a checkpoint copies committed frames only.
 */
export async function startCheckpointer(
  client: Database,
  path: string,
  {
    everyMs = CHECK_EVERY_MS,
    checkpointFrames = CHECKPOINT_FRAMES,
    backstopFrames = BACKSTOP_FRAMES,
  }: CheckpointerOptions = {},
): Promise<Checkpointer> {
  const source = URL.createObjectURL(new Blob([WORKER_SOURCE], { type: 'text/javascript' }));
  // `smol`: the thread holds a connection, not a heap worth growing.
  const worker = new Worker(source, { smol: true } as WorkerOptions);
  const reply = (expected: string) =>
    new Promise<void>((resolve, reject) => {
      worker.onmessage = ({ data }) => (data === expected ? resolve() : undefined);
      worker.onerror = (event) => reject(new Error(`checkpointer: ${event.message}`));
    });
  const started = reply('started');
  worker.postMessage({ type: 'start', path });
  await started;
  const due = checkpointDue(walIndexOf(client), checkpointFrames);
  const timer = setInterval(() => {
    if (due(Date.now())) worker.postMessage({ type: 'checkpoint' });
  }, everyMs);
  // Only once loaded: the thread reads its source from the URL after this call returns.
  URL.revokeObjectURL(source);
  const defaultFrames = client
    .query<{ wal_autocheckpoint: number }, []>('PRAGMA wal_autocheckpoint')
    .get()!.wal_autocheckpoint;
  client.exec(`PRAGMA wal_autocheckpoint = ${backstopFrames}`);
  return {
    async stop() {
      clearInterval(timer);
      const stopped = reply('stopped');
      worker.postMessage({ type: 'stop' });
      // A thread that died answers nothing: shutdown goes on without it.
      await Promise.race([stopped.catch(() => {}), Bun.sleep(STOP_WAIT_MS)]);
      worker.terminate();
      client.exec(`PRAGMA wal_autocheckpoint = ${defaultFrames}`);
    },
  };
}

/**
 * Whether a checkpoint is due at `now`: the WAL holds `checkpointFrames`
 * pages, or some and no commit came for `IDLE_MS`; once asked for a size,
 * not again until the WAL changes (a checkpoint that readers held back is
 * retried by the next commit). Without a header, always.
 */
function checkpointDue(header: Int32Array | undefined, checkpointFrames: number) {
  if (!header) return () => true;
  let seen = 0;
  let changedAt = 0;
  let asked = 0;
  return (now: number): boolean => {
    const frames = header[WAL_FRAMES]!;
    if (frames !== seen) {
      seen = frames;
      changedAt = now;
    }
    if (frames === 0 || frames === asked) return false;
    if (frames < checkpointFrames && now - changedAt < IDLE_MS) return false;
    asked = frames;
    return true;
  };
}

/**
 * Pages in the WAL at which the serving connection checkpoints itself
 * (PASSIVE) while Litestream replicates: twice Litestream's own RESTART
 * threshold (max-checkpoint-page-count, src/replication/config-file.ts), so
 * only when Litestream has stopped checkpointing, and the WAL still has a bound.
 */
export const REPLICATED_BACKSTOP_FRAMES = 20_000;

/**
 * Under Litestream the service starts no checkpointer thread: Litestream
 * checkpoints itself, between holding read transactions that keep the WAL
 * from being reset under it, and ships every frame before copying it back.
 * A checkpoint by the service that took the whole WAL while Litestream is
 * between two of them would make Litestream lose its place and start a new
 * generation (a full snapshot to the replica). Never a RESTART or TRUNCATE
 * from here; PASSIVE ones only as the backstop above.
 */
export function leaveCheckpointsToLitestream(client: Database): void {
  client.exec(`PRAGMA wal_autocheckpoint = ${REPLICATED_BACKSTOP_FRAMES}`);
}

/**
 * Copies the whole WAL into the database and truncates the WAL file to zero
 * bytes, giving its space back to the file system: what the disk monitor
 * runs while free space is low (the WAL otherwise keeps its largest size).
 * A reader holding old frames leaves it to the next try; never throws.
 */
export function truncateWal(client: Database): void {
  try {
    client.run('PRAGMA wal_checkpoint(TRUNCATE)');
  } catch {
    // Busy, or a disk too full for the checkpoint's own writes: the next reading tries again.
  }
}
