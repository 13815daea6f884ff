/**
 * Tells this process's long polls of GET /listings/events (`FeedWaits`) and
 * the delivery kick that events may have been committed, and whose. A write
 * calls `announceEvent` with what it appended: on SQLite inside its
 * transaction, on PostgreSQL once it committed (`announcedAfter`). The
 * audiences hear on a later macrotask, after the synchronous transaction
 * has committed (or rolled back: a waiter then finds nothing and waits
 * again). Writes of other processes are not announced: `FeedWaits` looks
 * for them once a second.
 */

/** Of one appended event, what tells who may see it. */
export interface Appended {
  /** The owner of the property concerned; null: employees only. */
  ownerId: string | null;
  type: string;
}

/** What was announced: the types appended for each owner (null: events no customer sees). */
export type Announced = ReadonlyMap<string | null, ReadonlySet<string>>;

/** Who hears the announcements, and the stop that ends every wait at once. */
export interface Audience {
  hear(announced: Announced): void;
  release(): void;
}

const audiences = new Set<Audience>();
/** Told of every announcement, for as long as they are subscribed (the delivery kick). */
const listeners = new Set<() => void>();
let pending = new Map<string | null, Set<string>>();
let scheduled = false;
let released = false;

/** Adds `appended` to the next announcement (one a macrotask, however many writes). */
export function announceEvent(appended: Iterable<Appended>): void {
  if (audiences.size === 0 && listeners.size === 0) return;
  for (const { ownerId, type } of appended) {
    const types = pending.get(ownerId);
    if (types) types.add(type);
    else pending.set(ownerId, new Set([type]));
  }
  if (scheduled) return;
  scheduled = true;
  setImmediate(() => {
    scheduled = false;
    const announced = pending;
    pending = new Map();
    if (announced.size === 0) return;
    for (const audience of audiences) audience.hear(announced);
    for (const listener of listeners) listener();
  });
}

/** Subscribes `audience` to the announcements and the stop; answers the unsubscribe. */
export function listenForEvents(audience: Audience): () => void {
  audiences.add(audience);
  return () => audiences.delete(audience);
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
  for (const audience of [...audiences]) audience.release();
}

export const waitsReleased = (): boolean => released;
