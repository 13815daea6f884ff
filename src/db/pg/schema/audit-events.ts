import { index, integer, json, pgTable, text, uniqueIndex } from 'drizzle-orm/pg-core';
import { AUDIT_ACTIONS } from '../../stored-values';
import { epochMs, serialKey } from './columns';

/** The security and audit log; append-only but for a counted event's count, enforced by a trigger (migrations-pg/). */
export const auditEvents = pgTable(
  'audit_events',
  {
    id: serialKey(),
    at: epochMs().notNull(),
    action: text({ enum: AUDIT_ACTIONS }).notNull(),
    actorId: text(),
    subjectId: text(),
    target: text(),
    ip: text(),
    userAgent: text(),
    requestId: text(),
    details: json().$type<Record<string, unknown>>().notNull(),
    count: integer().notNull().default(1),
    lastAt: epochMs(),
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

/** The events of each counter in its current window (the SQLite `audit_quotas`). */
export const auditQuotas = pgTable(
  'audit_quotas',
  {
    key: text().primaryKey(),
    windowEndsAt: epochMs().notNull(),
    events: integer().notNull(),
  },
  (table) => [index('audit_quotas_window_ends_at_idx').on(table.windowEndsAt)],
);
