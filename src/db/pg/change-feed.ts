import type { SQL } from 'bun';
import type { Change } from '@/db/change-feed';

/** Rows read at most per look; a longer backlog (an import) drops every answer instead. */
const MAX_BACKLOG = 4096;

/**
 * The event feed's position in the look's snapshot, as a list page reads it
 * (`FEED_POSITION`, src/listings/properties/postgres-list.ts): appends
 * commit in id order, so it is the last id committed before the snapshot.
 */
const FEED_POSITION = '(SELECT max(id) FROM events)::float8 AS feed';

/**
 * One statement, so one snapshot: the snapshot itself, the feed position in
 * it, whether the pruning removed rows the previous snapshot may not have
 * seen, and the rows that snapshot could not see (committed since, by any
 * instance). Only rows written at or after the previous snapshot's xmin can
 * be among them, which the index on `xid` finds.
 */
const LOOK = `SELECT pg_current_snapshot()::text AS snapshot, ${FEED_POSITION},
  (SELECT xid >= pg_snapshot_xmin($1::pg_snapshot) FROM cache_changes_pruned) AS lost,
  (SELECT json_agg(json_build_array(topic, key) ORDER BY seq) FROM (
    SELECT seq, topic, key FROM cache_changes
    WHERE xid >= pg_snapshot_xmin($1::pg_snapshot) AND NOT pg_visible_in_snapshot(xid, $1::pg_snapshot)
    ORDER BY seq LIMIT ${MAX_BACKLOG + 1}) AS unseen) AS changes`;

interface Look {
  snapshot: string;
  feed: number | null;
  lost: boolean | null;
  changes: [string, string][] | null;
}

/**
 * What was written since the previous look, row by row, by any instance:
 * the PostgreSQL twin of `ChangeFeed`, read from the same `cache_changes`
 * rows (written by triggers in the writing transaction, migrations-pg/0002).
 *
 * PostgreSQL hands out `seq` when a row is written, not when its transaction
 * commits, so "the rows after the last seq seen" could skip a row committed
 * late. A look instead keeps its snapshot and next asks for the rows that
 * snapshot could not see (`pg_visible_in_snapshot` on the writing
 * transaction's id, migrations-pg/0005): every commit is seen exactly once,
 * whatever the order. A look that starts after a write's COMMIT sees it, so
 * a cache that looks before answering serves nothing older than a 2xx any
 * instance has sent.
 *
 * Looks are one at a time: callers arriving while one runs share the next,
 * which starts once it ends (it began after all of them arrived), so a busy
 * instance makes one round trip per batch of reads, not per read.
 *
 * A look also reads the event feed's position in its snapshot
 * (`position`): a keyset walk's remembered first page, still valid after
 * the look, is the page as read at that position, with no query of its own.
 */
export class PostgresChangeFeed {
  readonly #client: SQL;
  #snapshot: string | undefined;
  #position: number | null = null;
  #running: Promise<boolean> | undefined;
  #next: Promise<boolean> | undefined;

  constructor(client: SQL) {
    this.#client = client;
  }

  /** Whether a first look has been made: before it, nothing read may be kept. */
  get started(): boolean {
    return this.#snapshot !== undefined;
  }

  /**
   * The last event id committed before the last look's snapshot: null
   * before the first look, after a look that failed, and when no event was
   * kept (the caller then reads the position its own way).
   */
  get position(): number | null {
    return this.#position;
  }

  /**
   * Hands every change since the previous look to `apply`, or calls `reset`
   * when they cannot all be told (the first look, more than the backlog,
   * pruned rows, a `reset` row). Resolves false when PostgreSQL could not
   * be asked: the caller must not use its cache for this read.
   */
  poll(apply: (change: Change) => void, reset: () => void): Promise<boolean> {
    if (this.#next) return this.#next;
    const running = this.#running;
    if (!running) return this.#start(apply, reset);
    const next = running.then(() => {
      this.#next = undefined;
      return this.#start(apply, reset);
    });
    this.#next = next;
    return next;
  }

  #start(apply: (change: Change) => void, reset: () => void): Promise<boolean> {
    const look = this.#look(apply, reset);
    this.#running = look;
    void look.then(() => {
      if (this.#running === look) this.#running = undefined;
    });
    return look;
  }

  async #look(apply: (change: Change) => void, reset: () => void): Promise<boolean> {
    try {
      const previous = this.#snapshot;
      if (previous === undefined) {
        const [row] = await this.#client.unsafe<Pick<Look, 'snapshot' | 'feed'>[]>(
          `SELECT pg_current_snapshot()::text AS snapshot, ${FEED_POSITION}`,
        );
        this.#snapshot = row!.snapshot;
        this.#position = row!.feed;
        reset();
        return true;
      }
      const [row] = await this.#client.unsafe<Look[]>(LOOK, [previous]);
      const { snapshot, feed, lost, changes } = row!;
      this.#snapshot = snapshot;
      this.#position = feed;
      if (
        lost === true ||
        (changes !== null && changes.length > MAX_BACKLOG) ||
        changes?.some(([topic]) => topic === 'reset')
      ) {
        reset();
        return true;
      }
      for (const [topic, key] of changes ?? []) apply({ topic, key });
      return true;
    } catch {
      this.#position = null;
      // Unreachable or failing: the read goes to PostgreSQL itself, which answers (or fails) for it.
      return false;
    }
  }
}
