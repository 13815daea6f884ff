import type { AuthenticationResponseJSON } from '@simplewebauthn/server';
import type { TokenService } from '@/auth/tokens';
import type { Db } from '@/db/client';
import type { User } from '@/db/schema';
import { fail } from '@/kernel/errors';
import { finishAuthentication, type RelyingParty } from './ceremonies';
import { accountCounter, beginAttempt, forgiveAttempt, ipCounter } from './guessing';
import type { PasswordHasher } from './hashing';
import { createSession } from './sessions';
import { findUserByEmail, userSummaryOf } from './users';

/** Bearer tokens issued at sign-in live one hour; the browser session 7 days. */
export const ACCESS_TOKEN_TTL_SECONDS = 60 * 60;

const dummyHashes = new WeakMap<PasswordHasher, Promise<string>>();
/** A real hash to verify against when the email is unknown (same cost, same time). */
function dummyHashOf(hasher: PasswordHasher): Promise<string> {
  let hash = dummyHashes.get(hasher);
  if (!hash) {
    hash = hasher.hash(crypto.randomUUID());
    // A refused (busy) attempt is made again next time rather than remembered.
    hash.catch(() => dummyHashes.delete(hasher));
    dummyHashes.set(hasher, hash);
  }
  return hash;
}

/**
 * Checks an email and password under the guessing limits (per account from
 * this address, even unknown accounts, and per address). An unknown email
 * costs the same hash as a wrong password, and both answer the same 401.
 */
export async function verifyPasswordSignIn(
  db: Db,
  hasher: PasswordHasher,
  input: { email: string; password: string; address: string },
  now: number,
): Promise<User> {
  const account = accountCounter(input.email, input.address);
  const attempt = beginAttempt(db, [account, ipCounter(input.address)], now);
  const user = findUserByEmail(db, input.email);
  let ok: boolean;
  try {
    ok = await hasher.verify(input.password, user?.passwordHash ?? (await dummyHashOf(hasher)));
  } catch (error) {
    // Refused for lack of capacity (503): nothing was checked, so nothing counts.
    forgiveAttempt(db, attempt);
    throw error;
  }
  if (!user || !ok) throw fail('credentials.invalid');
  forgiveAttempt(db, attempt, [account.key]);
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

/** What both sign-in paths answer: a bearer token in the body and a new server-side session. */
export async function signIn(
  db: Db,
  tokens: TokenService,
  user: User,
  now: number,
): Promise<SignedIn> {
  const accessToken = await tokens.issue(user.id, user.role, ACCESS_TOKEN_TTL_SECONDS);
  return {
    body: {
      accessToken,
      tokenType: 'Bearer',
      expiresIn: ACCESS_TOKEN_TTL_SECONDS,
      user: userSummaryOf(user),
    },
    session: createSession(db, user.id, now),
  };
}

/**
 * Passkey sign-in under the per-IP guessing limit: a failed or replayed
 * verification counts as a failure like a wrong password.
 */
export async function verifyPasskeySignIn(
  db: Db,
  rp: RelyingParty,
  input: { response: AuthenticationResponseJSON; address: string },
  now: number,
): Promise<User> {
  const attempt = beginAttempt(db, [ipCounter(input.address)], now);
  const user = await finishAuthentication(db, rp, input.response, now);
  forgiveAttempt(db, attempt);
  return user;
}
