import { createHash, randomBytes } from 'node:crypto';
import { eq, lte, sql } from 'drizzle-orm';
import type { SessionResolver } from '@/auth/tokens';
import type { Db, DbOrTx } from '@/db/client';
import { sessions, users } from '@/db/schema';
import type { Clock } from '@/kernel/clock';
import { fail } from '@/kernel/errors';
import { REAUTHENTICATION_DETAIL } from './messages';

/** Sessions last 7 days from sign-in; they do not slide. */
export const SESSION_TTL_MS = 7 * 24 * 60 * 60 * 1000;

const hashOf = (token: string) => createHash('sha256').update(token).digest('hex');

/** Starts a session; returns the cookie value (only its hash is stored). */
export function createSession(
  db: DbOrTx,
  userId: string,
  now: number,
): { token: string; expiresAt: number } {
  const token = randomBytes(32).toString('base64url');
  const expiresAt = now + SESSION_TTL_MS;
  db.delete(sessions)
    .where(lte(sessions.expiresAt, new Date(now)))
    .run();
  db.insert(sessions)
    .values({ id: hashOf(token), userId, createdAt: new Date(now), expiresAt: new Date(expiresAt) })
    .run();
  return { token, expiresAt };
}

/**
 * Adding a credential needs a password or passkey check within the last 10
 * minutes. A session starts with one (sign-in by password or passkey is its
 * only way in), so its creation time is the time of its credential check. A
 * bearer token (valid an hour, not revocable) never passes.
 */
export const RECENT_CHECK_MS = 10 * 60 * 1000;

export function assertRecentCredentialCheck(
  db: DbOrTx,
  input: { sessionToken: string | undefined },
  now: number,
): void {
  const row =
    input.sessionToken === undefined
      ? undefined
      : db
          .select({ checkedAt: sessions.createdAt })
          .from(sessions)
          .where(eq(sessions.id, hashOf(input.sessionToken)))
          .get();
  if (!row || now - row.checkedAt.getTime() > RECENT_CHECK_MS) {
    throw fail('auth.reauthentication_required', { detail: REAUTHENTICATION_DETAIL });
  }
}

export function deleteSession(db: DbOrTx, token: string): void {
  db.delete(sessions)
    .where(eq(sessions.id, hashOf(token)))
    .run();
}

/** The auth plugin's cookie path: a live session → the user's caller (role as audience). */
export function sessionResolver(db: Db, clock: Clock): SessionResolver {
  const lookup = db
    .select({ userId: sessions.userId, expiresAt: sessions.expiresAt, role: users.role })
    .from(sessions)
    .innerJoin(users, eq(users.id, sessions.userId))
    .where(eq(sessions.id, sql.placeholder('id')))
    .prepare();
  return (token) => {
    const row = lookup.get({ id: hashOf(token) });
    if (!row || row.expiresAt.getTime() <= clock()) return null;
    return {
      sub: row.userId,
      aud: row.role,
      via: 'session',
      exp: Math.floor(row.expiresAt.getTime() / 1000),
    };
  };
}
