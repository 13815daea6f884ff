import type { Database, Statement } from 'bun:sqlite';
import type { Db } from './client';

/** Writes per write transaction at most: bounds the time one COMMIT keeps the others waiting. */
export const MAX_BATCH = 64;

type Schedule = (flush: () => void) => void;

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
 * macrotask, or at once when `maxBatch` writes are waiting.
 */
export class GroupCommit {
  readonly #client: Database;
  readonly #maxBatch: number;
  readonly #schedule: Schedule;
  #queue: Pending[] = [];
  #scheduled = false;
  readonly #statements = new Map<string, Statement>();

  constructor(client: Database, options: { maxBatch?: number; schedule?: Schedule } = {}) {
    this.#client = client;
    this.#maxBatch = options.maxBatch ?? MAX_BATCH;
    this.#schedule = options.schedule ?? ((flush) => setImmediate(flush));
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
    if (this.#queue.length >= this.#maxBatch && !this.#client.inTransaction) {
      this.flush();
    } else if (!this.#scheduled) {
      this.#scheduled = true;
      this.#schedule(() => {
        this.#scheduled = false;
        this.flush();
      });
    }
    return promise;
  }

  /** Commits everything queued now, in batches of `maxBatch` (also for shutdown). */
  flush(): void {
    while (this.#queue.length > 0) {
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

  /** Runs one batch; answers each write's outcome, successes only if COMMIT succeeded. */
  #commit(batch: Pending[]): Outcome[] {
    const client = this.#client;
    const outcomes: Outcome[] = [];
    const fail = (from: number, to: number, error: unknown) => {
      for (let index = from; index < to; index++) outcomes[index] = { ok: false, error };
    };
    let done = 0;
    while (done < batch.length) {
      const first = done;
      try {
        this.#exec('BEGIN IMMEDIATE');
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
