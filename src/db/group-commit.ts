import type { Database, Statement } from 'bun:sqlite';
import type { Db } from './client';

/** Creates per write transaction at most: bounds the time one COMMIT keeps the others waiting. */
export const MAX_BATCH = 64;

type Schedule = (flush: () => void) => void;

interface Pending<T = unknown> {
  work: () => T;
  resolve: (value: T) => void;
  reject: (error: unknown) => void;
}

type Outcome = { ok: true; value: unknown } | { ok: false; error: unknown };

const SAVEPOINT = 'SAVEPOINT group_commit_item';
const RELEASE = 'RELEASE group_commit_item';
const ROLLBACK_TO = 'ROLLBACK TO group_commit_item';

/**
 * Group commit: writes submitted while a flush is pending share ONE write
 * transaction (one WAL commit instead of one each, the dominant cost of a
 * small insert on a large database). Each write runs synchronously in its own
 * SAVEPOINT, in submission order, so a write that throws rolls back only
 * itself and rejects only its own promise. Every promise settles only after
 * the batch's COMMIT: a success is durable (WAL, synchronous=NORMAL) before
 * anyone hears of it. A batch runs on the next macrotask, or at once when
 * `maxBatch` writes are waiting.
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
    const { promise, resolve, reject } = Promise.withResolvers<T>();
    this.#queue.push({ work, resolve, reject } as Pending);
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
        for (; done < batch.length; done++) {
          this.#exec(SAVEPOINT);
          try {
            outcomes[done] = { ok: true, value: batch[done]!.work() };
            this.#exec(RELEASE);
          } catch (error) {
            outcomes[done] = { ok: false, error };
            // SQLite ends the whole transaction on some errors (I/O, full disk).
            if (!client.inTransaction) throw error;
            this.#exec(ROLLBACK_TO);
            this.#exec(RELEASE);
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
