import type { MaybePromise } from '@/kernel/maybe-promise';
import type { Logger } from '@/logger';
import type { CalendarKind } from './calendar';
import type { StoredWindow, WindowPersistence } from './window-persistence';

/** A calendar window's usage: `used` requests between `start` and `end` (epoch ms). */
export interface Counter {
  start: number;
  end: number;
  used: number;
}

/** Write-behind delay: a crash loses at most this much calendar usage. */
const FLUSH_AFTER_MS = 1_000;

/**
 * The in-process store's calendar counters and their persistence: stored
 * windows loaded ahead of the step that installs them, changed counters
 * saved in batches at most `FLUSH_AFTER_MS` later.
 */
export class CalendarWriteBehind<P extends WindowPersistence> {
  readonly #persistence: P;
  readonly #logger?: Logger;
  readonly #dirty = new Map<string, Map<CalendarKind, Counter>>();
  /** Counters being saved by a flush that answers later: newer than what is stored. */
  #saving = new Map<string, Map<CalendarKind, Counter>>();
  /** Stored windows loaded ahead of the step that installs them (`prefetch`). */
  readonly #fetched = new Map<string, StoredWindow[]>();
  #flushTimer: ReturnType<typeof setTimeout> | undefined;

  constructor(persistence: P, logger?: Logger) {
    this.#persistence = persistence;
    this.#logger = logger;
  }

  /**
   * Loads a caller's stored windows before the step that needs them
   * (undefined: nothing to wait for). Two requests of a new caller may both
   * load; the first to finish installs its rows, and the other finds them
   * installed (`installed`).
   */
  prefetch(key: string, installed: () => boolean): Promise<void> | undefined {
    if (this.#fetched.has(key) || installed()) return;
    const rows = this.#persistence.load(key);
    if (!(rows instanceof Promise)) {
      this.#fetched.set(key, rows);
      return;
    }
    return rows.then((loaded) => {
      if (!installed()) this.#fetched.set(key, loaded);
    });
  }

  /** The caller's counters: what `prefetch` loaded, pending writes winning (an entry evicted before its flush). */
  load(key: string): Map<CalendarKind, Counter> {
    const counters = new Map<CalendarKind, Counter>();
    const pending = this.#dirty.get(key) ?? this.#saving.get(key);
    const stored = this.#fetched.get(key) ?? [];
    this.#fetched.delete(key);
    for (const row of stored) {
      counters.set(row.kind, pending?.get(row.kind) ?? { ...row });
    }
    for (const [kind, counter] of pending ?? []) counters.set(kind, counter);
    return counters;
  }

  /** A counter changed: saved by the next flush, scheduled if none is. */
  changed(key: string, kind: CalendarKind, counter: Counter): void {
    let pending = this.#dirty.get(key);
    if (!pending) {
      pending = new Map();
      this.#dirty.set(key, pending);
    }
    pending.set(kind, counter);
    if (!this.#flushTimer) {
      this.#flushTimer = setTimeout(() => this.flush(), FLUSH_AFTER_MS);
      this.#flushTimer.unref?.();
    }
  }

  flush(): MaybePromise<void> {
    clearTimeout(this.#flushTimer);
    this.#flushTimer = undefined;
    if (this.#dirty.size === 0) return;
    const flushing = new Map(this.#dirty);
    this.#dirty.clear();
    const rows: StoredWindow[] = [];
    for (const [subject, counters] of flushing) {
      for (const [kind, { start, end, used }] of counters) {
        rows.push({ subject, kind, start, end, used });
      }
    }
    const failed = (error: unknown) => {
      // Dirty again: the next hit schedules another attempt. Counters hit
      // while a later save was under way are already dirty and stay so.
      for (const [subject, counters] of flushing) {
        const pending = this.#dirty.get(subject) ?? new Map();
        for (const [kind, counter] of counters) if (!pending.has(kind)) pending.set(kind, counter);
        this.#dirty.set(subject, pending);
      }
      this.#logger?.error('rate-limit flush failed', { error: String(error) });
    };
    try {
      const saved = this.#persistence.save(rows);
      if (saved instanceof Promise) {
        this.#saving = flushing;
        return saved.catch(failed).finally(() => {
          if (this.#saving === flushing) this.#saving = new Map();
        });
      }
    } catch (error) {
      failed(error);
    }
  }

  deleteExpired(now: number): MaybePromise<number> {
    return this.#persistence.deleteExpired(now);
  }
}
