/** Shapes of reported usage: window records, plan limits, the window to report. */
import type { PlanRow } from '@/db/sqlite/schema';
import { calendarSpan, isoWithOffset, secondsUntil, type WindowKind } from './calendar';
import type { WindowUsage } from './store';

/** A rate-limit window record, as `GET /api/v1/tokens/limits` and the 429 body show it. */
export interface WindowRecord {
  window: WindowKind;
  limit: number;
  used: number;
  remaining: number;
  resets_in_seconds: number;
  resets_at: string;
}

const WINDOW_SECONDS: Record<Exclude<WindowKind, 'month'>, number> = {
  minute: 60,
  hour: 3600,
  day: 86_400,
  week: 604_800,
};

export type PlanLimits = Partial<Record<WindowKind, number>>;

/** The `limits` object of a stored plan (unset kinds omitted). */
export function planLimitsOf(row: PlanRow): PlanLimits {
  const limits: PlanLimits = {};
  const columns = {
    minute: row.minuteLimit,
    hour: row.hourLimit,
    day: row.dayLimit,
    week: row.weekLimit,
    month: row.monthLimit,
  };
  for (const [kind, value] of Object.entries(columns)) {
    if (value !== null) limits[kind as WindowKind] = value;
  }
  return limits;
}

/**
 * The window to report: the fewest remaining; among equals (every exhausted
 * window has none left) the one that resets last, so retrying at its reset
 * finds room in all of them (on a tie, the longer window).
 */
export function tightestOf(windows: readonly WindowUsage[]): WindowUsage {
  let best = windows[0]!;
  for (const usage of windows) {
    const left = usage.limit - usage.used;
    const bestLeft = best.limit - best.used;
    if (
      Math.max(0, left) < Math.max(0, bestLeft) ||
      (Math.max(0, left) === Math.max(0, bestLeft) && usage.resetAt >= best.resetAt)
    ) {
      best = usage;
    }
  }
  return best;
}

export function windowSeconds(kind: WindowKind, now: number): number {
  if (kind !== 'month') return WINDOW_SECONDS[kind];
  const span = calendarSpan('month', now);
  return (span.end - span.start) / 1000;
}

export function windowRecord(usage: WindowUsage, now: number): WindowRecord {
  return {
    window: usage.kind,
    limit: usage.limit,
    used: usage.used,
    remaining: Math.max(0, usage.limit - usage.used),
    resets_in_seconds: secondsUntil(usage.resetAt, now),
    resets_at: isoWithOffset(usage.resetAt),
  };
}

/**
 * What the rate-limit headers of a count report, as numbers (src/api writes
 * the headers): every window's limit and length, and the window closest to
 * refusing.
 */
export interface Quota {
  /** Every window, in rule order: its limit and its length in seconds. */
  policy: readonly { limit: number; seconds: number }[];
  limit: number;
  remaining: number;
  /** Whole seconds until it frees room. */
  resetInSeconds: number;
  /** The epoch second it frees room, rounded up. */
  resetAt: number;
}

export function quotaOf(windows: readonly WindowUsage[], now: number): Quota {
  const tightest = tightestOf(windows);
  const policy = windows.map((usage) => ({
    limit: usage.limit,
    seconds: windowSeconds(usage.kind, now),
  }));
  return {
    policy,
    limit: tightest.limit,
    remaining: Math.max(0, tightest.limit - tightest.used),
    resetInSeconds: secondsUntil(tightest.resetAt, now),
    resetAt: Math.ceil(tightest.resetAt / 1000),
  };
}
