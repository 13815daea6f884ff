import { AUDIT_ACTIONS } from '../stored-values';
import { epochMs, integer, json, serialKey, text } from './columns';
import { index, table, uniqueIndex } from './table';

export type AuditAction = (typeof AUDIT_ACTIONS)[number];

/**
 * The security and audit log: append-only (a trigger refuses updates, but
 * for the count of a counted event; only the retention job deletes, by
 * age). Written in the transaction of the action it records, so a
 * rolled-back action leaves no event. No foreign keys: the log outlives the
 * accounts and objects it names. Repeats past a limit are counted into one
 * event per counter and window (`src/audit/operations.ts`).
 */
export const auditEvents = table(
  'audit_events',
  {
    id: serialKey({ neverReused: true }),
    at: epochMs().notNull(),
    action: text({ enum: AUDIT_ACTIONS }).notNull(),
    /** The caller's `sub`; null for an anonymous caller (a failed sign-in). */
    actorId: text(),
    /** The account the event concerns: its security log shows the event. */
    subjectId: text(),
    /** The object acted on: a passkey or session id, a plan id, a page, a property, a job. */
    target: text(),
    ip: text(),
    userAgent: text(),
    requestId: text(),
    /** Small facts of the event (method, outcome, names); never a secret. */
    details: json<Record<string, unknown>>().notNull(),
    /** How many times it happened: more than 1 only for a counted event. */
    count: integer().notNull().default(1),
    /** A counted event's latest repeat (null: it happened once, at `at`). */
    lastAt: epochMs(),
    /** A counted event's counter and window; null for every other event. */
    counterKey: text(),
  },
  (t) => [
    index('audit_events_subject_id_idx').on(t.subjectId, t.id),
    index('audit_events_actor_id_idx').on(t.actorId, t.id),
    index('audit_events_action_idx').on(t.action, t.id),
    index('audit_events_at_idx').on(t.at),
    uniqueIndex('audit_events_counter_key_idx').on(t.counterKey),
  ],
);

/**
 * The events each counter has had in its current window, so that the
 * first ones are written one row each and the rest counted into one
 * (`src/audit/operations.ts`). A row outlives its window only until the
 * audit-retention job deletes it.
 */
export const auditQuotas = table(
  'audit_quotas',
  {
    /** The counter and the start of its window. */
    key: text().primaryKey(),
    windowEndsAt: epochMs().notNull(),
    events: integer().notNull(),
  },
  (t) => [index('audit_quotas_window_ends_at_idx').on(t.windowEndsAt)],
);
