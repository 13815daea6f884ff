import type { Database } from 'bun:sqlite';

/** How often the background connection checkpoints the WAL. */
export const CHECKPOINT_INTERVAL_MS = 200;
/**
 * The serving connection's own `wal_autocheckpoint` while the background one
 * runs (pages, about 40 MiB): it checkpoints inside a COMMIT only if the
 * worker falls that far behind, so the WAL stays bounded either way.
 */
export const SAFETY_AUTOCHECKPOINT = 4000;
/** SQLite's default, given back when the background connection stops. */
const DEFAULT_AUTOCHECKPOINT = 1000;

/** What one background checkpoint did (`PRAGMA wal_checkpoint` answers). */
export interface CheckpointResult {
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
 * Checkpoints run back to back at most per tick. The writer starts the WAL
 * over (instead of growing it) only at a transaction that begins once every
 * frame has been copied; writes committed during a long copy leave a tail,
 * and each further pass copies the shorter tail of the one before, so one of
 * them usually ends between two commits.
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
 * copies what it can and leaves the rest for the next tick.
 */
const WORKER_SOURCE = `import { Database } from 'bun:sqlite';
const MAX_PASSES = ${MAX_PASSES};
let db;
let checkpoint;
let timer;
function tick() {
  try {
    for (let pass = 0; pass < MAX_PASSES; pass++) {
      const { log, checkpointed } = checkpoint.get();
      if (checkpointed > 0) postMessage({ type: 'checkpointed', log, checkpointed });
      if (checkpointed >= log) break;
    }
  } catch (error) {
    postMessage({ type: 'error', message: String(error) });
  }
}
self.onmessage = ({ data }) => {
  if (data.type === 'start') {
    try {
      db = new Database(data.path, { readwrite: true, create: false });
      db.exec('PRAGMA busy_timeout = 5000');
      checkpoint = db.prepare('PRAGMA wal_checkpoint(PASSIVE)');
      timer = setInterval(tick, data.intervalMs);
      postMessage({ type: 'started' });
    } catch (error) {
      postMessage({ type: 'error', message: String(error) });
    }
  } else if (data.type === 'stop') {
    clearInterval(timer);
    checkpoint?.finalize();
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
 * connection to `client`'s file runs a PASSIVE checkpoint every `intervalMs`,
 * so the page copy and its fsync no longer happen inside the COMMIT of
 * whichever write crossed the threshold, with every read waiting behind it
 * (docs/performance.md). The serving connection keeps a higher
 * `wal_autocheckpoint` as a safety net. Nothing for an in-memory database or
 * one not in WAL mode.
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
      options.onCheckpoint?.({ log: data.log, checkpointed: data.checkpointed });
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
