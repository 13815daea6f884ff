/**
 * Tells this process's long polls of GET /listings/events (`FeedWaits`) and
 * the delivery kick that events may have been committed, and whose. Each
 * store's append helper records what it appended (`recordAppended`) and
 * the transaction's runner announces it once committed
 * (`announcedOnceCommitted`), the same way on both databases. The
 * audiences hear on a later macrotask. Writes of other processes are not
 * announced: `FeedWaits` looks for them once a second.
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

/** What each open transaction appended so far, by the key its store's append helper names it with. */
const open = new WeakMap<object, Appended[]>();

/**
 * Runs a write's transaction and announces the events it appended once it
 * committed: on SQLite when the synchronous call returns, on PostgreSQL
 * when its promise settles (inside, COMMIT would still be on its way and
 * the delivery kick's run would find nothing yet). A transaction that
 * throws rolled back and announces nothing. `transaction` calls `hold` with
 * the key its appends report under (`recordAppended`), before the first;
 * one held already (a transaction nested in another on SQLite) leaves its
 * events to the outer one's announcement.
 */
export function announcedOnceCommitted<T>(transaction: (hold: (key: object) => void) => T): T {
  const appended: Appended[] = [];
  let held: object | undefined;
  const hold = (key: object) => {
    if (open.has(key)) return;
    open.set(key, appended);
    held = key;
  };
  const close = () => {
    if (held) open.delete(held);
  };
  const announce = () => {
    close();
    if (appended.length > 0) announceEvent(appended);
  };
  let result: T;
  try {
    result = transaction(hold);
  } catch (error) {
    close();
    throw error;
  }
  if (!(result instanceof Promise)) {
    announce();
    return result;
  }
  return result.then(
    (done) => {
      announce();
      return done;
    },
    (error: unknown) => {
      close();
      throw error;
    },
  ) as T;
}

/**
 * What an append helper calls after its insert: the events go with the
 * announcement of the transaction `key` names. In a transaction no
 * `announcedOnceCommitted` holds they are announced on the next macrotask, which a
 * synchronous SQLite transaction has ended by; a PostgreSQL waiter then may
 * read before the COMMIT, find nothing and wait for the next announcement
 * or look (`FeedWaits`).
 */
export function recordAppended(key: object, rows: readonly Appended[]): void {
  const appended = open.get(key);
  if (appended) for (const { ownerId, type } of rows) appended.push({ ownerId, type });
  else announceEvent(rows);
}
