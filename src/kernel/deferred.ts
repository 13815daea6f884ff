/**
 * Work a request starts and answers before it is done: each task runs on
 * a later turn of the event loop (`setImmediate`), after the answer has
 * been handed to the socket, and is tracked until it settles, so a
 * graceful shutdown can wait for it (`drain`) before the database closes.
 * A task's failure reaches nobody's answer: it goes to `onError` (the log).
 */
export class DeferredWork {
  readonly #pending = new Set<Promise<void>>();
  readonly #onError: (error: unknown) => void;

  constructor(onError: (error: unknown) => void) {
    this.#onError = onError;
  }

  /** Runs `task` after the current turn; tracked until it settles. */
  defer(task: () => unknown): void {
    const settled = new Promise<void>((resolve) => setImmediate(resolve))
      .then(task)
      .then(
        () => undefined,
        (error: unknown) => this.#onError(error),
      )
      .finally(() => this.#pending.delete(settled));
    this.#pending.add(settled);
  }

  /** Tasks deferred and not settled yet. */
  get pending(): number {
    return this.#pending.size;
  }

  /** Resolves once every task deferred so far, and any they deferred in turn, has settled. */
  async drain(): Promise<void> {
    while (this.#pending.size > 0) await Promise.all([...this.#pending]);
  }
}
