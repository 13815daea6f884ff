import { createHash, randomBytes } from 'node:crypto';
import { eq, lte, sql } from 'drizzle-orm';
import { type AuditContext, USER_AGENT_MAX } from '@/audit/record';
import type { SessionResolver } from '@/auth/tokens';
import type { Db, DbOrTx } from '@/db/client';
import { sessions, users } from '@/db/schema';
import type { Clock } from '@/kernel/clock';
import { fail } from '@/kernel/errors';
import { REAUTHENTICATION_DETAIL } from './messages';

/** Sessions last 7 days from sign-in; they do not slide. */
export const SESSION_TTL_MS = 7 * 24 * 60 * 60 * 1000;

export const hashOf = (token: string) => createHash('sha256').update(token).digest('hex');

/**
 * The id a session is shown and revoked by: derived from the stored hash (so
 * it needs no column), and not the hash itself, which is the lookup key.
 */
export const publicSessionIdOf = (hash: string) =>
  createHash('sha256').update(`session-id:${hash}`).digest('base64url').slice(0, 22);

/** Starts a session; returns the cookie value (only its hash is stored) and its public id. */
export function createSession(
  db: DbOrTx,
  userId: string,
  from: AuditContext,
): { token: string; expiresAt: number; id: string } {
  const now = from.at;
  const token = randomBytes(32).toString('base64url');
  const expiresAt = now + SESSION_TTL_MS;
  db.delete(sessions)
    .where(lte(sessions.expiresAt, new Date(now)))
    .run();
  const hash = hashOf(token);
  db.insert(sessions)
    .values({
      id: hash,
      userId,
      createdAt: new Date(now),
      expiresAt: new Date(expiresAt),
      ip: from.ip,
      userAgent: from.userAgent?.slice(0, USER_AGENT_MAX) ?? null,
    })
    .run();
  return { token, expiresAt, id: publicSessionIdOf(hash) };
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

/** "Last seen" is written at most this often per session, not on every request. */
export const LAST_SEEN_RESOLUTION_MS = 5 * 60 * 1000;

/** The auth plugin's cookie path: a live session → the user's caller (role as audience). */
export function sessionResolver(db: Db, clock: Clock): SessionResolver {
  const lookup = db
    .select({
      userId: sessions.userId,
      createdAt: sessions.createdAt,
      expiresAt: sessions.expiresAt,
      lastSeenAt: sessions.lastSeenAt,
      role: users.role,
    })
    .from(sessions)
    .innerJoin(users, eq(users.id, sessions.userId))
    .where(eq(sessions.id, sql.placeholder('id')))
    .prepare();
  const touch = db
    .update(sessions)
    .set({ lastSeenAt: sql`${sql.placeholder('at')}` })
    .where(eq(sessions.id, sql.placeholder('id')))
    .prepare();
  return (token) => {
    const id = hashOf(token);
    const row = lookup.get({ id });
    const now = clock();
    if (!row || row.expiresAt.getTime() <= now) return null;
    const seen = (row.lastSeenAt ?? row.createdAt).getTime();
    if (now - seen >= LAST_SEEN_RESOLUTION_MS) touch.run({ id, at: now });
    return {
      sub: row.userId,
      aud: row.role,
      via: 'session',
      exp: Math.floor(row.expiresAt.getTime() / 1000),
    };
  };
}
