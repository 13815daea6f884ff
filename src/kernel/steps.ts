/**
 * An operation written once for every store: a generator that yields each
 * query it needs and gets its result back. SQLite answers every query at
 * once, so `runNow` drives the operation to its end inside a synchronous
 * `bun:sqlite` transaction; PostgreSQL answers later, so `runLater` awaits
 * each query inside `sql.begin`. The rules between the queries (what is
 * checked, in which order, which error is thrown, what is recorded) are
 * thus the same code for both (docs/postgresql.md, "Stores").
 */
export type Steps<T> = Generator<unknown, T, unknown>;

/** One query of an operation: `const row = yield* step(tables.find(id))`. */
export function* step<T>(query: T | Promise<T>): Generator<T | Promise<T>, T, unknown> {
  // The driver sends back exactly what the query answered (awaited by `runLater`).
  return (yield query) as T;
}

/**
 * Runs an operation whose queries all answer at once. A query answering
 * with a promise is a bug: awaiting inside a `bun:sqlite` transaction would
 * run the rest of it outside the transaction.
 */
export function runNow<T>(steps: Steps<T>): T {
  let next = steps.next();
  while (!next.done) {
    if (next.value instanceof Promise) {
      throw new Error('an operation run synchronously was handed an asynchronous query');
    }
    next = steps.next(next.value);
  }
  return next.value;
}

/** Runs an operation whose queries answer later, one after the other. */
export async function runLater<T>(steps: Steps<T>): Promise<T> {
  let next = steps.next();
  while (!next.done) next = steps.next(await next.value);
  return next.value;
}
