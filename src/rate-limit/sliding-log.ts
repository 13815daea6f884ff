import { MINUTE_MS } from './calendar';

const INITIAL_CAPACITY = 8;

/**
 * The exact sliding 60-second window of one caller: a ring buffer holding
 * the times of the admitted requests still inside the window, oldest first.
 * It never holds more than `limit` entries, so memory is bounded by the
 * limit, and it starts small because most callers send few requests.
 * A request at `t` counts until `now - t >= 60 s`.
 */
export class SlidingLog {
  #times: Float64Array;
  #head = 0;
  #size = 0;
  #limit: number;

  constructor(limit: number) {
    this.#limit = limit;
    this.#times = new Float64Array(Math.min(limit, INITIAL_CAPACITY));
  }

  get limit(): number {
    return this.#limit;
  }

  /** Drops the requests that left the window; returns how many remain. */
  count(now: number): number {
    const times = this.#times;
    while (this.#size > 0 && now - times[this.#head]! >= MINUTE_MS) {
      this.#head = (this.#head + 1) % times.length;
      this.#size--;
    }
    return this.#size;
  }

  /** When the oldest request leaves the window (a full window from `now` when empty). */
  resetAt(now: number): number {
    return this.#size > 0 ? this.#times[this.#head]! + MINUTE_MS : now + MINUTE_MS;
  }

  /**
   * When the window has room for `cost` more: the moment the request that
   * must leave last for it ages out (`now` when it has room already).
   */
  fitsAt(now: number, cost: number): number {
    // A cost above the limit never fits: the callers keep it within the limit.
    const leaving = Math.min(this.count(now) + cost - this.#limit, this.#size);
    if (leaving <= 0) return now;
    return this.#times[(this.#head + leaving - 1) % this.#times.length]! + MINUTE_MS;
  }

  /** Time of the newest request, or -Infinity. */
  get newest(): number {
    if (this.#size === 0) return Number.NEGATIVE_INFINITY;
    return this.#times[(this.#head + this.#size - 1) % this.#times.length]!;
  }

  /** Records a request; the caller has checked `count(now) < limit`. */
  push(now: number): void {
    if (this.#size === this.#times.length) this.#resize(Math.min(this.#limit, this.#size * 2));
    this.#times[(this.#head + this.#size) % this.#times.length] = now;
    this.#size++;
  }

  /**
   * A new limit (plan or employee setting changed). Lowering it keeps the
   * newest `limit` requests: while they are all inside the window, the
   * window is full, which is exactly when the lower limit refuses.
   */
  setLimit(limit: number): void {
    if (limit === this.#limit) return;
    this.#limit = limit;
    if (this.#size > limit) {
      this.#head = (this.#head + this.#size - limit) % this.#times.length;
      this.#size = limit;
    }
    if (this.#times.length > limit) this.#resize(limit);
  }

  #resize(capacity: number): void {
    const next = new Float64Array(Math.max(capacity, 1));
    for (let i = 0; i < this.#size; i++) {
      next[i] = this.#times[(this.#head + i) % this.#times.length]!;
    }
    this.#times = next;
    this.#head = 0;
  }
}
