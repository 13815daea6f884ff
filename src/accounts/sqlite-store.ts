import { asc, count, eq, inArray, isNotNull, sql } from 'drizzle-orm';
import { type AuditLimits, DEFAULT_AUDIT_LIMITS } from '@/audit/operations';
import type { Db } from '@/db/sqlite/client';
import {
  passkeys,
  passwordResets,
  sessions,
  tokenCutoffs,
  users,
  webauthnChallenges,
} from '@/db/sqlite/schema';
import { runNow } from '@/kernel/steps';
import { normalizeEmail } from './email';
import { emailLinkOperations } from './email-link-operations';
import { tableFailureLedger } from './failure-ledger';
import { lifecycleOperations } from './lifecycle-operations';
import { accountOperations } from './operations';
import { passwordResetOperations } from './password-reset-operations';
import { liveSessionsOf, sqliteAccountTables } from './sqlite-tables';
import { type AccountStore, tokenCutoffsOf } from './store';
import { type AccountOperation, sessionLookupOf } from './tables';
import { type UserSearch, userSearchOf } from './user-search';

/**
 * The accounts domain on `bun:sqlite`: every method answers at once, each
 * write in one synchronous transaction (nothing inside it is awaited). The
 * session lookup the auth plugin makes on every cookie request is one
 * prepared statement.
 */
export function sqliteAccountStore(db: Db, limits: AuditLimits = DEFAULT_AUDIT_LIMITS) {
  const run = <T>(operation: AccountOperation<T>): T =>
    db.transaction((tx) => runNow(operation(sqliteAccountTables(tx, limits))));
  const sessionQuery = db
    .select(sessionLookupOf(sessions, users))
    .from(sessions)
    .innerJoin(users, eq(users.id, sessions.userId))
    .where(eq(sessions.id, sql.placeholder('id')))
    .prepare();
  const touchQuery = db
    .update(sessions)
    .set({ lastSeenAt: sql`${sql.placeholder('at')}` })
    .where(eq(sessions.id, sql.placeholder('id')))
    .prepare();

  return {
    findUserByEmail: (email: string) =>
      db
        .select()
        .from(users)
        .where(eq(users.email, normalizeEmail(email)))
        .get(),
    findUserById: (id: string) => db.select().from(users).where(eq(users.id, id)).get(),
    emailsOf: (ids: readonly string[]) =>
      ids.length === 0
        ? []
        : db
            .select({ id: users.id, email: users.email })
            .from(users)
            .where(inArray(users.id, [...ids]))
            .all(),
    hasAnyUser: () => db.select({ id: users.id }).from(users).limit(1).get() !== undefined,
    sessionOf: (id: string) => sessionQuery.get({ id }),
    touchSession: (id: string, at: number) => {
      touchQuery.run({ id, at });
    },
    sessionStartedAt: (id: string) =>
      db.select({ createdAt: sessions.createdAt }).from(sessions).where(eq(sessions.id, id)).get()
        ?.createdAt,
    listSessions: (userId: string, now: number) => liveSessionsOf(db, userId, now),
    // rowid keeps insertion order for passkeys added in the same millisecond.
    listPasskeys: (userId: string) =>
      db
        .select()
        .from(passkeys)
        .where(eq(passkeys.userId, userId))
        .orderBy(asc(passkeys.createdAt), sql`rowid`)
        .all(),
    findPasskeyByCredentialId: (credentialId: string) =>
      db.select().from(passkeys).where(eq(passkeys.credentialId, credentialId)).get(),
    usedChallengeCount: () => db.select({ n: count() }).from(webauthnChallenges).get()?.n ?? 0,
    tokenCutoffs: () =>
      tokenCutoffsOf(
        db.select().from(tokenCutoffs).all(),
        db.select({ id: users.id }).from(users).where(isNotNull(users.disabledAt)).all(),
      ),
    searchUsers: (query: UserSearch) => {
      const search = userSearchOf(users, query);
      return db
        .select()
        .from(users)
        .where(search.where)
        .orderBy(search.orderBy)
        .limit(search.limit)
        .all();
    },
    findPasswordReset: (id: string) =>
      db.select().from(passwordResets).where(eq(passwordResets.id, id)).get(),
    ...accountOperations(run),
    ...lifecycleOperations(run),
    ...passwordResetOperations(run),
    ...emailLinkOperations(run),
    failures: tableFailureLedger(run),
  } satisfies AccountStore;
}
