import type { MaybePromise } from '@/kernel/maybe-promise';
import { type Steps, step } from '@/kernel/steps';
import {
  type AuditContext,
  type AuditEntry,
  auditRowOf,
  CALLER_ACTIONS,
  type NewAuditEvent,
} from './record';

/**
 * Bounded rows (docs/accounts.md, "Bounded rows"). A caller may repeat
 * an account action as often as the limits of its route allow, but the log
 * does not grow one row a repeat. Per counter and window, the first
 * `rowsPerHour` events are written one row each and the rest are counted
 * into one more row (its `count`, its `lastAt`), so a counter writes at
 * most `rowsPerHour + 1` rows an hour, whatever the caller does.
 */
export interface AuditLimits {
  /** Rows of one caller action per counter and hour before the rest are counted (AUDIT_ROWS_PER_CALLER_PER_HOUR). */
  rowsPerHour: number;
}

export const DEFAULT_AUDIT_ROWS_PER_HOUR = 20;
export const DEFAULT_AUDIT_LIMITS: AuditLimits = { rowsPerHour: DEFAULT_AUDIT_ROWS_PER_HOUR };

const HOUR_MS = 60 * 60 * 1000;

/** How one event is counted: its counter in its window, and the rows written before counting. */
export interface Counting {
  /** Action, counter and window start: the same for every event counted together. */
  key: string;
  windowEndsAt: number;
  /** Events written one row each before the rest of the window is counted into one. */
  rowsBeforeCounting: number;
}

/**
 * The counting of an event: a refusal by its own counter and window from
 * the first event; another caller action by the account it concerns (the
 * client address when none) per hour after `rowsPerHour` rows; an
 * employee's or a tool's action is never counted.
 */
export function countingOf(
  context: AuditContext,
  entry: AuditEntry,
  limits: AuditLimits,
): Counting | undefined {
  const rule = entry.counter
    ? { counter: entry.counter.key, windowMs: entry.counter.windowMs, rows: 0 }
    : CALLER_ACTIONS.has(entry.action)
      ? {
          counter: entry.subject ? `account ${entry.subject}` : `address ${context.ip}`,
          windowMs: HOUR_MS,
          rows: limits.rowsPerHour,
        }
      : undefined;
  if (!rule) return undefined;
  const start = Math.floor(context.at / rule.windowMs) * rule.windowMs;
  return {
    key: `${entry.action} ${rule.counter} ${start}`,
    windowEndsAt: start + rule.windowMs,
    rowsBeforeCounting: rule.rows,
  };
}

/** The queries of an event's write, on one store inside the action's transaction. */
export interface AuditRowTables {
  /** Counts one more event of `key`; the events counted in its window, this one included. */
  countQuota(key: string, windowEndsAt: number): MaybePromise<number>;
  insertEvent(row: NewAuditEvent): MaybePromise<void>;
  /**
   * Inserts the counted event of `row.counterKey` (count 1), or adds one to
   * it (count, lastAt) in the same statement, so concurrent events of one
   * counter are all counted and never make two rows.
   */
  countEvent(row: NewAuditEvent & { counterKey: string }): MaybePromise<void>;
}

/** Appends one event, or counts it (`countingOf`), written once for every store. */
export function* recordAuditSteps(
  tables: AuditRowTables,
  context: AuditContext,
  entry: AuditEntry,
  limits: AuditLimits,
): Steps<void> {
  const row = auditRowOf(context, entry);
  const counting = countingOf(context, entry, limits);
  if (!counting) return yield* step(tables.insertEvent(row));
  if (counting.rowsBeforeCounting > 0) {
    const events = yield* step(tables.countQuota(counting.key, counting.windowEndsAt));
    if (events <= counting.rowsBeforeCounting) return yield* step(tables.insertEvent(row));
  }
  yield* step(tables.countEvent({ ...row, counterKey: counting.key }));
}
