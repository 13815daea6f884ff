import type { AuditContext } from '@/audit/record';
import type { Session } from '@/db/sqlite/schema';
import { type MaybePromise, whenReady } from '@/kernel/maybe-promise';
import type { SessionSummary } from './schemas';
import { hashOf, publicSessionIdOf } from './sessions';
import type { AccountStore } from './store';

const summaryOf = (row: Session, currentHash: string | undefined): SessionSummary => ({
  id: publicSessionIdOf(row.id),
  createdAt: row.createdAt.toISOString(),
  lastSeenAt: (row.lastSeenAt ?? row.createdAt).toISOString(),
  expiresAt: row.expiresAt.toISOString(),
  ip: row.ip,
  userAgent: row.userAgent,
  current: row.id === currentHash,
});

/** The user's live browser sessions, newest sign-in first; `current` marks the caller's own. */
export function listSessions(
  store: AccountStore,
  userId: string,
  currentToken: string | undefined,
  now: number,
): MaybePromise<SessionSummary[]> {
  const currentHash = currentToken === undefined ? undefined : hashOf(currentToken);
  return whenReady(store.listSessions(userId, now), (rows) =>
    rows.map((row) => summaryOf(row, currentHash)),
  );
}

/** Sign-out: ends the session of this cookie (nothing when it is gone already). */
export const endSession = (store: AccountStore, token: string, audit: AuditContext) =>
  store.endSession(hashOf(token), audit);

/**
 * Signs one of the user's sessions out ("sign out elsewhere"); another
 * user's session, an expired or unknown one is not found.
 */
export const revokeSession = (
  store: AccountStore,
  userId: string,
  id: string,
  audit: AuditContext,
) => store.revokeSession(userId, id, audit);
