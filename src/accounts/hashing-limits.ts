import type { AddressBound } from './address-limit';
import { normalizeEmail } from './email';
import type { HashingCaller } from './hashing';

/**
 * Requests that hash a password (sign-in, sign-up, a password change or
 * set, an account created by an employee), successes included: per client
 * address, and per account. Checked before anything is hashed; past either,
 * 429 `auth.too_many_requests` with Retry-After. The guessing protection
 * counts failures only, so without these a correct password could be
 * checked as often as a client can send it.
 */
export interface HashingLimits {
  perAddress: AddressBound;
  perAccount: AddressBound;
}

/** Whom a hashing request is for: the hasher's caller and the key of its per-account count. */
export interface HashingRequest {
  caller: HashingCaller;
  accountKey: string;
}

/**
 * A request for an email typed by a caller not signed in (sign-in,
 * sign-up). Nothing proves who sends it, so the account is counted from
 * this address only, as the guessing protection does: a stranger's
 * requests for someone's email cannot lock its owner out elsewhere.
 */
export function typedAccount(email: string, address: string): HashingRequest {
  const account = normalizeEmail(email);
  return { caller: { address, account }, accountKey: `typed ${address} ${account}` };
}

/** A request of a signed-in caller (their password change, an employee's changes): their account wherever they are. */
export const signedInAccount = (userId: string, address: string): HashingRequest => ({
  caller: { address, account: userId },
  accountKey: `user ${userId}`,
});

/** Admits one hashing request or throws 429 (`auth.too_many_requests`) with Retry-After. */
export async function admitHashing(limits: HashingLimits, request: HashingRequest): Promise<void> {
  await limits.perAddress.take(request.caller.address);
  await limits.perAccount.take(request.accountKey);
}
