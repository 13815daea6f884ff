import type { SQL } from 'bun';
import { asc, count, eq, inArray, isNotNull } from 'drizzle-orm';
import { type AuditLimits, DEFAULT_AUDIT_LIMITS } from '@/audit/operations';
import { pgDatabase } from '@/db/pg/client';
import {
  passkeys,
  passwordResets,
  sessions,
  tokenCutoffs,
  users,
  webauthnChallenges,
} from '@/db/pg/schema';
import { holdsNul } from '@/kernel/nul';
import { runLater } from '@/kernel/steps';
import { normalizeEmail } from './email';
import { emailLinkOperations } from './email-link-operations';
import { tableFailureLedger } from './failure-ledger';
import { lifecycleOperations } from './lifecycle-operations';
import { accountOperations } from './operations';
import { passwordResetOperations } from './password-reset-operations';
import { liveSessionsOf, postgresAccountTables } from './postgres-tables';
import { type AccountStore, tokenCutoffsOf } from './store';
import { type AccountOperation, sessionLookupOf } from './tables';
import { userSearchOf } from './user-search';

/**
 * The accounts domain on PostgreSQL (Bun's `SQL` client through drizzle's
 * `bun-sql` driver): the same operations, results and errors as
 * `sqliteAccountStore`, every one a promise. The caller owns `client` and
 * closes it.
 */
export function postgresAccountStore(
  client: SQL,
  limits: AuditLimits = DEFAULT_AUDIT_LIMITS,
): AccountStore {
  const db = pgDatabase(client);
  const run = <T>(operation: AccountOperation<T>): Promise<T> =>
    db.transaction((tx) => runLater(operation(postgresAccountTables(tx, limits))));
  const first = async <T>(rows: Promise<T[]>): Promise<T | undefined> => (await rows)[0];

  return {
    findUserByEmail: async (email) =>
      holdsNul(email)
        ? undefined
        : first(
            db
              .select()
              .from(users)
              .where(eq(users.email, normalizeEmail(email))),
          ),
    findUserById: async (id) =>
      holdsNul(id) ? undefined : first(db.select().from(users).where(eq(users.id, id))),
    async emailsOf(ids) {
      const wanted = ids.filter((id) => !holdsNul(id));
      if (wanted.length === 0) return [];
      return db
        .select({ id: users.id, email: users.email })
        .from(users)
        .where(inArray(users.id, wanted));
    },
    hasAnyUser: async () => (await db.select({ id: users.id }).from(users).limit(1)).length > 0,
    sessionOf: (id) =>
      first(
        db
          .select(sessionLookupOf(sessions, users))
          .from(sessions)
          .innerJoin(users, eq(users.id, sessions.userId))
          .where(eq(sessions.id, id)),
      ),
    async touchSession(id, at) {
      await db
        .update(sessions)
        .set({ lastSeenAt: new Date(at) })
        .where(eq(sessions.id, id));
    },
    sessionStartedAt: async (id) =>
      (
        await first(
          db.select({ createdAt: sessions.createdAt }).from(sessions).where(eq(sessions.id, id)),
        )
      )?.createdAt,
    listSessions: async (userId, now) => liveSessionsOf(db, userId, now),
    // No rowid: uuidv7 ids are made in insertion order within a millisecond.
    listPasskeys: async (userId) =>
      db
        .select()
        .from(passkeys)
        .where(eq(passkeys.userId, userId))
        .orderBy(asc(passkeys.createdAt), asc(passkeys.id)),
    findPasskeyByCredentialId: async (credentialId) =>
      holdsNul(credentialId)
        ? undefined
        : first(db.select().from(passkeys).where(eq(passkeys.credentialId, credentialId))),
    usedChallengeCount: async () =>
      (await first(db.select({ n: count() }).from(webauthnChallenges)))?.n ?? 0,
    async tokenCutoffs() {
      const stored = await db.select().from(tokenCutoffs);
      const disabled = await db
        .select({ id: users.id })
        .from(users)
        .where(isNotNull(users.disabledAt));
      return tokenCutoffsOf(stored, disabled);
    },
    async searchUsers(query) {
      if (query.email !== undefined && holdsNul(query.email)) return [];
      const search = userSearchOf(users, query);
      return db
        .select()
        .from(users)
        .where(search.where)
        .orderBy(search.orderBy)
        .limit(search.limit);
    },
    async findPasswordReset(id) {
      const [reset] = await db.select().from(passwordResets).where(eq(passwordResets.id, id));
      return reset;
    },
    ...accountOperations(run),
    ...lifecycleOperations(run),
    ...passwordResetOperations(run),
    ...emailLinkOperations(run),
    failures: tableFailureLedger(run),
  };
}
