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
  sql,
} from 'drizzle-orm';
import type { AuditLimits } from '@/audit/operations';
import { countInWindow, recordAuditLater } from '@/audit/postgres-store';
import type { PgDb, PgTx } from '@/db/pg/client';
import { isUniqueViolation } from '@/db/pg/connection';
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
} from '@/db/pg/schema';
import { holdsNul } from '@/kernel/nul';
import { queuedMailOf } from '@/mail/store';
import { type AccountTables, emailLinksToDelete } from './tables';

/**
 * A failure counter's key as stored: the email in it is what was typed, NUL
 * included, so NUL is written `\0` (and `\` doubled, keeping keys apart).
 */
export const storedKey = (key: string) => key.replaceAll('\\', '\\\\').replaceAll('\u0000', '\\0');

export const liveSessionsOf = (db: PgDb | PgTx, userId: string, now: number) =>
  db
    .select()
    .from(sessions)
    .where(and(eq(sessions.userId, userId), gt(sessions.expiresAt, new Date(now))))
    .orderBy(desc(sessions.createdAt));

/**
 * The accounts queries inside one PostgreSQL transaction (READ COMMITTED).
 * The uniqueness of emails, credential ids and used challenges is left to
 * the unique indexes (`ON CONFLICT DO NOTHING` waits for a concurrent insert
 * of the same value to commit, then finds it), and the passkey counter to a
 * compare-and-set update (a concurrent one re-reads the row and misses).
 */
export const postgresAccountTables = (tx: PgTx, limits: AuditLimits): AccountTables => ({
  async insertUser(values) {
    const [user] = await tx
      .insert(users)
      .values(values)
      .onConflictDoNothing({ target: users.email })
      .returning();
    return user;
  },
  recordAudit: (context, entry) => recordAuditLater(tx, context, entry, limits),
  countInWindow: (key, windowEndsAt) => countInWindow(tx, key, windowEndsAt),
  async deleteExpiredSessions(now) {
    await tx.delete(sessions).where(lte(sessions.expiresAt, new Date(now)));
  },
  async insertSession(values) {
    await tx.insert(sessions).values(values);
  },
  async lockSessionsOf(userId) {
    // As `lockPasskeysOf`: the user's row, without conflicting with the FK checks of its rows.
    await tx.select({ id: users.id }).from(users).where(eq(users.id, userId)).for('no key update');
  },
  async trimSessions(userId, keep) {
    const kept = tx
      .select({ id: sessions.id })
      .from(sessions)
      .where(eq(sessions.userId, userId))
      .orderBy(desc(sessions.createdAt), desc(sessions.id))
      .limit(keep);
    const ended = await tx
      .delete(sessions)
      .where(and(eq(sessions.userId, userId), notInArray(sessions.id, kept)))
      .returning({ id: sessions.id });
    return ended.length;
  },
  async deleteSession(id) {
    const [ended] = await tx
      .delete(sessions)
      .where(eq(sessions.id, id))
      .returning({ id: sessions.id, userId: sessions.userId });
    return ended;
  },
  liveSessions: (userId, now) => liveSessionsOf(tx, userId, now),
  async lockPasskeysOf(userId) {
    // FOR NO KEY UPDATE conflicts with itself, not with the session and
    // passkey rows that reference the user (their FOR KEY SHARE checks).
    await tx.select({ id: users.id }).from(users).where(eq(users.id, userId)).for('no key update');
  },
  async passkeyNames(userId) {
    const rows = await tx
      .select({ name: passkeys.name })
      .from(passkeys)
      .where(eq(passkeys.userId, userId));
    return rows.map((row) => row.name);
  },
  async insertPasskey(values) {
    const [passkey] = await tx
      .insert(passkeys)
      .values(values)
      .onConflictDoNothing({ target: passkeys.credentialId })
      .returning();
    return passkey;
  },
  async renamePasskey(userId, id, name) {
    if (holdsNul(id)) return undefined;
    const [renamed] = await tx
      .update(passkeys)
      .set({ name })
      .where(and(eq(passkeys.id, id), eq(passkeys.userId, userId)))
      .returning();
    return renamed;
  },
  async deletePasskey(userId, id) {
    if (holdsNul(id)) return undefined;
    const [deleted] = await tx
      .delete(passkeys)
      .where(and(eq(passkeys.id, id), eq(passkeys.userId, userId)))
      .returning({ id: passkeys.id, userId: passkeys.userId, name: passkeys.name });
    return deleted;
  },
  async recordPasskeyUse(id, expected, use) {
    const updated = await tx
      .update(passkeys)
      .set(use)
      .where(and(eq(passkeys.id, id), eq(passkeys.counter, expected)))
      .returning({ id: passkeys.id });
    return updated.length > 0;
  },
  async deleteExpiredChallenges(now) {
    await tx.delete(webauthnChallenges).where(lte(webauthnChallenges.expiresAt, new Date(now)));
  },
  async usedChallenges() {
    const [counted] = await tx.select({ n: count() }).from(webauthnChallenges);
    return counted?.n ?? 0;
  },
  async usedChallengesOf(userId, limit) {
    const rows = await tx
      .select({ expiresAt: webauthnChallenges.expiresAt })
      .from(webauthnChallenges)
      .where(eq(webauthnChallenges.userId, userId))
      .orderBy(asc(webauthnChallenges.expiresAt))
      .limit(limit);
    return rows.map((row) => row.expiresAt);
  },
  async insertChallenge(values) {
    const inserted = await tx
      .insert(webauthnChallenges)
      .values(values)
      .onConflictDoNothing({ target: webauthnChallenges.challenge })
      .returning({ id: webauthnChallenges.id });
    return inserted.length > 0;
  },
  async lockFailureCounters(keys) {
    // One transaction-scoped advisory lock per counter, taken in one order
    // (sorted) so two attempts sharing counters cannot deadlock: the check
    // and the record of concurrent attempts on a counter run one at a time.
    for (const key of keys.map(storedKey).sort()) {
      await tx.execute(sql`SELECT pg_advisory_xact_lock(hashtextextended(${key}, 0))`);
    }
  },
  async deleteFailuresUpTo(at) {
    // Every attempt prunes the whole table, under its own counters' locks
    // only: rows another attempt is pruning are skipped, not waited for (two
    // prunes locking the same rows in different orders could deadlock).
    const stale = tx
      .select({ id: authFailures.id })
      .from(authFailures)
      .where(lte(authFailures.at, at))
      .for('update', { skipLocked: true });
    await tx.delete(authFailures).where(inArray(authFailures.id, stale));
  },
  async failureTimes(key, since) {
    const rows = await tx
      .select({ at: authFailures.at })
      .from(authFailures)
      .where(and(eq(authFailures.key, storedKey(key)), gt(authFailures.at, since)))
      .orderBy(asc(authFailures.at));
    return rows.map((row) => row.at);
  },
  async insertFailure(key, at) {
    const [row] = await tx
      .insert(authFailures)
      .values({ key: storedKey(key), at })
      .returning({ id: authFailures.id });
    return String(row!.id);
  },
  async deleteFailures(ids, keys) {
    await tx.delete(authFailures).where(inArray(authFailures.id, ids.map(Number)));
    if (keys.length > 0)
      await tx.delete(authFailures).where(inArray(authFailures.key, keys.map(storedKey)));
  },
  async lockUser(id) {
    if (holdsNul(id)) return undefined;
    const [user] = await tx.select().from(users).where(eq(users.id, id)).for('update');
    return user;
  },
  async lockActiveEmployees() {
    // Under READ COMMITTED a row changed by the transaction waited for is
    // checked again: one demoted meanwhile is no longer counted.
    const rows = await tx
      .select({ id: users.id })
      .from(users)
      .where(and(eq(users.role, 'employee'), isNull(users.disabledAt)))
      .orderBy(asc(users.id))
      .for('update');
    return rows.map((row) => row.id);
  },
  async updateUser(id, change) {
    const update = (on: PgTx) => on.update(users).set(change).where(eq(users.id, id)).returning();
    if (change.email === undefined) return (await update(tx))[0];
    // A new email: another account may take it between the caller's look and
    // this write. The unique index decides; a savepoint keeps the transaction usable.
    try {
      return (await tx.transaction((savepoint) => update(savepoint)))[0];
    } catch (error) {
      if (isUniqueViolation(error)) return undefined;
      throw error;
    }
  },
  async deleteSessionsOf(userId, except) {
    const ended = await tx
      .delete(sessions)
      .where(
        and(
          eq(sessions.userId, userId),
          except === undefined ? undefined : ne(sessions.id, except),
        ),
      )
      .returning({ id: sessions.id });
    return ended.length;
  },
  async setTokenCutoff(subject, at) {
    const validAfter = new Date(at);
    await tx
      .insert(tokenCutoffs)
      .values({ subject, validAfter })
      .onConflictDoUpdate({ target: tokenCutoffs.subject, set: { validAfter } });
  },
  async deleteUser(id) {
    const webhooks = await tx
      .delete(webhookEndpoints)
      .where(eq(webhookEndpoints.ownerId, id))
      .returning({ id: webhookEndpoints.id });
    await tx.delete(planAssignments).where(eq(planAssignments.customerSub, id));
    await tx.delete(employeeLimits).where(eq(employeeLimits.employeeSub, id));
    await tx.delete(users).where(eq(users.id, id));
    return { webhooks: webhooks.length };
  },
  async deletePasswordResets(now, userId) {
    await tx
      .delete(passwordResets)
      .where(
        or(
          lte(passwordResets.expiresAt, new Date(now)),
          userId === undefined ? undefined : eq(passwordResets.userId, userId),
        ),
      );
  },
  async insertPasswordReset(values) {
    await tx.insert(passwordResets).values(values);
  },
  async queueMail(mail, now) {
    const [queued] = await tx
      .insert(mailOutbox)
      .values(queuedMailOf(mail, now))
      .returning({ id: mailOutbox.id });
    return queued!.id;
  },
  async unqueueMail(id) {
    await tx.delete(mailOutbox).where(eq(mailOutbox.id, id));
  },
  async takePasswordReset(id, now) {
    const [taken] = await tx
      .delete(passwordResets)
      .where(and(eq(passwordResets.id, id), gt(passwordResets.expiresAt, new Date(now))))
      .returning({ userId: passwordResets.userId });
    return taken?.userId;
  },
  async deleteEmailLinks(now, of) {
    await tx.delete(emailLinks).where(emailLinksToDelete(emailLinks, now, of));
  },
  async insertEmailLink(values) {
    await tx.insert(emailLinks).values(values);
  },
  async takeEmailLink(id, now) {
    if (holdsNul(id)) return undefined;
    const [taken] = await tx
      .delete(emailLinks)
      .where(and(eq(emailLinks.id, id), gt(emailLinks.expiresAt, new Date(now))))
      .returning();
    return taken;
  },
  async userIdOfEmail(email) {
    if (holdsNul(email)) return undefined;
    const [user] = await tx.select({ id: users.id }).from(users).where(eq(users.email, email));
    return user?.id;
  },
});
