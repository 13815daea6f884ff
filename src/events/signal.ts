/**
 * Wakes the long polls of GET /listings/events when an event may have been
 * committed. A write calls `announceEvent` inside its transaction; the
 * waiters run on a later macrotask, after the synchronous transaction has
 * committed (or rolled back: they then find nothing and wait again). Writes
 * of other processes are not announced: waiters also look again every second.
 */
const waiters = new Set<() => void>();
/** Told of every announcement, for as long as they are subscribed (the delivery kick). */
const listeners = new Set<() => void>();
let scheduled = false;
let released = false;

export function announceEvent(): void {
  if (scheduled || (waiters.size === 0 && listeners.size === 0)) return;
  scheduled = true;
  setImmediate(() => {
    scheduled = false;
    const woken = [...waiters];
    waiters.clear();
    for (const wake of woken) wake();
    for (const listener of listeners) listener();
  });
}

/** Calls `listener` after commits that appended events; answers the unsubscribe. */
export function onEvents(listener: () => void): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

/**
 * Shutdown: every wait ends now and later ones at once, so the server's stop
 * (which waits for the requests in flight) is not held up by long polls.
 */
export function releaseWaits(): void {
  released = true;
  const woken = [...waiters];
  waiters.clear();
  for (const wake of woken) wake();
}

export const waitsReleased = (): boolean => released;

/** Resolves at the next announcement or after `ms`, whichever comes first. */
export function nextAnnouncement(ms: number, abort?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (released) return resolve();
    const done = () => {
      clearTimeout(timer);
      waiters.delete(done);
      abort?.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    waiters.add(done);
    abort?.addEventListener('abort', done, { once: true });
  });
}
