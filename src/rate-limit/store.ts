import type { MaybePromise } from '@/kernel/maybe-promise';
import type { WindowKind } from './calendar';

/**
 * One limit to enforce. `minute` is the sliding 60-second base window; the
 * other kinds are UTC calendar windows.
 */
export interface WindowRule {
  kind: WindowKind;
  limit: number;
}

export interface WindowUsage {
  kind: WindowKind;
  limit: number;
  used: number;
  /** Epoch ms when the window frees room (calendar: its end; sliding: the oldest request ages out). */
  resetAt: number;
}

export interface HitResult {
  admitted: boolean;
  /** Usage of every rule, in rule order, after the hit was recorded (if admitted). */
  windows: WindowUsage[];
  /**
   * Refused: epoch ms when every window has room for the whole cost (a
   * sliding window frees one slot per request aging out, so a cost above 1
   * may have to wait past `resetAt`).
   */
  fitsAt?: number;
}

/**
 * Where usage lives: in the process (`MemoryStore`), or in the Redis the
 * instances share (`RedisRateLimitStore`, one script per hit). Either way
 * `hit` is one atomic step: check every window and record in all of them
 * only when all have room for its whole cost. The limiter never checks and records in two
 * calls, so no concurrent request can slip between them.
 */
export interface RateLimitStore {
  /** `cost` (default 1, at most the smallest limit): how many requests this one counts as. */
  hit(
    key: string,
    rules: readonly WindowRule[],
    now: number,
    cost?: number,
  ): MaybePromise<HitResult>;
  peek(key: string, rules: readonly WindowRule[], now: number): MaybePromise<WindowUsage[]>;
  /** Clears calendar windows that ended at or before `now`; returns how many. */
  resetExpired(now: number): MaybePromise<number>;
  /** Writes pending usage to durable storage. */
  flush(): MaybePromise<void>;
}
