import type { AuthenticationResponseJSON } from '@simplewebauthn/server';
import type { TokenService } from '@/auth/tokens';
import type { Db } from '@/db/client';
import type { User } from '@/db/schema';
import { fail } from '@/kernel/errors';
import { finishAuthentication, type RelyingParty } from './ceremonies';
import { accountCounter, beginAttempt, forgiveAttempt, ipCounter } from './guessing';
import { createSession } from './sessions';
import { findUserByEmail, userSummaryOf } from './users';

/** Bearer tokens issued at sign-in live one hour; the browser session 7 days. */
export const ACCESS_TOKEN_TTL_SECONDS = 60 * 60;

let dummyHash: Promise<string> | undefined;
/** A real argon2id hash to verify against when the email is unknown (same cost, same time). */
const dummyHashOnce = () =>
  (dummyHash ??= Bun.password.hash(crypto.randomUUID(), { algorithm: 'argon2id' }));

async function passwordMatches(password: string, hash: string): Promise<boolean> {
  try {
    return await Bun.password.verify(password, hash);
  } catch {
    return false;
  }
}

/**
 * Checks an email and password under the guessing limits (per account, even
 * unknown ones, and per IP). An unknown email costs the same hash as a wrong
 * password, and both answer the same 401.
 */
export async function verifyPasswordSignIn(
  db: Db,
  input: { email: string; password: string; address: string },
  now: number,
): Promise<User> {
  const account = accountCounter(input.email);
  const attempt = beginAttempt(db, [account, ipCounter(input.address)], now);
  const user = findUserByEmail(db, input.email);
  const ok = await passwordMatches(input.password, user?.passwordHash ?? (await dummyHashOnce()));
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
