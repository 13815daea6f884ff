/**
 * A value a store gives at once (SQLite, the in-process limiter) or later
 * (PostgreSQL, Redis). Callers chain on it with `whenReady` so the
 * synchronous path stays synchronous.
 */
export type MaybePromise<T> = T | Promise<T>;

/**
 * `f` of a value the store may still be answering: at once with the
 * in-process store, after the promise with a shared one, so the in-process
 * path stays synchronous.
 */
export const whenReady = <T, U>(
  value: MaybePromise<T>,
  f: (ready: T) => MaybePromise<U>,
): MaybePromise<U> => (value instanceof Promise ? value.then(f) : f(value));
