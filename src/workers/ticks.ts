import { Cron } from 'croner';

/** Cron patterns are read in UTC, like the plan windows of the customer API. */
export const SCHEDULE_TIMEZONE = 'UTC';

/** A tick stays marked done at least this long. */
const MIN_KEEP_DONE_MS = 60_000;

const scheduleOf = (pattern: string) =>
  new Cron(pattern, { timezone: SCHEDULE_TIMEZONE, paused: true });

/**
 * The latest tick of `pattern` at or before `now`: what every instance
 * names a run by, however late its timer fired.
 */
export function tickOf(pattern: string, now: number): number {
  return (
    scheduleOf(pattern)
      .previousRuns(1, new Date(now + 1))[0]
      ?.getTime() ?? now
  );
}

/** How long a finished tick stays marked done: past the next tick, so no late instance repeats it. */
export function keepDoneMs(pattern: string, tick: number): number {
  const next = scheduleOf(pattern).nextRun(new Date(tick))?.getTime() ?? tick;
  return Math.max(MIN_KEEP_DONE_MS, 2 * (next - tick));
}
