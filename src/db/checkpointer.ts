import type { Database } from 'bun:sqlite';

/** How often the background connection checkpoints the WAL. */
export const CHECKPOINT_INTERVAL_MS = 200;
/**
 * A WAL this long (frames, about 8 MiB) is started over by the worker: a
 * RESTART checkpoint waits (in the worker, up to `RESTART_WAIT_MS`) for the
 * write lock, copies the short tail the passes left and syncs, so the next
 * write starts the WAL from its beginning. Under a steady stream of writes
 * PASSIVE passes alone almost never leave it fully copied at the moment a
 * write begins, which is when SQLite starts it over. Creates that arrive
 * meanwhile wait on a timer (`GroupCommit`) and reads go on; other writes
 * wait in the busy handler, as they did behind a checkpoint in a COMMIT.
 */
export const RESTART_FRAMES = 2000;
const RESTART_WAIT_MS = 200;
/**
 * The serving connection's own `wal_autocheckpoint` while the background one
 * runs (pages, about 40 MiB): it checkpoints inside a COMMIT only if the
 * worker falls that far behind, so the WAL stays bounded either way.
 */
export const SAFETY_AUTOCHECKPOINT = 10_000;
/** SQLite's default, given back when the background connection stops. */
const DEFAULT_AUTOCHECKPOINT = 1000;

/** What one background checkpoint did (`PRAGMA wal_checkpoint` answers). */
export interface CheckpointResult {
  /** PASSIVE copies what it can; RESTART also makes the next write start the WAL over. */
  mode: 'passive' | 'restart';
  /** Frames in the WAL when it ran. */
  log: number;
  /** Frames of those copied into the database file (all of them once it caught up). */
  checkpointed: number;
}

type FromWorker =
  | { type: 'started' }
  | { type: 'stopped' }
  | ({ type: 'checkpointed' } & CheckpointResult)
  | { type: 'error'; message: string };

/**
 * PASSIVE checkpoints run back to back at most per tick: each copies what
 * the writes committed during the one before added, without ever holding up
 * the writer.
 */
const MAX_PASSES = 8;

/**
 * The worker's code, handed over as a module in a Blob so that a compiled
 * executable (which has no source files beside it) starts it too. It opens
 * its own plain connection: SQLite shares one lock table per file across the
 * connections of a process and defers closing a descriptor while another
 * connection holds locks, so neither opening nor closing it drops the serving
 * connection's POSIX locks (a descriptor opened by JS would, see
 * src/db/wal-index.ts). PASSIVE never waits for readers or the writer: it
 * copies what it can and leaves the rest for the next tick. The busy timeout
 * bounds only how long RESTART waits, in this thread, for the write lock.
 */
const WORKER_SOURCE = `import { Database } from 'bun:sqlite';
const MAX_PASSES = ${MAX_PASSES};
const RESTART_FRAMES = ${RESTART_FRAMES};
const RESTART_WAIT_MS = ${RESTART_WAIT_MS};
let db;
let checkpoint;
let restart;
let timer;
function tick() {
  try {
    let log = 0;
    for (let pass = 0; pass < MAX_PASSES; pass++) {
      const result = checkpoint.get();
      log = result.log;
      if (result.checkpointed > 0) postMessage({ type: 'checkpointed', mode: 'passive', ...result });
      if (result.checkpointed >= log) break;
    }
    if (log >= RESTART_FRAMES) {
      const result = restart.get();
      if (result.busy === 0) postMessage({ type: 'checkpointed', mode: 'restart', ...result });
    }
  } catch (error) {
    postMessage({ type: 'error', message: String(error) });
  }
}
self.onmessage = ({ data }) => {
  if (data.type === 'start') {
    try {
      db = new Database(data.path, { readwrite: true, create: false });
      db.exec('PRAGMA busy_timeout = ' + RESTART_WAIT_MS);
      checkpoint = db.prepare('PRAGMA wal_checkpoint(PASSIVE)');
      restart = db.prepare('PRAGMA wal_checkpoint(RESTART)');
      timer = setInterval(tick, data.intervalMs);
      postMessage({ type: 'started' });
    } catch (error) {
      postMessage({ type: 'error', message: String(error) });
    }
  } else if (data.type === 'stop') {
    clearInterval(timer);
    checkpoint?.finalize();
    restart?.finalize();
    db?.close();
    postMessage({ type: 'stopped' });
  }
};
`;

export interface CheckpointerOptions {
  intervalMs?: number;
  /** Told of every checkpoint that copied frames (tests wait on it). */
  onCheckpoint?: (result: CheckpointResult) => void;
  onError?: (message: string) => void;
}

export interface Checkpointer {
  /** Resolves once the worker has opened its connection. */
  readonly started: Promise<void>;
  /** Stops the worker and closes its connection; call it before closing the serving one. */
  stop(): Promise<void>;
}

/**
 * Moves WAL checkpoints off the event loop: a Bun Worker with its own
 * connection to `client`'s file runs PASSIVE checkpoints every `intervalMs`
 * and a RESTART one once the WAL holds `RESTART_FRAMES`, so the page copy and
 * its fsync no longer happen inside the COMMIT of whichever write crossed the
 * threshold, with every read waiting behind it (docs/performance.md). The
 * serving connection keeps a higher `wal_autocheckpoint` as a safety net.
 * Nothing for an in-memory database or one not in WAL mode.
 */
export function startCheckpointer(
  client: Database,
  options: CheckpointerOptions = {},
): Checkpointer | undefined {
  const path = client.filename;
  if (!path || path === ':memory:' || path.startsWith('file:')) return undefined;
  const mode = client.query<{ journal_mode: string }, []>('PRAGMA journal_mode').get();
  if (mode?.journal_mode !== 'wal') return undefined;
  const url = URL.createObjectURL(new Blob([WORKER_SOURCE], { type: 'application/javascript' }));
  const worker = new Worker(url);
  const started = Promise.withResolvers<void>();
  const stopped = Promise.withResolvers<void>();
  worker.onmessage = ({ data }: MessageEvent<FromWorker>) => {
    if (data.type === 'started') started.resolve();
    else if (data.type === 'stopped') stopped.resolve();
    else if (data.type === 'checkpointed') {
      options.onCheckpoint?.({ mode: data.mode, log: data.log, checkpointed: data.checkpointed });
    } else {
      started.resolve();
      options.onError?.(data.message);
    }
  };
  worker.onerror = (event) => {
    started.resolve();
    stopped.resolve();
    options.onError?.(event.message);
  };
  worker.postMessage({
    type: 'start',
    path,
    intervalMs: options.intervalMs ?? CHECKPOINT_INTERVAL_MS,
  });
  client.exec(`PRAGMA wal_autocheckpoint = ${SAFETY_AUTOCHECKPOINT}`);
  let stopping: Promise<void> | undefined;
  return {
    started: started.promise,
    stop() {
      stopping ??= (async () => {
        await started.promise;
        worker.postMessage({ type: 'stop' });
        await stopped.promise;
        worker.terminate();
        URL.revokeObjectURL(url);
        client.exec(`PRAGMA wal_autocheckpoint = ${DEFAULT_AUTOCHECKPOINT}`);
      })();
      return stopping;
    },
  };
}
