import type { AuditAction, auditEvents } from '@/db/sqlite/schema';

/**
 * Who did something, from where, and when: the plain facts a route hands a
 * domain function so that it can record the action it performs. The domain
 * never sees the request.
 */
export interface AuditContext {
  /** The caller's `sub`; null when anonymous. */
  actor: string | null;
  /** The client's full address, as its events record it. */
  ip: string | null;
  /**
   * The client as the per-address limits count it (an IPv6 client by its
   * network), which bounds an anonymous caller's rows; `ip` when unset.
   */
  limitAddress?: string | null;
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
  /**
   * Counts every such event of this counter into one per window, from the
   * first (a refused sign-in): `key` names the counter within the action.
   */
  counter?: { key: string; windowMs: number };
}

/**
 * What of an event the caller chooses is kept to these many characters
 * (docs/accounts.md, "Bounded rows"), cut here, where every store's row
 * is made, and again when an event is read (rows written before the cut).
 */
export const CALLER_TEXT_MAX = { userAgent: 256, requestId: 64, ip: 64, detail: 64 } as const;

/** `text` cut to `max` characters (UTF-16 code units; a cut pair is dropped whole). */
export function cutText(text: string, max: number): string;
export function cutText(text: string | null, max: number): string | null;
export function cutText(text: string | null, max: number): string | null {
  if (text === null || text.length <= max) return text;
  const cut = text.slice(0, max);
  return /[\uD800-\uDBFF]$/.test(cut) ? cut.slice(0, -1) : cut;
}

/** Account actions a customer or an anonymous caller can repeat at will (`src/audit/operations.ts`). */
export const CALLER_ACTIONS: ReadonlySet<AuditAction> = new Set<AuditAction>([
  'sign_in.succeeded',
  'sign_in.failed',
  'sign_in.refused',
  'sign_out',
  'sign_up',
  'passkey.added',
  'passkey.renamed',
  'passkey.deleted',
  'session.revoked',
  'sessions.ended_all',
  'password.changed',
  'password_reset.requested',
  'password.reset',
  'notification.queued',
  'notification.dropped',
  'email_verification.sent',
  'email.verified',
  'email_change.requested',
  'email.changed',
]);

/** A caller's details: their text (a passkey name) cut like the rest. */
const callerDetails = (details: Record<string, unknown>) =>
  Object.fromEntries(
    Object.entries(details).map(([name, value]) => [
      name,
      typeof value === 'string' ? cutText(value, CALLER_TEXT_MAX.detail) : value,
    ]),
  );

/** The row of one event, as every store writes it. */
export function auditRowOf(context: AuditContext, entry: AuditEntry): NewAuditEvent {
  const details = entry.details ?? {};
  return {
    at: new Date(context.at),
    action: entry.action,
    actorId: context.actor,
    subjectId: entry.subject ?? null,
    target: entry.target ?? null,
    ip: cutText(context.ip, CALLER_TEXT_MAX.ip),
    userAgent: cutText(context.userAgent, CALLER_TEXT_MAX.userAgent),
    requestId: cutText(context.requestId, CALLER_TEXT_MAX.requestId),
    details: CALLER_ACTIONS.has(entry.action) ? callerDetails(details) : details,
  };
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
