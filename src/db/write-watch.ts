import type { Database, Statement } from 'bun:sqlite';
import type { Clock } from '@/kernel/clock';

/** How often, at most, to look for commits by another connection (another process). */
export const RECHECK_OTHERS_MS = 1000;

/**
 * Tells a cache when the database may have changed since it last looked:
 * any row written through this connection — `total_changes()`, triggers and
 * rolled-back writes included, exact and about 0.1 µs — or a commit by
 * another connection (`PRAGMA data_version`). The latter costs a read
 * transaction (about 2.5 µs), so it is looked at no more often than every
 * `recheckMs`: a write by another process (`pages:import`, `seed`) shows
 * within that time, a write through the service at once.
 */
export class WriteWatch {
  readonly #totalChanges: Statement;
  readonly #dataVersion: Statement;
  readonly #clock: Clock;
  readonly #recheckMs: number;
  #changes = -1;
  #version = -1;
  #checkedAt = Number.NEGATIVE_INFINITY;

  constructor(client: Database, clock: Clock, recheckMs = RECHECK_OTHERS_MS) {
    this.#totalChanges = client.prepare('SELECT total_changes()');
    this.#dataVersion = client.prepare('PRAGMA data_version');
    this.#clock = clock;
    this.#recheckMs = recheckMs;
  }

  /** True when something may have been written since the previous call (and on the first). */
  changed(): boolean {
    const changes = this.#totalChanges.values()[0]![0] as number;
    let changed = changes !== this.#changes;
    this.#changes = changes;
    const now = this.#clock();
    if (now - this.#checkedAt >= this.#recheckMs) {
      this.#checkedAt = now;
      const version = this.#dataVersion.values()[0]![0] as number;
      if (version !== this.#version) changed = true;
      this.#version = version;
    }
    return changed;
  }
}
