import { index, integer, sqliteTable, text, uniqueIndex } from 'drizzle-orm/sqlite-core';
import { AUDIT_ACTIONS } from '../../stored-values';

export type AuditAction = (typeof AUDIT_ACTIONS)[number];

/**
 * The security and audit log: append-only (a trigger refuses updates, but
 * for the count of a counted event; only the retention job deletes, by
 * age). Written in the transaction of the action it records, so a
 * rolled-back action leaves no event. No foreign keys: the log outlives the
 * accounts and objects it names. Repeats past a limit are counted into one
 * event per counter and window (`src/audit/operations.ts`).
 */
export const auditEvents = sqliteTable(
  'audit_events',
  {
    id: integer().primaryKey({ autoIncrement: true }),
    at: integer({ mode: 'timestamp_ms' }).notNull(),
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
    details: text({ mode: 'json' }).$type<Record<string, unknown>>().notNull(),
    /** How many times it happened: more than 1 only for a counted event. */
    count: integer().notNull().default(1),
    /** A counted event's latest repeat (null: it happened once, at `at`). */
    lastAt: integer({ mode: 'timestamp_ms' }),
    /** A counted event's counter and window; null for every other event. */
    counterKey: text(),
  },
  (table) => [
    index('audit_events_subject_id_idx').on(table.subjectId, table.id),
    index('audit_events_actor_id_idx').on(table.actorId, table.id),
    index('audit_events_action_idx').on(table.action, table.id),
    index('audit_events_at_idx').on(table.at),
    uniqueIndex('audit_events_counter_key_idx').on(table.counterKey),
  ],
);

/**
 * The events each counter has had in its current window, so that the
 * first ones are written one row each and the rest counted into one
 * (`src/audit/operations.ts`). A row outlives its window only until the
 * audit-retention job deletes it.
 */
export const auditQuotas = sqliteTable(
  'audit_quotas',
  {
    /** The counter and the start of its window. */
    key: text().primaryKey(),
    windowEndsAt: integer({ mode: 'timestamp_ms' }).notNull(),
    events: integer().notNull(),
  },
  (table) => [index('audit_quotas_window_ends_at_idx').on(table.windowEndsAt)],
);

export type AuditEventRow = typeof auditEvents.$inferSelect;
