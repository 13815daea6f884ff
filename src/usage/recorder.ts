import type { Clock } from '@/kernel/clock';
import type { MaybePromise } from '@/kernel/maybe-promise';
import type { Logger } from '@/logger';
import { LATENCY_BOUNDS } from './latency';
import {
  HOUR_MS,
  KEPT_MS,
  MINUTE_MS,
  type Resolution,
  type UsageRow,
  type UsageStore,
} from './store';

/** Counts are written behind at most this long after they change. */
export const FLUSH_AFTER_MS = 5_000;

interface Cell {
  start: number;
  requests: number;
  errors: number;
  /** Per bound of LATENCY_BOUNDS, the last beyond them; empty for customer calls. */
  latency: number[];
  dirty: boolean;
}

/** A series' current minute and hour. */
interface Current {
  minute: Cell | undefined;
  hour: Cell;
}

const ROUTE = 'route:';
const CUSTOMER = 'customer:';
export const routeSeries = (group: string) => `${ROUTE}${group}`;
export const customerSeries = (sub: string) => `${CUSTOMER}${sub}`;

const newCell = (start: number, timed: boolean): Cell => ({
  start,
  requests: 0,
  errors: 0,
  latency: timed ? new Array<number>(LATENCY_BOUNDS.length + 1).fill(0) : [],
  dirty: false,
});

export interface UsageRecorderOptions {
  store: UsageStore;
  /** This process's name (GET /admin/jobs shows it): its rows are its own. */
  instance: string;
  clock: Clock;
  logger?: Logger;
}

/**
 * Counts requests by route group (per minute and per hour) and customer
 * API calls by customer (per hour) in memory, and writes them behind to the
 * usage store: each request costs a map lookup and a few increments; a
 * flush follows within FLUSH_AFTER_MS of a change, and on shutdown. Buckets
 * past their keeping time (KEPT_MS) are deleted by the first flush of each
 * hour.
 */
export class UsageRecorder {
  readonly #store: UsageStore;
  readonly #instance: string;
  readonly #clock: Clock;
  readonly #logger: Logger | undefined;
  readonly #current = new Map<string, Current>();
  /** Cells whose bucket has ended, not yet saved. */
  #ended: { series: string; resolution: Resolution; cell: Cell }[] = [];
  #timer: ReturnType<typeof setTimeout> | undefined;
  #prunedHour = -1;

  /** Where the figures are read back from (src/usage/figures.ts). */
  get store(): UsageStore {
    return this.#store;
  }

  constructor({ store, instance, clock, logger }: UsageRecorderOptions) {
    this.#store = store;
    this.#instance = instance;
    this.#clock = clock;
    this.#logger = logger;
  }

  /** One answered request of a route group; `latencyBucket` -1 when it was not timed. */
  observeRequest(group: string, status: number, latencyBucket: number): void {
    const now = this.#clock();
    const series = routeSeries(group);
    const current = this.#currentOf(series, now, true);
    for (const cell of [current.minute!, current.hour]) {
      cell.requests++;
      if (status >= 500) cell.errors++;
      if (latencyBucket >= 0) cell.latency[latencyBucket]! += 1;
      cell.dirty = true;
    }
    this.#schedule();
  }

  /** One call a customer made to the customer API (counted whether or not the limiter let it through). */
  countCall(sub: string): void {
    const current = this.#currentOf(customerSeries(sub), this.#clock(), false);
    current.hour.requests++;
    current.hour.dirty = true;
    this.#schedule();
  }

  #currentOf(series: string, now: number, perMinute: boolean): Current {
    const minute = now - (now % MINUTE_MS);
    const hour = now - (now % HOUR_MS);
    let current = this.#current.get(series);
    if (!current) {
      current = {
        minute: perMinute ? newCell(minute, true) : undefined,
        hour: newCell(hour, perMinute),
      };
      this.#current.set(series, current);
      return current;
    }
    if (current.minute && current.minute.start !== minute) {
      if (current.minute.dirty)
        this.#ended.push({ series, resolution: 'minute', cell: current.minute });
      current.minute = newCell(minute, true);
    }
    if (current.hour.start !== hour) {
      if (current.hour.dirty) this.#ended.push({ series, resolution: 'hour', cell: current.hour });
      current.hour = newCell(hour, perMinute);
    }
    return current;
  }

  #schedule(): void {
    if (this.#timer) return;
    this.#timer = setTimeout(() => {
      Promise.resolve(this.flush()).catch(() => undefined);
    }, FLUSH_AFTER_MS);
    this.#timer.unref?.();
  }

  /** What changed since the last flush, as the rows that hold it. */
  #changedRows(): { rows: UsageRow[]; cells: Cell[] } {
    const rows: UsageRow[] = [];
    const cells: Cell[] = [];
    const add = (series: string, resolution: Resolution, cell: Cell) => {
      cells.push(cell);
      const { start, requests, errors, latency } = cell;
      rows.push({
        resolution,
        series,
        start,
        instance: this.#instance,
        requests,
        errors,
        latency: [...latency],
      });
    };
    for (const { series, resolution, cell } of this.#ended) add(series, resolution, cell);
    this.#ended = [];
    for (const [series, { minute, hour }] of this.#current) {
      if (minute?.dirty) add(series, 'minute', minute);
      if (hour.dirty) add(series, 'hour', hour);
    }
    for (const cell of cells) cell.dirty = false;
    return { rows, cells };
  }

  /**
   * Saves every changed bucket (this instance's totals, replacing its
   * earlier rows) and, once an hour, deletes buckets past their keeping.
   * A failed save leaves its buckets to the next flush.
   */
  flush(): MaybePromise<void> {
    clearTimeout(this.#timer);
    this.#timer = undefined;
    const now = this.#clock();
    const { rows, cells } = this.#changedRows();
    const failed = (error: unknown) => {
      for (const cell of cells) cell.dirty = true;
      this.#logger?.error('usage flush failed', { error: String(error) });
      this.#schedule();
    };
    const prune = () => this.#prune(now);
    try {
      const saved = this.#store.save(rows);
      if (saved instanceof Promise) return saved.then(prune, failed);
    } catch (error) {
      failed(error);
      return;
    }
    return prune();
  }

  #prune(now: number): MaybePromise<void> {
    const hour = Math.floor(now / HOUR_MS);
    if (hour === this.#prunedHour) return;
    this.#prunedHour = hour;
    // Current cells of series not seen for an hour are dropped too: memory stays bounded.
    for (const [series, current] of this.#current) {
      if (current.hour.start < now - HOUR_MS && !current.hour.dirty) this.#current.delete(series);
    }
    const minute = this.#store.deleteBefore('minute', now - KEPT_MS.minute);
    const hourly = () => this.#store.deleteBefore('hour', now - KEPT_MS.hour);
    if (minute instanceof Promise) return minute.then(hourly).then(() => undefined);
    const done = hourly();
    if (done instanceof Promise) return done.then(() => undefined);
  }
}
