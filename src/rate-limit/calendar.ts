/** Window kinds of the rate limits, in the order they are reported. */
export const WINDOW_KINDS = ['minute', 'hour', 'day', 'week', 'month'] as const;
export type WindowKind = (typeof WINDOW_KINDS)[number];
export type CalendarKind = Exclude<WindowKind, 'minute'>;
export const CALENDAR_KINDS: readonly CalendarKind[] = ['hour', 'day', 'week', 'month'];

export const MINUTE_MS = 60_000;
const HOUR_MS = 3_600_000;
const DAY_MS = 86_400_000;
/** 1970-01-01 was a Thursday: Monday 1970-01-05 anchors the UTC weeks. */
const FIRST_MONDAY_MS = 4 * DAY_MS;

export interface Span {
  start: number;
  end: number;
}

/**
 * The UTC calendar window of a kind that contains `now`: hours
 * from :00, days from 00:00, weeks from Monday 00:00, months from the 1st.
 */
export function calendarSpan(kind: CalendarKind, now: number): Span {
  switch (kind) {
    case 'hour': {
      const start = now - (now % HOUR_MS);
      return { start, end: start + HOUR_MS };
    }
    case 'day': {
      const start = now - (now % DAY_MS);
      return { start, end: start + DAY_MS };
    }
    case 'week': {
      const weeks = Math.floor((now - FIRST_MONDAY_MS) / (7 * DAY_MS));
      const start = FIRST_MONDAY_MS + weeks * 7 * DAY_MS;
      return { start, end: start + 7 * DAY_MS };
    }
    case 'month': {
      const date = new Date(now);
      const year = date.getUTCFullYear();
      const month = date.getUTCMonth();
      return { start: Date.UTC(year, month, 1), end: Date.UTC(year, month + 1, 1) };
    }
  }
}

/** Whole seconds until `at` (at least 1 while it lies in the future). */
export const secondsUntil = (at: number, now: number) => Math.max(0, Math.ceil((at - now) / 1000));

/** ISO 8601 with an explicit UTC offset and whole seconds: `2026-11-22T12:01:00+00:00`. */
export function isoWithOffset(at: number): string {
  const rounded = Math.ceil(at / 1000) * 1000;
  return `${new Date(rounded).toISOString().slice(0, 19)}+00:00`;
}
