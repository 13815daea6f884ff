import type { AuthenticationResponseJSON } from '@simplewebauthn/server';
import { type AuditContext, type AuditEntry, actingAs } from '@/audit/record';
import type { TokenService } from '@/auth/tokens';
import type { User } from '@/db/sqlite/schema';
import { fail, isDomainError } from '@/kernel/errors';
import type { RelyingParty } from './ceremonies';
import {
  accountCounter,
  beginAttempt,
  type FailureLedger,
  forgiveAttempt,
  ipCounter,
  type Refusal,
  refusalCounter,
} from './guessing';
import type { CallerHasher, HashingCaller } from './hashing';
import { admitHashing, type HashingLimits, typedAccount } from './hashing-limits';
import type { Notice } from './notifications';
import { finishAuthentication } from './passkey-authentication';
import { newSession } from './sessions';
import type { AccountStore } from './store';
import { userSummaryOf } from './users';

/** How a sign-in proved who it was, as its security-log events say. */
export type SignInMethod = 'password' | 'passkey';

/** Bearer tokens issued at sign-in live one hour; the browser session 7 days. */
export const ACCESS_TOKEN_TTL_SECONDS = 60 * 60;

/** The event of an attempt past the limits: counted, one event per counter and window. */
const refusalOf = (
  audit: AuditContext,
  event: Omit<AuditEntry, 'action'> & { subject: string | null },
  address: string,
): Refusal => ({
  audit,
  entry: { action: 'sign_in.refused', ...event, counter: refusalCounter(event.subject, address) },
});

const dummyHashes = new WeakMap<CallerHasher, Promise<string>>();
/** A real hash to verify against when the email is unknown (same cost, same time). */
function dummyHashOf(hasher: CallerHasher, caller: HashingCaller): Promise<string> {
  let hash = dummyHashes.get(hasher);
  if (!hash) {
    hash = hasher.hash(crypto.randomUUID(), caller);
    // A refused (busy) attempt is made again next time rather than remembered.
    hash.catch(() => dummyHashes.delete(hasher));
    dummyHashes.set(hasher, hash);
  }
  return hash;
}

/**
 * Checks an email and password under the hashing limits (every attempt,
 * per account from this address and per address) and the guessing limits
 * (failures, per account from this address, even unknown accounts, and per
 * address). An unknown email costs the same hash as a wrong password, and
 * both answer the same 401, as does the right password of a disabled account.
 */
export async function verifyPasswordSignIn(
  store: AccountStore,
  {
    hasher,
    failures,
    limits,
  }: { hasher: CallerHasher; failures: FailureLedger; limits: HashingLimits },
  input: { email: string; password: string; address: string },
  audit: AuditContext,
): Promise<User> {
  const now = audit.at;
  const hashing = typedAccount(input.email, input.address);
  await admitHashing(limits, hashing);
  const account = accountCounter(input.email, input.address);
  const user = await store.findUserByEmail(input.email);
  // What was typed for an unknown account is not kept: people type passwords
  // into the email field, and the log outlives the attempt.
  const event = {
    subject: user?.id ?? null,
    details: { method: 'password', knownAccount: user !== undefined },
  };
  const refusal = refusalOf(audit, event, input.address);
  const attempt = await beginAttempt(failures, [account, ipCounter(input.address)], now, refusal);
  let ok: boolean;
  try {
    const hash = user?.passwordHash ?? (await dummyHashOf(hasher, hashing.caller));
    ok = await hasher.verify(input.password, hash, hashing.caller);
  } catch (error) {
    // Refused for lack of capacity (503): nothing was checked, so nothing counts.
    await forgiveAttempt(failures, attempt);
    throw error;
  }
  // A disabled account answers as a wrong password does: nothing tells them apart.
  if (!user || !ok || user.disabledAt !== null) {
    await store.recordSecurityEvent(audit, { action: 'sign_in.failed', ...event });
    throw fail('credentials.invalid');
  }
  await forgiveAttempt(failures, attempt, [account.key]);
  return user;
}

export interface SignedIn {
  body: {
    accessToken: string;
    tokenType: 'Bearer';
    expiresIn: number;
    user: ReturnType<typeof userSummaryOf>;
  };
  session: { token: string; expiresAt: number };
}

/**
 * What both sign-in paths answer: a bearer token in the body and a new
 * server-side session, started in one transaction with its security-log
 * event (and the notice of a sign-in from a new device).
 */
export async function signIn(
  store: AccountStore,
  tokens: TokenService,
  user: User,
  input: {
    method: SignInMethod;
    audit: AuditContext;
    sessionsPerAccount?: number;
    notice?: Notice;
  },
): Promise<SignedIn> {
  const accessToken = await tokens.issue(user.id, user.role, ACCESS_TOKEN_TTL_SECONDS, {
    unverified: user.emailUnverified,
  });
  const audit = actingAs(input.audit, user.id);
  const session = newSession(user.id, audit);
  await store.startSession(
    session.row,
    audit,
    {
      action: 'sign_in.succeeded',
      subject: user.id,
      target: session.id,
      details: { method: input.method },
    },
    {
      perAccount: input.sessionsPerAccount,
      // An address not yet verified may be someone else's: it is sent the verification link only.
      tell:
        input.notice && !user.emailUnverified
          ? { notice: input.notice, email: user.email }
          : undefined,
    },
  );
  return {
    body: {
      accessToken,
      tokenType: 'Bearer',
      expiresIn: ACCESS_TOKEN_TTL_SECONDS,
      user: userSummaryOf(user),
    },
    session,
  };
}

/**
 * Passkey sign-in under the per-IP guessing limit: a failed or replayed
 * verification counts as a failure like a wrong password.
 */
export async function verifyPasskeySignIn(
  store: AccountStore,
  { rp, failures }: { rp: RelyingParty; failures: FailureLedger },
  input: { response: AuthenticationResponseJSON; address: string },
  audit: AuditContext,
): Promise<User> {
  const now = audit.at;
  // The credential's owner, when it is one of ours: the attempt shows in their log.
  const known = await store.findPasskeyByCredentialId(input.response.id);
  const event = {
    subject: known?.userId ?? null,
    target: known?.id ?? null,
    details: { method: 'passkey', knownCredential: known !== undefined },
  };
  const refusal = refusalOf(audit, event, input.address);
  const attempt = await beginAttempt(failures, [ipCounter(input.address)], now, refusal);
  try {
    const user = await finishAuthentication(store, rp, input.response, now);
    if (user.disabledAt !== null) throw fail('credentials.invalid');
    await forgiveAttempt(failures, attempt);
    return user;
  } catch (error) {
    if (isDomainError(error, 'credentials.invalid')) {
      await store.recordSecurityEvent(audit, { action: 'sign_in.failed', ...event });
    }
    throw error;
  }
}
