import { type MaybePromise, whenReady } from '@/kernel/maybe-promise';
import type { Logger } from '@/logger';
import { type CalendarKind, calendarSpan, MINUTE_MS } from './calendar';
import { SlidingLog } from './sliding-log';
import type { HitResult, RateLimitStore, WindowRule, WindowUsage } from './store';
import type { SyncWindowPersistence, WindowPersistence } from './window-persistence';
import { CalendarWriteBehind, type Counter } from './write-behind';

interface Entry {
  log: SlidingLog;
  /** Calendar windows, loaded from persistence the first time a rule needs them. */
  calendar?: Map<CalendarKind, Counter>;
  lastSeen: number;
}

/** How often (clock time) idle callers are swept out. */
const SWEEP_EVERY_MS = 10_000;

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
  /** Absent without a persistence: calendar usage lives in memory only. */
  readonly #stored?: CalendarWriteBehind<P>;
  #nextSweep = 0;

  constructor({ persistence, logger }: MemoryStoreOptions<P> = {}) {
    if (persistence) this.#stored = new CalendarWriteBehind(persistence, logger);
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
    return this.#stored ? this.#stored.deleteExpired(now) : cleared;
  }

  flush(): AnswerOf<P, void> {
    return this.#stored?.flush() as AnswerOf<P, void>;
  }

  /**
   * With a persistence that answers later, loads the caller's stored windows
   * before the step that needs them (undefined: nothing to wait for).
   */
  #loading(key: string, rules: readonly WindowRule[]): Promise<void> | undefined {
    if (rules.length <= 1 || !this.#stored) return;
    return this.#stored.prefetch(key, () => this.#entries.get(key)?.calendar !== undefined);
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
    if (!entry.calendar && rules.length > 1) entry.calendar = this.#stored?.load(key) ?? new Map();
    return entry;
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
    this.#stored?.changed(key, kind, counter);
  }

  /**
   * Forgets callers idle for a whole minute: their sliding window is
   * empty and their calendar usage is stored (pending writes stay in the
   * write-behind until flushed, and `load` prefers them). Without persistence,
   * an caller is kept while one of its calendar windows is still running.
   */
  #sweep(now: number): void {
    this.#nextSweep = now + SWEEP_EVERY_MS;
    for (const [key, entry] of this.#entries) {
      if (now - Math.max(entry.lastSeen, entry.log.newest) < MINUTE_MS) continue;
      if (!this.#stored && [...(entry.calendar?.values() ?? [])].some((c) => c.end > now)) {
        continue;
      }
      this.#entries.delete(key);
    }
  }
}
