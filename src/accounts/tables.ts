import { type AnyColumn, and, eq, lte, or } from 'drizzle-orm';
import type { AuditContext, AuditEntry } from '@/audit/record';
import type {
  EmailLink,
  Passkey,
  PasswordReset,
  Session,
  User,
  users,
  webauthnChallenges,
} from '@/db/sqlite/schema';
import type { MaybePromise } from '@/kernel/maybe-promise';
import type { Steps } from '@/kernel/steps';
import type { NewMail } from '@/mail/store';

export type NewUser = typeof users.$inferInsert;
export type NewSession = Session;
export type NewPasskey = Passkey;
export type NewChallenge = typeof webauthnChallenges.$inferInsert;

/**
 * The write queries of the accounts domain, one store's SQL inside one
 * transaction. The rules between them live in `operations.ts` and
 * `guessing.ts`, written once for every store.
 */
export interface AccountTables {
  /** The new user, or undefined when the (normalized) email already has one. */
  insertUser(values: NewUser): MaybePromise<User | undefined>;
  /** Appends one security-log event in the same transaction (`auditRowOf`). */
  recordAudit(context: AuditContext, entry: AuditEntry): MaybePromise<void>;
  /** Counts one more of `key` in its window (the audit log's window counters); how many, this one included. */
  countInWindow(key: string, windowEndsAt: number): MaybePromise<number>;
  deleteExpiredSessions(now: number): MaybePromise<void>;
  insertSession(values: NewSession): MaybePromise<void>;
  /**
   * Holds off other session starts of this user until this transaction
   * ends. SQLite's single writer already does; PostgreSQL locks the user's row.
   */
  lockSessionsOf(userId: string): MaybePromise<void>;
  /** Ends the user's sessions but the `keep` newest (by sign-in); how many ended. */
  trimSessions(userId: string, keep: number): MaybePromise<number>;
  deleteSession(id: string): MaybePromise<{ id: string; userId: string } | undefined>;
  /** The user's sessions expiring after `now`, newest sign-in first. */
  liveSessions(userId: string, now: number): MaybePromise<Session[]>;
  /**
   * Holds off other registrations of this user's passkeys until this
   * transaction ends. SQLite's single writer already does; PostgreSQL locks
   * the user's row.
   */
  lockPasskeysOf(userId: string): MaybePromise<void>;
  passkeyNames(userId: string): MaybePromise<string[]>;
  /** The stored passkey, or undefined when its credential id is stored already. */
  insertPasskey(values: NewPasskey): MaybePromise<Passkey | undefined>;
  renamePasskey(userId: string, id: string, name: string): MaybePromise<Passkey | undefined>;
  deletePasskey(
    userId: string,
    id: string,
  ): MaybePromise<Pick<Passkey, 'id' | 'userId' | 'name'> | undefined>;
  /** Compare-and-set: stores the use only while the counter is still `expected`. */
  recordPasskeyUse(
    id: string,
    expected: number,
    use: Pick<Passkey, 'counter' | 'backedUp' | 'deviceType' | 'lastUsedAt'>,
  ): MaybePromise<boolean>;
  deleteExpiredChallenges(now: number): MaybePromise<void>;
  usedChallenges(): MaybePromise<number>;
  /** When the account's used challenges expire, soonest first, at most `limit` of them. */
  usedChallengesOf(userId: string, limit: number): MaybePromise<Date[]>;
  /** False when the challenge is stored already (a replay), even by a transaction still running. */
  insertChallenge(values: NewChallenge): MaybePromise<boolean>;
  /**
   * Holds off every other failure-ledger transaction on these counters
   * until this one ends. SQLite's single writer already does; PostgreSQL
   * takes an advisory lock per counter.
   */
  lockFailureCounters(keys: readonly string[]): MaybePromise<void>;
  deleteFailuresUpTo(at: number): MaybePromise<void>;
  /** The counter's failure times after `since`, oldest first. */
  failureTimes(key: string, since: number): MaybePromise<number[]>;
  insertFailure(key: string, at: number): MaybePromise<string>;
  deleteFailures(ids: readonly string[], keys: readonly string[]): MaybePromise<void>;
  /**
   * The user, holding off other changes of it until this transaction ends
   * (SQLite's single writer already does; PostgreSQL locks the row).
   */
  lockUser(id: string): MaybePromise<User | undefined>;
  /**
   * The ids of the active (not disabled) employees, holding off every other
   * change of them until this transaction ends, so two changes at once
   * cannot each leave the other as the last one and then remove it too.
   */
  lockActiveEmployees(): MaybePromise<string[]>;
  /**
   * Undefined when there is no such user. On PostgreSQL also when
   * `change.email` was taken by another account after the caller looked (the
   * unique index decides); on SQLite the transaction's write lock keeps the
   * caller's look true until the write.
   */
  updateUser(
    id: string,
    change: Partial<
      Pick<User, 'role' | 'disabledAt' | 'passwordHash' | 'email' | 'emailUnverified'>
    >,
  ): MaybePromise<User | undefined>;
  /** Ends the user's sessions, but `except` (a session id); how many ended. */
  deleteSessionsOf(userId: string, except?: string): MaybePromise<number>;
  /** Sets the subject's token cut-off (epoch milliseconds), replacing an earlier one. */
  setTokenCutoff(subject: string, at: number): MaybePromise<void>;
  /**
   * Deletes the user (its sessions, passkeys and challenges go with the
   * row) and what is kept for its subject elsewhere: its webhook endpoints
   * (with their deliveries), its plan and its own rate limit. How many
   * webhook endpoints went.
   */
  deleteUser(id: string): MaybePromise<{ webhooks: number }>;
  /** Deletes the password reset links expired at `now`, and every one of `userId` when given. */
  deletePasswordResets(now: number, userId?: string): MaybePromise<void>;
  insertPasswordReset(values: PasswordReset): MaybePromise<void>;
  /** Queues a message in the mail outbox (`src/mail`), due at `now`, in this transaction; its id. */
  queueMail(mail: NewMail, now: number): MaybePromise<number>;
  /** Takes a message queued in this transaction out of the outbox again. */
  unqueueMail(id: number): MaybePromise<void>;
  /**
   * Deletes the link and answers its account, when it is stored and not
   * expired at `now`; two uses at once: one of them gets it.
   */
  takePasswordReset(id: string, now: number): MaybePromise<string | undefined>;
  /** Deletes the email links expired at `now`, and `userId`'s of `purpose` (every purpose when not given). */
  deleteEmailLinks(
    now: number,
    of?: { userId: string; purpose?: EmailLink['purpose'] },
  ): MaybePromise<void>;
  insertEmailLink(values: EmailLink): MaybePromise<void>;
  /** Deletes the link and answers it, when it is stored and not expired at `now`; two uses at once: one gets it. */
  takeEmailLink(id: string, now: number): MaybePromise<EmailLink | undefined>;
  /** The id of the account with this (normalized) email, if any. */
  userIdOfEmail(email: string): MaybePromise<string | undefined>;
}

/** One accounts operation, run by a store inside one of its transactions. */
export type AccountOperation<T> = (tables: AccountTables) => Steps<T>;

/** How a store runs an operation: at once on SQLite, with a promise on PostgreSQL. */
export type AccountRunner = <T>(operation: AccountOperation<T>) => MaybePromise<T>;

type Columns<K extends string> = { [key in K]: unknown };

/**
 * The email links `deleteEmailLinks` removes, on either schema's table:
 * expired at `now`, and `of.userId`'s (of `of.purpose` when given).
 */
export const emailLinksToDelete = (
  links: { [key in 'userId' | 'purpose' | 'expiresAt']: AnyColumn },
  now: number,
  of?: { userId: string; purpose?: EmailLink['purpose'] },
) =>
  or(
    lte(links.expiresAt, new Date(now)),
    of &&
      and(
        eq(links.userId, of.userId),
        of.purpose === undefined ? undefined : eq(links.purpose, of.purpose),
      ),
  );

/** The columns of `SessionLookup` on either schema's tables (sessions joined to users). */
export const sessionLookupOf = <
  S extends Columns<'userId' | 'createdAt' | 'expiresAt' | 'lastSeenAt'>,
  U extends Columns<'role' | 'disabledAt' | 'emailUnverified'>,
>(
  sessions: S,
  users: U,
): Pick<S, 'userId' | 'createdAt' | 'expiresAt' | 'lastSeenAt'> &
  Pick<U, 'role' | 'disabledAt' | 'emailUnverified'> => ({
  userId: sessions.userId,
  createdAt: sessions.createdAt,
  expiresAt: sessions.expiresAt,
  lastSeenAt: sessions.lastSeenAt,
  role: users.role,
  disabledAt: users.disabledAt,
  emailUnverified: users.emailUnverified,
});
