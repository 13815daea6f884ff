import { and, desc, eq, gt } from 'drizzle-orm';
import { type AuditContext, actingAs, recordAudit } from '@/audit/record';
import type { Db } from '@/db/client';
import { type Session, sessions } from '@/db/schema';
import { fail } from '@/kernel/errors';
import type { SessionSummary } from './schemas';
import { hashOf, publicSessionIdOf } from './sessions';

const summaryOf = (row: Session, currentHash: string | undefined): SessionSummary => ({
  id: publicSessionIdOf(row.id),
  createdAt: row.createdAt.toISOString(),
  lastSeenAt: (row.lastSeenAt ?? row.createdAt).toISOString(),
  expiresAt: row.expiresAt.toISOString(),
  ip: row.ip,
  userAgent: row.userAgent,
  current: row.id === currentHash,
});

const liveSessionsOf = (db: Pick<Db, 'select'>, userId: string, now: number) =>
  db
    .select()
    .from(sessions)
    .where(and(eq(sessions.userId, userId), gt(sessions.expiresAt, new Date(now))))
    .orderBy(desc(sessions.createdAt))
    .all();

/** The user's live browser sessions, newest sign-in first; `current` marks the caller's own. */
export function listSessions(
  db: Db,
  userId: string,
  currentToken: string | undefined,
  now: number,
): SessionSummary[] {
  const currentHash = currentToken === undefined ? undefined : hashOf(currentToken);
  return liveSessionsOf(db, userId, now).map((row) => summaryOf(row, currentHash));
}

/** Sign-out: ends the session of this cookie (nothing when it is gone already). */
export function endSession(db: Db, token: string, audit: AuditContext): void {
  db.transaction((tx) => {
    const ended = tx
      .delete(sessions)
      .where(eq(sessions.id, hashOf(token)))
      .returning({ id: sessions.id, userId: sessions.userId })
      .get();
    if (!ended) return;
    recordAudit(tx, actingAs(audit, ended.userId), {
      action: 'sign_out',
      subject: ended.userId,
      target: publicSessionIdOf(ended.id),
    });
  });
}

/**
 * Signs one of the user's sessions out ("sign out elsewhere"); another
 * user's session, an expired or unknown one is not found.
 */
export function revokeSession(db: Db, userId: string, id: string, audit: AuditContext): void {
  db.transaction((tx) => {
    const row = liveSessionsOf(tx, userId, audit.at).find(
      (session) => publicSessionIdOf(session.id) === id,
    );
    if (!row) throw fail('session.not_found');
    tx.delete(sessions).where(eq(sessions.id, row.id)).run();
    recordAudit(tx, audit, { action: 'session.revoked', subject: userId, target: id });
  });
}
