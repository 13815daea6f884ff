import type { TokenCutoff } from '@/auth/tokens';
import type { Passkey, PasswordReset, Session, User } from '@/db/sqlite/schema';
import type { MaybePromise } from '@/kernel/maybe-promise';
import type { EmailLinkOperations } from './email-link-operations';
import type { FailureLedger } from './guessing';
import type { LifecycleOperations } from './lifecycle-operations';
import type { AccountOperations } from './operations';
import type { PasswordResetOperations } from './password-reset-operations';
import type { UserSearch } from './user-search';

export type {
  AccountOperation,
  AccountRunner,
  AccountTables,
  NewChallenge,
  NewPasskey,
  NewSession,
  NewUser,
} from './tables';

/** What the auth plugin needs of a session on every request. */
/**
 * The token cut-offs from their rows: each stored one by subject, and 'all'
 * for each disabled account (the rule once; each store reads the rows).
 */
export const tokenCutoffsOf = (
  stored: readonly { subject: string; validAfter: Date }[],
  disabled: readonly { id: string }[],
): [string, TokenCutoff][] => [
  ...stored.map((row): [string, TokenCutoff] => [row.subject, row.validAfter.getTime()]),
  ...disabled.map((row): [string, TokenCutoff] => [row.id, 'all']),
];

export interface SessionLookup {
  userId: string;
  createdAt: Date;
  expiresAt: Date;
  lastSeenAt: Date | null;
  role: User['role'];
  disabledAt: Date | null;
  emailUnverified: boolean;
}

/**
 * Where the accounts domain keeps its rows: users, browser sessions,
 * passkeys, used WebAuthn challenges and sign-in failures, with the
 * security-log events of their changes written in the same transaction.
 * Every method is one whole operation in one transaction of the store.
 *
 * `sqliteAccountStore` answers every call at once (the session lookup of
 * every cookie request stays one prepared statement); `postgresAccountStore`
 * answers with promises. Callers compose results with `whenReady`.
 */
export interface AccountStore
  extends AccountOperations,
    LifecycleOperations,
    PasswordResetOperations,
    EmailLinkOperations {
  findUserByEmail(email: string): MaybePromise<User | undefined>;
  findUserById(id: string): MaybePromise<User | undefined>;
  /** The email of each of `ids` that is an account (at most a page's worth: one query). */
  emailsOf(ids: readonly string[]): MaybePromise<{ id: string; email: string }[]>;
  hasAnyUser(): MaybePromise<boolean>;
  /** The session by the hash of its cookie value, with its user's role. */
  sessionOf(id: string): MaybePromise<SessionLookup | undefined>;
  /** Writes "last seen" of a session. */
  touchSession(id: string, at: number): MaybePromise<void>;
  /** When the session started (its credential check), undefined when it is gone. */
  sessionStartedAt(id: string): MaybePromise<Date | undefined>;
  listSessions(userId: string, now: number): MaybePromise<Session[]>;
  /** Oldest first, in the order they were added. */
  listPasskeys(userId: string): MaybePromise<Passkey[]>;
  findPasskeyByCredentialId(credentialId: string): MaybePromise<Passkey | undefined>;
  /** Used challenges currently remembered. */
  usedChallengeCount(): MaybePromise<number>;
  /** Sign-in failures (the ledger without Redis). */
  failures: FailureLedger;
  /** Every token cut-off: stored ones by subject, and 'all' for each disabled account. */
  tokenCutoffs(): MaybePromise<[string, TokenCutoff][]>;
  /** A stored reset link by its token's hash (expired or not). */
  findPasswordReset(id: string): MaybePromise<PasswordReset | undefined>;
  /** A page of accounts, newest first (`GET /admin/users`). */
  searchUsers(query: UserSearch): MaybePromise<User[]>;
}
