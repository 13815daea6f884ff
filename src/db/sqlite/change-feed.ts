import type { Database, Statement } from 'bun:sqlite';
import type { Change } from '@/db/change-feed';
import { walIndexOf } from './wal-index';

/** Rows read at most per look; a longer backlog (an import) drops every answer instead. */
const MAX_BACKLOG = 4096;

/**
 * What was written since the previous look, row by row, whoever wrote it.
 * Every write to a table a cache reads appends a row to `cache_changes` in
 * its own transaction (triggers, migrations/0009_cache-changes.sql); this
 * reads the rows after the last one seen. Reading them only when something
 * may have been committed keeps a look cheap:
 * - every commit, by this connection or any other process, rewrites the
 *   wal-index header at the start of the `-shm` file (its frame count,
 *   checksums and salts; the header is the commit point of a WAL
 *   transaction), which is compared through a shared memory map of the file:
 *   no system call and no SQLite statement per look.
 * - Without a `-shm` file (`:memory:`, another journal mode) a write through
 *   this connection moves `total_changes()` and one by another connection
 *   `PRAGMA data_version`: two statements each look.
 * A write committed before a look is therefore seen by that look.
 */
export class ChangeFeed {
  readonly #client: Database;
  readonly #totalChanges: Statement;
  readonly #dataVersion: Statement;
  readonly #rows: Statement<{ seq: number; topic: string; key: string }, [number]>;
  readonly #maxSeq: Statement<{ seq: number }, []>;
  #header: Int32Array | undefined;
  #seenHeader = new Int32Array(12);
  #changes = -1;
  #version = -1;
  #seq: number;

  constructor(client: Database) {
    this.#client = client;
    this.#totalChanges = client.prepare('SELECT total_changes()');
    this.#dataVersion = client.prepare('PRAGMA data_version');
    this.#rows = client.prepare(
      `SELECT seq, topic, key FROM cache_changes WHERE seq > ? ORDER BY seq LIMIT ${MAX_BACKLOG + 1}`,
    );
    this.#maxSeq = client.prepare('SELECT coalesce(max(seq), 0) AS seq FROM cache_changes');
    this.#seq = this.#maxSeq.get()!.seq;
    this.#header = walIndexOf(client);
    if (this.#header) this.#seenHeader.set(this.#header);
    this.#changes = this.#totalChanges.values()[0]![0] as number;
    this.#version = this.#dataVersion.values()[0]![0] as number;
  }

  /**
   * Hands every change since the previous call to `apply`, or calls `reset`
   * when they cannot all be told (more than the backlog, pruned rows, a
   * `reset` row). False inside an open transaction: its rows may still be
   * rolled back, so nothing is read and the caller must not use its cache.
   */
  poll(apply: (change: Change) => void, reset: () => void): boolean {
    if (this.#client.inTransaction) return false;
    if (!this.#mayHaveChanged()) return true;
    const rows = this.#rows.all(this.#seq);
    const first = rows[0];
    if (
      rows.length > MAX_BACKLOG ||
      (first !== undefined && first.seq !== this.#seq + 1) ||
      rows.some((row) => row.topic === 'reset')
    ) {
      this.#seq = this.#maxSeq.get()!.seq;
      reset();
      return true;
    }
    for (const row of rows) apply(row);
    if (rows.length > 0) this.#seq = rows[rows.length - 1]!.seq;
    return true;
  }

  #mayHaveChanged(): boolean {
    const header = this.#header;
    if (header) {
      const seen = this.#seenHeader;
      for (let i = 0; i < 12; i++) {
        if (header[i] !== seen[i]) {
          // Copied before the rows are read: a commit landing meanwhile is seen next time.
          seen.set(header);
          return true;
        }
      }
      return false;
    }
    const changes = this.#totalChanges.values()[0]![0] as number;
    const version = this.#dataVersion.values()[0]![0] as number;
    const changed = changes !== this.#changes || version !== this.#version;
    this.#changes = changes;
    this.#version = version;
    return changed;
  }
}
