import { type MaybePromise, whenReady } from '@/kernel/maybe-promise';
import type { Logger } from '@/logger';
import { type CalendarKind, calendarSpan, MINUTE_MS } from './calendar';
import { SlidingLog } from './sliding-log';
import type { HitResult, RateLimitStore, WindowRule, WindowUsage } from './store';
import type { StoredWindow, SyncWindowPersistence, WindowPersistence } from './window-persistence';

interface Counter {
  start: number;
  end: number;
  used: number;
}

interface Entry {
  log: SlidingLog;
  /** Calendar windows, loaded from persistence the first time a rule needs them. */
  calendar?: Map<CalendarKind, Counter>;
  lastSeen: number;
}

/** How often (clock time) idle callers are swept out. */
const SWEEP_EVERY_MS = 10_000;
/** Write-behind delay: a crash loses at most this much calendar usage. */
const FLUSH_AFTER_MS = 1_000;

export interface MemoryStoreOptions<P extends WindowPersistence> {
  persistence?: P;
  logger?: Logger;
}

/** What a call answers: at once where the persistence answers at once (or there is none). */
type AnswerOf<P extends WindowPersistence, T> = P extends SyncWindowPersistence
  ? T
  : MaybePromise<T>;

/**
 * The in-process store. `hit` — check all windows, then record in all —
 * is one synchronous step that runs to completion before any other request
 * is looked at: exact under any concurrency in one process. Only loading a
 * caller's stored calendar windows from a persistence that answers later
 * (PostgreSQL) happens before that step, never inside it.
 */

export class MemoryStore<P extends WindowPersistence = SyncWindowPersistence>
  implements RateLimitStore
{
  readonly #entries = new Map<string, Entry>();
  readonly #dirty = new Map<string, Map<CalendarKind, Counter>>();
  /** Counters being saved by a flush that answers later: newer than what is stored. */
  #saving = new Map<string, Map<CalendarKind, Counter>>();
  /** Stored windows loaded ahead of the step that installs them (`#loading`). */
  readonly #fetched = new Map<string, StoredWindow[]>();
  readonly #persistence?: P;
  readonly #logger?: Logger;
  #nextSweep = 0;
  #flushTimer: ReturnType<typeof setTimeout> | undefined;

  constructor({ persistence, logger }: MemoryStoreOptions<P> = {}) {
    this.#persistence = persistence;
    this.#logger = logger;
  }

  /** Callers held in memory (for tests and metrics). */
  get size(): number {
    return this.#entries.size;
  }

  // The casts below only narrow: without a promise from the persistence, none is made.

  hit(key: string, rules: readonly WindowRule[], now: number, cost = 1): AnswerOf<P, HitResult> {
    const loading = this.#loading(key, rules);
    return (
      loading
        ? loading.then(() => this.#hit(key, rules, now, cost))
        : this.#hit(key, rules, now, cost)
    ) as AnswerOf<P, HitResult>;
  }

  peek(key: string, rules: readonly WindowRule[], now: number): AnswerOf<P, WindowUsage[]> {
    const loading = this.#loading(key, rules);
    return (
      loading ? loading.then(() => this.#peek(key, rules, now)) : this.#peek(key, rules, now)
    ) as AnswerOf<P, WindowUsage[]>;
  }

  #hit(key: string, rules: readonly WindowRule[], now: number, cost: number): HitResult {
    if (now >= this.#nextSweep) this.#sweep(now);
    const entry = this.#entry(key, rules, now);
    entry.lastSeen = now;
    let fitsAt = now;
    for (const rule of rules) {
      if (this.#used(entry, rule, now) + cost <= rule.limit) continue;
      const at =
        rule.kind === 'minute'
          ? entry.log.fitsAt(now, cost)
          : this.#counter(entry, rule.kind, now).end;
      fitsAt = Math.max(fitsAt, at);
    }
    if (fitsAt > now) return { admitted: false, windows: this.#usages(entry, rules, now), fitsAt };
    for (const rule of rules) {
      if (rule.kind === 'minute') for (let i = 0; i < cost; i++) entry.log.push(now);
      else this.#record(key, rule.kind, this.#counter(entry, rule.kind, now), cost);
    }
    return { admitted: true, windows: this.#usages(entry, rules, now) };
  }

  #peek(key: string, rules: readonly WindowRule[], now: number): WindowUsage[] {
    return this.#usages(this.#entry(key, rules, now), rules, now);
  }

  resetExpired(now: number): AnswerOf<P, number> {
    return whenReady(this.flush(), () => this.#resetExpired(now)) as AnswerOf<P, number>;
  }

  #resetExpired(now: number): MaybePromise<number> {
    let cleared = 0;
    for (const entry of this.#entries.values()) {
      for (const [kind, counter] of entry.calendar ?? []) {
        if (counter.end > now) continue;
        entry.calendar!.delete(kind);
        cleared++;
      }
    }
    this.#sweep(now);
    return this.#persistence ? this.#persistence.deleteExpired(now) : cleared;
  }

  flush(): AnswerOf<P, void> {
    clearTimeout(this.#flushTimer);
    this.#flushTimer = undefined;
    if (this.#dirty.size === 0 || !this.#persistence) return;
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
        const settled = saved.catch(failed).finally(() => {
          if (this.#saving === flushing) this.#saving = new Map();
        });
        return settled as AnswerOf<P, void>;
      }
    } catch (error) {
      failed(error);
    }
    return undefined as AnswerOf<P, void>;
  }

  /**
   * With a persistence that answers later, loads the caller's stored windows
   * before the step that needs them (undefined: nothing to wait for). Two
   * requests of a new caller may both load; the first to finish installs
   * its rows, and the other finds them installed.
   */
  #loading(key: string, rules: readonly WindowRule[]): Promise<void> | undefined {
    if (rules.length <= 1 || !this.#persistence || this.#fetched.has(key)) return;
    if (this.#entries.get(key)?.calendar) return;
    const rows = this.#persistence.load(key);
    if (!(rows instanceof Promise)) {
      this.#fetched.set(key, rows);
      return;
    }
    return rows.then((loaded) => {
      if (!this.#entries.get(key)?.calendar) this.#fetched.set(key, loaded);
    });
  }

  #entry(key: string, rules: readonly WindowRule[], now: number): Entry {
    const minute = rules[0]!.kind === 'minute' ? rules[0]!.limit : Number.POSITIVE_INFINITY;
    let entry = this.#entries.get(key);
    if (!entry) {
      entry = { log: new SlidingLog(minute), lastSeen: now };
      this.#entries.set(key, entry);
    } else if (entry.log.limit !== minute) {
      entry.log.setLimit(minute);
    }
    if (!entry.calendar && rules.length > 1) entry.calendar = this.#load(key);
    return entry;
  }

  #load(key: string): Map<CalendarKind, Counter> {
    const counters = new Map<CalendarKind, Counter>();
    // Pending writes win over what is stored (an entry evicted before its flush).
    const pending = this.#dirty.get(key) ?? this.#saving.get(key);
    const stored = this.#fetched.get(key) ?? [];
    this.#fetched.delete(key);
    for (const row of stored) {
      counters.set(row.kind, pending?.get(row.kind) ?? { ...row });
    }
    for (const [kind, counter] of pending ?? []) counters.set(kind, counter);
    return counters;
  }

  /** The counter of the calendar window containing `now` (a new one when the old ended). */
  #counter(entry: Entry, kind: CalendarKind, now: number): Counter {
    entry.calendar ??= new Map();
    const calendar = entry.calendar;
    const current = calendar.get(kind);
    if (current && current.start <= now && now < current.end) return current;
    const span = calendarSpan(kind, now);
    const counter = { start: span.start, end: span.end, used: 0 };
    calendar.set(kind, counter);
    return counter;
  }

  #used(entry: Entry, rule: WindowRule, now: number): number {
    return rule.kind === 'minute'
      ? entry.log.count(now)
      : this.#counter(entry, rule.kind, now).used;
  }

  #usages(entry: Entry, rules: readonly WindowRule[], now: number): WindowUsage[] {
    return rules.map((rule) => {
      if (rule.kind === 'minute') {
        return {
          kind: rule.kind,
          limit: rule.limit,
          used: entry.log.count(now),
          resetAt: entry.log.resetAt(now),
        };
      }
      const counter = this.#counter(entry, rule.kind, now);
      return { kind: rule.kind, limit: rule.limit, used: counter.used, resetAt: counter.end };
    });
  }

  #record(key: string, kind: CalendarKind, counter: Counter, cost: number): void {
    counter.used += cost;
    if (!this.#persistence) return;
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

  /**
   * Forgets callers idle for a whole minute: their sliding window is
   * empty and their calendar usage is stored (pending writes stay in
   * `#dirty` until flushed, and `#load` prefers them). Without persistence,
   * an caller is kept while one of its calendar windows is still running.
   */
  #sweep(now: number): void {
    this.#nextSweep = now + SWEEP_EVERY_MS;
    for (const [key, entry] of this.#entries) {
      if (now - Math.max(entry.lastSeen, entry.log.newest) < MINUTE_MS) continue;
      if (!this.#persistence && [...(entry.calendar?.values() ?? [])].some((c) => c.end > now)) {
        continue;
      }
      this.#entries.delete(key);
    }
  }
}
