import { randomBytes } from 'node:crypto';
import { type AuditContext, CALLER_TEXT_MAX, cutText } from '@/audit/record';
import type { SessionResolver } from '@/auth/tokens';
import type { Clock } from '@/kernel/clock';
import { fail } from '@/kernel/errors';
import { type MaybePromise, whenReady } from '@/kernel/maybe-promise';
import { REAUTHENTICATION_DETAIL } from './messages';
import { hashOf, publicSessionIdOf } from './session-ids';
import type { AccountStore, NewSession } from './store';

/** Sessions last 7 days from sign-in; they do not slide. */
export const SESSION_TTL_MS = 7 * 24 * 60 * 60 * 1000;

export { hashOf, publicSessionIdOf } from './session-ids';

/**
 * A new session for a user: the cookie value (only its hash is stored),
 * its public id and the row to store.
 */
export function newSession(userId: string, from: AuditContext) {
  const now = from.at;
  const token = randomBytes(32).toString('base64url');
  const expiresAt = now + SESSION_TTL_MS;
  const hash = hashOf(token);
  const row: NewSession = {
    id: hash,
    userId,
    createdAt: new Date(now),
    expiresAt: new Date(expiresAt),
    lastSeenAt: null,
    ip: from.ip,
    userAgent: cutText(from.userAgent, CALLER_TEXT_MAX.userAgent),
  };
  return { token, expiresAt, id: publicSessionIdOf(hash), row };
}

/**
 * Adding a credential needs a password or passkey check within the last 10
 * minutes. A session starts with one (sign-in by password or passkey is its
 * only way in), so its creation time is the time of its credential check. A
 * bearer token (valid an hour, and it cannot tell when it was last checked) never passes.
 */
export const RECENT_CHECK_MS = 10 * 60 * 1000;

export function assertRecentCredentialCheck(
  store: AccountStore,
  input: { sessionToken: string | undefined },
  now: number,
): MaybePromise<void> {
  const checkedAt =
    input.sessionToken === undefined
      ? undefined
      : store.sessionStartedAt(hashOf(input.sessionToken));
  return whenReady(checkedAt, (at) => {
    if (!at || now - at.getTime() > RECENT_CHECK_MS) {
      throw fail('auth.reauthentication_required', { detail: REAUTHENTICATION_DETAIL });
    }
  });
}

/** "Last seen" is written at most this often per session, not on every request. */
export const LAST_SEEN_RESOLUTION_MS = 5 * 60 * 1000;

/** The auth plugin's cookie path: a live session → the user's caller (role as audience). */
export function sessionResolver(store: AccountStore, clock: Clock): SessionResolver {
  return (token) => {
    const id = hashOf(token);
    return whenReady(store.sessionOf(id), (row) => {
      const now = clock();
      // Epoch milliseconds on both sides: a session expiring this very millisecond is over.
      // Disabling ends an account's sessions; one started meanwhile is refused here.
      if (!row || row.expiresAt.getTime() <= now || row.disabledAt !== null) return null;
      const seen = (row.lastSeenAt ?? row.createdAt).getTime();
      const caller = {
        sub: row.userId,
        aud: row.role,
        via: 'session' as const,
        exp: Math.floor(row.expiresAt.getTime() / 1000),
        ...(row.emailUnverified ? { unverified: true as const } : {}),
      };
      if (now - seen < LAST_SEEN_RESOLUTION_MS) return caller;
      return whenReady(store.touchSession(id, now), () => caller);
    });
  };
}
