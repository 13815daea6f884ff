import {
  and,
  asc,
  count,
  desc,
  eq,
  gt,
  inArray,
  isNull,
  lte,
  ne,
  notInArray,
  or,
} from 'drizzle-orm';
import type { AuditLimits } from '@/audit/operations';
import { countInWindow, recordAudit } from '@/audit/sqlite-store';
import type { Db, Tx } from '@/db/sqlite/client';
import {
  authFailures,
  emailLinks,
  employeeLimits,
  mailOutbox,
  passkeys,
  passwordResets,
  planAssignments,
  sessions,
  tokenCutoffs,
  users,
  webauthnChallenges,
  webhookEndpoints,
} from '@/db/sqlite/schema';
import { queuedMailOf } from '@/mail/store';
import { type AccountTables, emailLinksToDelete } from './tables';

export const liveSessionsOf = (db: Db | Tx, userId: string, now: number) =>
  db
    .select()
    .from(sessions)
    .where(and(eq(sessions.userId, userId), gt(sessions.expiresAt, new Date(now))))
    .orderBy(desc(sessions.createdAt))
    .all();

/** An account's used challenges, soonest to expire first: an index walk (`webauthn_challenges_user_id_idx`) of at most `limit` rows. */
export const usedChallengesQuery = (db: Db | Tx, userId: string, limit: number) =>
  db
    .select({ expiresAt: webauthnChallenges.expiresAt })
    .from(webauthnChallenges)
    .where(eq(webauthnChallenges.userId, userId))
    .orderBy(asc(webauthnChallenges.expiresAt))
    .limit(limit);

/** The accounts queries inside one SQLite transaction; every one answers at once. */
export const sqliteAccountTables = (tx: Tx, limits: AuditLimits): AccountTables => ({
  insertUser: (values) =>
    tx.insert(users).values(values).onConflictDoNothing({ target: users.email }).returning().get(),
  recordAudit: (context, entry) => recordAudit(tx, context, entry, limits),
  countInWindow: (key, windowEndsAt) => countInWindow(tx, key, windowEndsAt),
  deleteExpiredSessions: (now) => {
    tx.delete(sessions)
      .where(lte(sessions.expiresAt, new Date(now)))
      .run();
  },
  insertSession: (values) => {
    tx.insert(sessions).values(values).run();
  },
  // SQLite admits one writer at a time: the transaction already excludes other sign-ins.
  lockSessionsOf: () => {},
  trimSessions: (userId, keep) => {
    const kept = tx
      .select({ id: sessions.id })
      .from(sessions)
      .where(eq(sessions.userId, userId))
      .orderBy(desc(sessions.createdAt), desc(sessions.id))
      .limit(keep);
    return tx
      .delete(sessions)
      .where(and(eq(sessions.userId, userId), notInArray(sessions.id, kept)))
      .returning({ id: sessions.id })
      .all().length;
  },
  deleteSession: (id) =>
    tx
      .delete(sessions)
      .where(eq(sessions.id, id))
      .returning({ id: sessions.id, userId: sessions.userId })
      .get(),
  liveSessions: (userId, now) => liveSessionsOf(tx, userId, now),
  // SQLite admits one writer at a time: the transaction already excludes other registrations.
  lockPasskeysOf: () => {},
  passkeyNames: (userId) =>
    tx
      .select({ name: passkeys.name })
      .from(passkeys)
      .where(eq(passkeys.userId, userId))
      .all()
      .map((row) => row.name),
  insertPasskey: (values) =>
    tx
      .insert(passkeys)
      .values(values)
      .onConflictDoNothing({ target: passkeys.credentialId })
      .returning()
      .get(),
  renamePasskey: (userId, id, name) =>
    tx
      .update(passkeys)
      .set({ name })
      .where(and(eq(passkeys.id, id), eq(passkeys.userId, userId)))
      .returning()
      .get(),
  deletePasskey: (userId, id) =>
    tx
      .delete(passkeys)
      .where(and(eq(passkeys.id, id), eq(passkeys.userId, userId)))
      .returning({ id: passkeys.id, userId: passkeys.userId, name: passkeys.name })
      .get(),
  recordPasskeyUse: (id, expected, use) =>
    tx
      .update(passkeys)
      .set(use)
      .where(and(eq(passkeys.id, id), eq(passkeys.counter, expected)))
      .returning({ id: passkeys.id })
      .get() !== undefined,
  deleteExpiredChallenges: (now) => {
    tx.delete(webauthnChallenges)
      .where(lte(webauthnChallenges.expiresAt, new Date(now)))
      .run();
  },
  usedChallenges: () => tx.select({ n: count() }).from(webauthnChallenges).get()?.n ?? 0,
  usedChallengesOf: (userId, limit) =>
    usedChallengesQuery(tx, userId, limit)
      .all()
      .map((row) => row.expiresAt),
  insertChallenge: (values) =>
    tx
      .insert(webauthnChallenges)
      .values(values)
      .onConflictDoNothing({ target: webauthnChallenges.challenge })
      .returning({ id: webauthnChallenges.id })
      .get() !== undefined,
  // SQLite admits one writer at a time: the transaction already excludes other ledger writes.
  lockFailureCounters: () => {},
  deleteFailuresUpTo: (at) => {
    tx.delete(authFailures).where(lte(authFailures.at, at)).run();
  },
  failureTimes: (key, since) =>
    tx
      .select({ at: authFailures.at })
      .from(authFailures)
      .where(and(eq(authFailures.key, key), gt(authFailures.at, since)))
      .orderBy(asc(authFailures.at))
      .all()
      .map((row) => row.at),
  insertFailure: (key, at) =>
    String(tx.insert(authFailures).values({ key, at }).returning({ id: authFailures.id }).get().id),
  deleteFailures: (ids, keys) => {
    tx.delete(authFailures)
      .where(inArray(authFailures.id, ids.map(Number)))
      .run();
    if (keys.length > 0)
      tx.delete(authFailures)
        .where(inArray(authFailures.key, [...keys]))
        .run();
  },
  // SQLite admits one writer at a time: the transaction already holds off other changes.
  lockUser: (id) => tx.select().from(users).where(eq(users.id, id)).get(),
  lockActiveEmployees: () =>
    tx
      .select({ id: users.id })
      .from(users)
      .where(and(eq(users.role, 'employee'), isNull(users.disabledAt)))
      .all()
      .map((row) => row.id),
  updateUser: (id, change) =>
    tx.update(users).set(change).where(eq(users.id, id)).returning().get(),
  deleteSessionsOf: (userId, except) =>
    tx
      .delete(sessions)
      .where(
        and(
          eq(sessions.userId, userId),
          except === undefined ? undefined : ne(sessions.id, except),
        ),
      )
      .returning({ id: sessions.id })
      .all().length,
  setTokenCutoff: (subject, at) => {
    const validAfter = new Date(at);
    tx.insert(tokenCutoffs)
      .values({ subject, validAfter })
      .onConflictDoUpdate({ target: tokenCutoffs.subject, set: { validAfter } })
      .run();
  },
  deleteUser: (id) => {
    const webhooks = tx
      .delete(webhookEndpoints)
      .where(eq(webhookEndpoints.ownerId, id))
      .returning({ id: webhookEndpoints.id })
      .all();
    tx.delete(planAssignments).where(eq(planAssignments.customerSub, id)).run();
    tx.delete(employeeLimits).where(eq(employeeLimits.employeeSub, id)).run();
    tx.delete(users).where(eq(users.id, id)).run();
    return { webhooks: webhooks.length };
  },
  deletePasswordResets: (now, userId) => {
    tx.delete(passwordResets)
      .where(
        or(
          lte(passwordResets.expiresAt, new Date(now)),
          userId === undefined ? undefined : eq(passwordResets.userId, userId),
        ),
      )
      .run();
  },
  insertPasswordReset: (values) => {
    tx.insert(passwordResets).values(values).run();
  },
  queueMail: (mail, now) =>
    tx.insert(mailOutbox).values(queuedMailOf(mail, now)).returning({ id: mailOutbox.id }).get()!
      .id,
  unqueueMail: (id) => {
    tx.delete(mailOutbox).where(eq(mailOutbox.id, id)).run();
  },
  takePasswordReset: (id, now) =>
    tx
      .delete(passwordResets)
      .where(and(eq(passwordResets.id, id), gt(passwordResets.expiresAt, new Date(now))))
      .returning({ userId: passwordResets.userId })
      .get()?.userId,
  deleteEmailLinks: (now, of) => {
    tx.delete(emailLinks)
      .where(emailLinksToDelete(emailLinks, now, of))
      .run();
  },
  insertEmailLink: (values) => {
    tx.insert(emailLinks).values(values).run();
  },
  takeEmailLink: (id, now) =>
    tx
      .delete(emailLinks)
      .where(and(eq(emailLinks.id, id), gt(emailLinks.expiresAt, new Date(now))))
      .returning()
      .get(),
  userIdOfEmail: (email) =>
    tx.select({ id: users.id }).from(users).where(eq(users.email, email)).get()?.id,
});
