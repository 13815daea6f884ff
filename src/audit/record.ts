import type { DbOrTx } from '@/db/client';
import { type AuditAction, auditEvents } from '@/db/schema';

/**
 * Who did something, from where, and when: the plain facts a route hands a
 * domain function so that it can record the action it performs. The domain
 * never sees the request.
 */
export interface AuditContext {
  /** The caller's `sub`; null when anonymous. */
  actor: string | null;
  ip: string | null;
  userAgent: string | null;
  requestId: string | null;
  /** The time of the action (ms since the epoch, from the injected clock). */
  at: number;
}

export type NewAuditEvent = typeof auditEvents.$inferInsert;

export interface AuditEntry {
  action: AuditAction;
  /** The account the event concerns (shown in its security log). */
  subject?: string | null;
  target?: string | null;
  details?: Record<string, unknown>;
}

/** A user agent is kept to this many characters. */
export const USER_AGENT_MAX = 512;

/** The row of one event, as every store writes it. */
export function auditRowOf(context: AuditContext, entry: AuditEntry): NewAuditEvent {
  return {
    at: new Date(context.at),
    action: entry.action,
    actorId: context.actor,
    subjectId: entry.subject ?? null,
    target: entry.target ?? null,
    ip: context.ip,
    userAgent: context.userAgent?.slice(0, USER_AGENT_MAX) ?? null,
    requestId: context.requestId,
    details: entry.details ?? {},
  };
}

/**
 * Appends one event. Call it with the transaction of the action itself: the
 * event commits with the action or not at all.
 */
export function recordAudit(db: DbOrTx, context: AuditContext, entry: AuditEntry): void {
  db.insert(auditEvents).values(auditRowOf(context, entry)).run();
}

/** The same context with another actor (a sign-in learns who the caller is). */
export const actingAs = (context: AuditContext, actor: string | null): AuditContext => ({
  ...context,
  actor,
});

/** The context of a change no caller made (a command-line tool, the service itself): no request. */
export const toolContext = (at: number): AuditContext => ({
  actor: null,
  ip: null,
  userAgent: null,
  requestId: null,
  at,
});
