import type { Database, Statement } from 'bun:sqlite';
import {
  type Outcome,
  type QueuedWrite,
  runEnd,
  WriteQueue,
  type WriteQueueOptions,
} from '@/db/write-queue';
import type { Db } from './client';

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

type Pending = QueuedWrite<Combinable<unknown, unknown>>;

/** A plain `run(work)`: alone, never combined. */
const ALONE: Combinable<() => unknown, unknown> = { one: (work) => work() };

const SAVEPOINT = 'SAVEPOINT group_commit';
const RELEASE = 'RELEASE group_commit';
const ROLLBACK_TO = 'ROLLBACK TO group_commit';

/**
 * Group commit on SQLite: a batch of the write queue (src/db/write-queue.ts)
 * shares ONE write transaction (one WAL commit instead of one each, the
 * dominant cost of a small insert on a large database). Writes run
 * synchronously in submission order, each in its own SAVEPOINT (consecutive
 * writes of one `Combinable` kind together, falling back to one by one), so
 * a write that throws rolls back only itself and rejects only its own
 * promise. Every promise settles only after the batch's COMMIT: a success is
 * durable (WAL, synchronous=NORMAL) before anyone hears of it.
 */
export class GroupCommit {
  readonly #client: Database;
  readonly #queue: WriteQueue<Combinable<unknown, unknown>>;
  readonly #statements = new Map<string, Statement>();

  constructor(client: Database, options: WriteQueueOptions = {}) {
    this.#client = client;
    this.#queue = new WriteQueue((batch) => this.#commit(batch), {
      ...options,
      // A full batch at once, unless a transaction is open on the connection (BEGIN would fail).
      flushNow: () => !client.inTransaction,
    });
  }

  /** Writes waiting for the next batch. */
  get pending(): number {
    return this.#queue.pending;
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
    return this.#queue.submit<O>(kind as Combinable<unknown, unknown>, input);
  }

  /** Commits everything queued now, in batches of `maxBatch` (also for shutdown). */
  flush(): void {
    this.#queue.flush();
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
          const end = kind.many ? runEnd(batch, done) : done + 1;
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
