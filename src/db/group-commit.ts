import { type Database, SQLiteError, type Statement } from 'bun:sqlite';
import type { Db } from './client';

/** Writes per write transaction at most: bounds the time one COMMIT keeps the others waiting. */
export const MAX_BATCH = 64;

type Schedule = (flush: () => void) => void;

/** How long a batch waits before trying again a BEGIN that found the database busy. */
const RETRY_MS = 1;

/**
 * A kind of write. With `many`, consecutive writes of the kind are done at
 * once (one multi-row statement per table instead of one per input): `many`
 * must have exactly the effect of `one` on each input in order, or throw;
 * when it throws, its writes are rolled back and each input runs alone with
 * `one`, so only the inputs that fail on their own fail.
 */
export interface Combinable<I, O> {
  one(input: I): O;
  many?(inputs: I[]): O[];
}

interface Pending {
  kind: Combinable<unknown, unknown>;
  input: unknown;
  resolve: (value: unknown) => void;
  reject: (error: unknown) => void;
}

type Outcome = { ok: true; value: unknown } | { ok: false; error: unknown };

/** A plain `run(work)`: alone, never combined. */
const ALONE: Combinable<() => unknown, unknown> = { one: (work) => work() };

const SAVEPOINT = 'SAVEPOINT group_commit';
const RELEASE = 'RELEASE group_commit';
const ROLLBACK_TO = 'ROLLBACK TO group_commit';

/**
 * Group commit: writes submitted while a flush is pending share ONE write
 * transaction (one WAL commit instead of one each, the dominant cost of a
 * small insert on a large database). Writes run synchronously in submission
 * order, each in its own SAVEPOINT (consecutive writes of one `Combinable`
 * kind together, falling back to one by one), so a write that throws rolls
 * back only itself and rejects only its own promise. Every promise settles
 * only after the batch's COMMIT: a success is durable (WAL,
 * synchronous=NORMAL) before anyone hears of it. A batch runs on the next
 * macrotask, or at once when `maxBatch` writes are waiting; when another
 * connection holds the write lock it waits on a short timer instead.
 */
export class GroupCommit {
  readonly #client: Database;
  readonly #maxBatch: number;
  readonly #schedule: Schedule;
  #queue: Pending[] = [];
  #scheduled = false;
  readonly #statements = new Map<string, Statement>();

  readonly #retry: Schedule;
  /** When the first BEGIN of the waiting batch found the database busy (performance.now). */
  #busySince: number | undefined;
  #retryPending = false;
  readonly #now: () => number;

  constructor(
    client: Database,
    options: {
      maxBatch?: number;
      schedule?: Schedule;
      /** Runs a flush again after a BEGIN found the database busy (a short timer). */
      retry?: Schedule;
      now?: () => number;
    } = {},
  ) {
    this.#client = client;
    this.#maxBatch = options.maxBatch ?? MAX_BATCH;
    this.#schedule = options.schedule ?? ((flush) => setImmediate(flush));
    this.#retry = options.retry ?? ((flush) => setTimeout(flush, RETRY_MS));
    this.#now = options.now ?? (() => performance.now());
  }

  /** Writes waiting for the next batch. */
  get pending(): number {
    return this.#queue.length;
  }

  /**
   * Queues `work` (synchronous: statements only, every `await` before it) for
   * the next batch; resolves with its result once that batch has committed.
   */
  run<T>(work: () => T): Promise<T> {
    return this.submit(ALONE as Combinable<() => T, T>, work);
  }

  /** Queues `kind.one(input)`, which may be combined with its neighbours of the same kind. */
  submit<I, O>(kind: Combinable<I, O>, input: I): Promise<O> {
    const { promise, resolve, reject } = Promise.withResolvers<O>();
    this.#queue.push({ kind, input, resolve, reject } as Pending);
    if (
      this.#queue.length >= this.#maxBatch &&
      !this.#client.inTransaction &&
      !this.#retryPending
    ) {
      this.#flushWithoutWaiting();
    } else if (!this.#scheduled) {
      this.#scheduled = true;
      this.#schedule(() => {
        this.#scheduled = false;
        this.#flushWithoutWaiting();
      });
    }
    return promise;
  }

  /** Commits everything queued now, in batches of `maxBatch`, waiting out a busy database (shutdown). */
  flush(): void {
    this.#flush(false);
  }

  /**
   * Commits what is queued unless another connection holds the write lock
   * (the background checkpointer restarting the WAL, another process): then
   * the batch waits on a timer and the event loop goes on serving reads,
   * instead of sleeping in SQLite's busy handler. Past the connection's
   * busy timeout it waits in the busy handler and fails as a lone write does.
   */
  #flushWithoutWaiting(): void {
    // A batch waiting for the lock already has its retry on a timer.
    if (!this.#retryPending) this.#flush(true);
  }

  /** Opens the write transaction of the next batch; false when the database is busy and it may wait. */
  #begin(mayWait: boolean): boolean {
    if (!mayWait) {
      this.#exec('BEGIN IMMEDIATE');
      return true;
    }
    const timeout =
      this.#client.query<{ timeout: number }, []>('PRAGMA busy_timeout').get()?.timeout ?? 0;
    const waited = this.#busySince === undefined ? 0 : this.#now() - this.#busySince;
    if (waited >= timeout) {
      this.#exec('BEGIN IMMEDIATE');
      return true;
    }
    this.#exec('PRAGMA busy_timeout = 0');
    try {
      this.#exec('BEGIN IMMEDIATE');
      return true;
    } catch (error) {
      if (!(error instanceof SQLiteError && error.code === 'SQLITE_BUSY')) throw error;
      this.#busySince ??= this.#now();
      this.#retryPending = true;
      this.#retry(() => {
        this.#retryPending = false;
        this.#flush(true);
      });
      return false;
    } finally {
      this.#client.exec(`PRAGMA busy_timeout = ${timeout}`);
    }
  }

  #flush(mayWait: boolean): void {
    if (this.#queue.length === 0) this.#busySince = undefined;
    while (this.#queue.length > 0) {
      try {
        if (!this.#begin(mayWait)) return;
      } catch (error) {
        // Busy past the timeout (another process writing): nothing can be written now.
        this.#busySince = undefined;
        for (const item of this.#queue.splice(0, this.#maxBatch)) item.reject(error);
        continue;
      }
      this.#busySince = undefined;
      const batch = this.#queue.splice(0, this.#maxBatch);
      const outcomes = this.#commit(batch);
      batch.forEach((item, index) => {
        const outcome = outcomes[index]!;
        if (outcome.ok) item.resolve(outcome.value);
        else item.reject(outcome.error);
      });
    }
  }

  /** Runs a transaction-control statement, prepared once. */
  #exec(text: string): void {
    let prepared = this.#statements.get(text);
    if (!prepared) {
      prepared = this.#client.prepare(text);
      this.#statements.set(text, prepared);
    }
    prepared.run();
  }

  /**
   * Runs `batch[from, to)` (one kind) as one `many` call in a savepoint;
   * false (and nothing written) when it threw but left the transaction open.
   */
  #combined(batch: Pending[], from: number, to: number, outcomes: Outcome[]): boolean {
    const { kind } = batch[from]!;
    this.#exec(SAVEPOINT);
    try {
      const values = kind.many!(batch.slice(from, to).map((item) => item.input));
      if (values.length !== to - from) throw new RangeError('many() answered a wrong count');
      this.#exec(RELEASE);
      for (let index = from; index < to; index++) {
        outcomes[index] = { ok: true, value: values[index - from] };
      }
      return true;
    } catch (error) {
      if (!this.#client.inTransaction) throw error;
      this.#exec(ROLLBACK_TO);
      this.#exec(RELEASE);
      return false;
    }
  }

  /** Runs one batch, its transaction begun; answers each write's outcome, successes only if COMMIT succeeded. */
  #commit(batch: Pending[]): Outcome[] {
    const client = this.#client;
    const outcomes: Outcome[] = [];
    const fail = (from: number, to: number, error: unknown) => {
      for (let index = from; index < to; index++) outcomes[index] = { ok: false, error };
    };
    let done = 0;
    let begun = true;
    while (done < batch.length) {
      const first = done;
      try {
        if (!begun) this.#exec('BEGIN IMMEDIATE');
        begun = false;
      } catch (error) {
        // Busy past the timeout (another process writing): nothing can be written now.
        fail(first, batch.length, error);
        break;
      }
      try {
        while (done < batch.length) {
          const { kind } = batch[done]!;
          let end = done + 1;
          while (kind.many && end < batch.length && batch[end]!.kind === kind) end++;
          if (end - done > 1 && this.#combined(batch, done, end, outcomes)) {
            done = end;
            continue;
          }
          for (; done < end; done++) {
            this.#exec(SAVEPOINT);
            try {
              outcomes[done] = { ok: true, value: kind.one(batch[done]!.input) };
              this.#exec(RELEASE);
            } catch (error) {
              outcomes[done] = { ok: false, error };
              // SQLite ends the whole transaction on some errors (I/O, full disk).
              if (!client.inTransaction) throw error;
              this.#exec(ROLLBACK_TO);
              this.#exec(RELEASE);
            }
          }
        }
        this.#exec('COMMIT');
      } catch (error) {
        if (client.inTransaction) this.#exec('ROLLBACK');
        if (done >= batch.length) {
          // COMMIT failed: none of this transaction's writes happened.
          fail(first, batch.length, error);
        } else {
          // Write `done` ended the transaction, taking the uncommitted writes
          // before it along; the ones after it start a new transaction.
          fail(first, done + 1, error);
          done++;
        }
      }
    }
    return outcomes;
  }
}

const instances = new WeakMap<Database, GroupCommit>();

/** The group commit of a connection, made on first use. */
export function groupCommitOf(db: Db): GroupCommit {
  const client = db.$client;
  let instance = instances.get(client);
  if (!instance) {
    instance = new GroupCommit(client);
    instances.set(client, instance);
  }
  return instance;
}

/** Commits whatever is queued on this connection (shutdown: before closing it). */
export function flushGroupCommit(db: Db): void {
  instances.get(db.$client)?.flush();
}
