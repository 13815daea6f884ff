import type { AuditContext } from '@/audit/record';
import type { AdminAuditPage, AuditPage } from '@/audit/schemas';
import type { TokenRevocation } from '@/auth/revocation';
import type { User } from '@/db/sqlite/schema';
import { fail } from '@/kernel/errors';
import {
  accountCounter,
  beginAttempt,
  type FailureLedger,
  forgiveAttempt,
  ipCounter,
} from './guessing';
import type { CallerHasher } from './hashing';
import {
  admitHashing,
  type HashingLimits,
  type HashingRequest,
  signedInAccount,
} from './hashing-limits';
import type { AccountChange, Revoked } from './lifecycle-operations';
import type { Notice } from './notifications';
import type { AccountSummary } from './schemas';
import { hashOf } from './session-ids';
import type { AccountStore } from './store';
import { USER_PAGE_DEFAULT, type UserSearch, userPageOf } from './user-search';

export type { AccountChange } from './lifecycle-operations';

/** What the lifecycle changes need besides the store. */
export interface LifecycleGuards {
  hasher: CallerHasher;
  limits: HashingLimits;
  failures: FailureLedger;
  revocation: TokenRevocation;
}

/** Hands a committed change's cut-off to the token service (here and on every instance). */
async function revoked<T>(
  revocation: TokenRevocation,
  sub: string,
  change: Revoked<T> | Promise<Revoked<T>>,
): Promise<T> {
  const { value, cutoff } = await change;
  if (cutoff !== undefined) await revocation.revoke(sub, cutoff);
  return value;
}

/**
 * Checks the signed-in user's current password before a change that needs
 * it (a new password, a new address): under the hashing limits (the
 * account's, wherever it comes from, and the address's) and sign-in's
 * guessing limits (the same counters: guesses here and at sign-in add up);
 * a wrong one is the 401 of a wrong sign-in. `purpose` names the change in
 * the events.
 */
export async function checkCurrentPassword(
  store: AccountStore,
  { hasher, limits, failures }: Omit<LifecycleGuards, 'revocation'>,
  user: User,
  input: { currentPassword: string; address: string; purpose: 'password_change' | 'email_change' },
  audit: AuditContext,
): Promise<HashingRequest> {
  const hashing = signedInAccount(user.id, input.address);
  await admitHashing(limits, hashing);
  const account = accountCounter(user.email, input.address);
  const event = { subject: user.id, details: { method: 'password', purpose: input.purpose } };
  const refusal = { audit, entry: { action: 'sign_in.refused' as const, ...event } };
  const attempt = await beginAttempt(
    failures,
    [account, ipCounter(input.address)],
    audit.at,
    refusal,
  );
  let ok: boolean;
  try {
    ok = await hasher.verify(input.currentPassword, user.passwordHash, hashing.caller);
  } catch (error) {
    // Refused for lack of capacity (503): nothing was checked, so nothing counts.
    await forgiveAttempt(failures, attempt);
    throw error;
  }
  if (!ok) {
    await store.recordSecurityEvent(audit, { action: 'sign_in.failed', ...event });
    throw fail('credentials.invalid');
  }
  await forgiveAttempt(failures, attempt, [account.key]);
  return hashing;
}

/**
 * The signed-in user changes their password, once the current one is
 * checked (`checkCurrentPassword`). Then every other session ends and every
 * bearer token issued until now is refused — a bearer caller's own token
 * included (nothing tells it apart from a stolen copy); `sessionToken`, the
 * caller's own session cookie, continues.
 */
export async function changePassword(
  store: AccountStore,
  guards: LifecycleGuards,
  user: User,
  input: {
    currentPassword: string;
    newPassword: string;
    address: string;
    sessionToken: string | undefined;
  },
  audit: AuditContext,
  notice?: Notice,
): Promise<void> {
  const hashing = await checkCurrentPassword(
    store,
    guards,
    user,
    { ...input, purpose: 'password_change' },
    audit,
  );
  const passwordHash = await guards.hasher.hash(input.newPassword, hashing.caller);
  const keep = input.sessionToken === undefined ? undefined : hashOf(input.sessionToken);
  await revoked(
    guards.revocation,
    user.id,
    store.changePassword(user.id, passwordHash, keep, audit, notice),
  );
}

/** "Sign out everywhere": every session of the account ends and every token issued until now is refused. */
export const endEverySession = (
  store: AccountStore,
  revocation: TokenRevocation,
  userId: string,
  audit: AuditContext,
): Promise<void> => revoked(revocation, userId, store.endEverySession(userId, audit));

/** What employees see of an account. */
export const accountSummaryOf = (user: User): AccountSummary => ({
  id: user.id,
  email: user.email,
  role: user.role,
  disabled: user.disabledAt !== null,
  createdAt: user.createdAt.toISOString(),
  disabledAt: user.disabledAt?.toISOString() ?? null,
  emailVerified: !user.emailUnverified,
});

/** A page of accounts, newest first. */
export async function searchAccounts(
  store: AccountStore,
  query: Omit<UserSearch, 'limit'> & { limit?: number },
) {
  const limit = query.limit ?? USER_PAGE_DEFAULT;
  const page = userPageOf(await store.searchUsers({ ...query, limit }), limit);
  return { users: page.users.map(accountSummaryOf), nextCursor: page.nextCursor };
}

/** A page of the audit log with the email of each account its events name (one query). */
export async function withAccountEmails(
  store: AccountStore,
  page: AuditPage,
): Promise<AdminAuditPage> {
  const ids = new Set<string>();
  for (const { actor, subject } of page.events) {
    if (actor !== null) ids.add(actor);
    if (subject !== null) ids.add(subject);
  }
  const found = await store.emailsOf([...ids]);
  return { ...page, emails: Object.fromEntries(found.map(({ id, email }) => [id, email])) };
}

/** One account; 404 when there is none of this id. */
export async function findAccount(store: AccountStore, id: string): Promise<AccountSummary> {
  const user = await store.findUserById(id);
  if (!user) throw fail('account.not_found');
  return accountSummaryOf(user);
}

/**
 * An employee changes an account's role or state, or marks its address
 * verified (see `changeAccount` for what each revokes, and whom it tells).
 */
export const changeAccount = async (
  store: AccountStore,
  revocation: TokenRevocation,
  input: { id: string; change: AccountChange },
  audit: AuditContext,
  notice?: Notice,
): Promise<AccountSummary> =>
  accountSummaryOf(
    await revoked(revocation, input.id, store.changeAccount(input.id, input.change, audit, notice)),
  );

/**
 * An employee (or an operator's command) sets an account's password; every
 * credential but passkeys is revoked. An employee's request (`by`: their
 * account and address) is under the hashing limits; a command's is not.
 */
export async function setAccountPassword(
  store: AccountStore,
  {
    hasher,
    limits,
    revocation,
  }: Pick<LifecycleGuards, 'hasher' | 'revocation'> & {
    limits?: HashingLimits;
  },
  input: { id: string; password: string; by?: HashingRequest },
  audit: AuditContext,
  notice?: Notice,
): Promise<void> {
  const caller = input.by?.caller ?? { address: 'local' };
  if (limits && input.by) await admitHashing(limits, input.by);
  // Not found before the hash is paid for.
  if (!(await store.findUserById(input.id))) throw fail('account.not_found');
  const passwordHash = await hasher.hash(input.password, caller);
  await revoked(
    revocation,
    input.id,
    store.setAccountPassword(input.id, passwordHash, audit, notice),
  );
}

/** Deletes an account (see `deleteAccount` for what goes with it and what stays). */
export const deleteAccount = async (
  store: AccountStore,
  revocation: TokenRevocation,
  id: string,
  audit: AuditContext,
): Promise<User> => revoked(revocation, id, store.deleteAccount(id, audit));
