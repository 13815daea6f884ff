import type { MaybePromise } from '@/kernel/maybe-promise';

/** Writes per write transaction at most: bounds the time one COMMIT keeps the others waiting. */
export const MAX_BATCH = 64;

export type Schedule = (flush: () => void) => void;

/** One write waiting for its batch: its kind (compared by identity), its input, its promise. */
export interface QueuedWrite<Kind> {
  kind: Kind;
  input: unknown;
  resolve: (value: unknown) => void;
  reject: (error: unknown) => void;
}

export type Outcome = { ok: true; value: unknown } | { ok: false; error: unknown };

/**
 * How one database commits a batch: each write's outcome in order, a
 * success only once it is durable. It never throws: a failure is an outcome.
 */
export type CommitBatch<Kind> = (batch: QueuedWrite<Kind>[]) => MaybePromise<Outcome[]>;

export interface WriteQueueOptions {
  maxBatch?: number;
  schedule?: Schedule;
  /**
   * Batches committing at once at most (unbounded by default): writes
   * submitted while that many are under way wait, and go together in the
   * next batch once one ends, instead of each starting a transaction that
   * would only wait on the same locks.
   */
  maxInFlight?: number;
}

/**
 * Group commit's queue, whichever the database: writes submitted while a
 * flush is pending are committed together, in submission order, in batches
 * of at most `maxBatch`; a batch runs on the next macrotask, or at once when
 * `maxBatch` writes are waiting and `flushNow()` allows it. `commit` is the
 * database's part (src/db/sqlite/group-commit.ts on SQLite, `commitRunsApart` on
 * PostgreSQL); each promise settles with its write's outcome.
 */
export class WriteQueue<Kind> {
  readonly #commit: CommitBatch<Kind>;
  readonly #maxBatch: number;
  readonly #schedule: Schedule;
  readonly #flushNow: () => boolean;
  readonly #maxInFlight: number;
  #queue: QueuedWrite<Kind>[] = [];
  #scheduled = false;
  #inFlight = 0;

  constructor(
    commit: CommitBatch<Kind>,
    options: WriteQueueOptions & { flushNow?: () => boolean } = {},
  ) {
    this.#commit = commit;
    this.#maxBatch = options.maxBatch ?? MAX_BATCH;
    this.#schedule = options.schedule ?? ((flush) => setImmediate(flush));
    this.#flushNow = options.flushNow ?? (() => true);
    this.#maxInFlight = options.maxInFlight ?? Number.POSITIVE_INFINITY;
  }

  /** Writes waiting for the next batch. */
  get pending(): number {
    return this.#queue.length;
  }

  /** Queues `input` of `kind` for the next batch; settles once that batch has committed. */
  submit<O>(kind: Kind, input: unknown): Promise<O> {
    const { promise, resolve, reject } = Promise.withResolvers<O>();
    this.#queue.push({ kind, input, resolve: resolve as (value: unknown) => void, reject });
    if (this.#queue.length >= this.#maxBatch && this.#flushNow()) {
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

  /**
   * Commits everything queued now, in batches of `maxBatch` (also for
   * shutdown); past `maxInFlight` batches under way, the rest as they end.
   */
  flush(): void {
    while (this.#queue.length > 0 && this.#inFlight < this.#maxInFlight) {
      const batch = this.#queue.splice(0, this.#maxBatch);
      const settle = (outcomes: Outcome[]) => {
        batch.forEach((item, index) => {
          const outcome = outcomes[index]!;
          if (outcome.ok) item.resolve(outcome.value);
          else item.reject(outcome.error);
        });
      };
      const outcomes = this.#commit(batch);
      if (outcomes instanceof Promise) {
        this.#inFlight++;
        outcomes
          .then(settle, (error) => settle(batch.map(() => ({ ok: false, error }))))
          .finally(() => {
            // Writes held back by the bound go now; with room to spare they wait for their own flush.
            const full = this.#inFlight === this.#maxInFlight;
            this.#inFlight--;
            if (full) this.flush();
          });
      } else settle(outcomes);
    }
  }
}

/** The end of the run of writes of `batch[from]`'s kind that starts at `from` (exclusive). */
export function runEnd<Kind>(batch: readonly QueuedWrite<Kind>[], from: number): number {
  const { kind } = batch[from]!;
  let end = from + 1;
  while (end < batch.length && batch[end]!.kind === kind) end++;
  return end;
}

/**
 * A kind of write whose every call is its own transaction (PostgreSQL): `many`
 * must have exactly the effect of `one` on each input in order, or throw
 * having written nothing.
 */
export interface CombinableLater<I, O> {
  one(input: I): Promise<O>;
  many?(inputs: I[]): Promise<O[]>;
}

const settled = (value: Promise<unknown>): Promise<Outcome> =>
  value.then(
    (done) => ({ ok: true, value: done }),
    (error) => ({ ok: false, error }),
  );

/**
 * Commits each run of one kind with one `many` call (one transaction); when
 * it fails, each write of the run again alone with `one`, so only the
 * writes refused on their own fail. The runs go concurrently.
 */
export const commitRunsApart: CommitBatch<CombinableLater<unknown, unknown>> = async (batch) => {
  const runs: Promise<Outcome[]>[] = [];
  for (let from = 0; from < batch.length; ) {
    const end = runEnd(batch, from);
    const { kind } = batch[from]!;
    const inputs = batch.slice(from, end).map((item) => item.input);
    const alone = () => Promise.all(inputs.map((input) => settled(kind.one(input))));
    runs.push(
      inputs.length === 1 || !kind.many
        ? alone()
        : kind
            .many(inputs)
            .then((values) => values.map((value): Outcome => ({ ok: true, value })), alone),
    );
    from = end;
  }
  return (await Promise.all(runs)).flat();
};
