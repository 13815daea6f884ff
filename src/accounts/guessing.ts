import type { AuditContext, AuditEntry } from '@/audit/record';
import { fail } from '@/kernel/errors';
import { normalizeEmail } from './email';

/**
 * Sign-in failures are counted over a sliding 15 minutes: 10 per account
 * from one address, 50 per address. An address here is the client as the
 * per-address limits count it: an IPv6 client by its network
 * (RATE_LIMIT_IPV6_PREFIX), so one customer's /64 is one address.
 */
export const FAILURE_WINDOW_MS = 15 * 60 * 1000;
export const ACCOUNT_FAILURE_LIMIT = 10;
export const IP_FAILURE_LIMIT = 50;

export interface FailureCounter {
  key: string;
  limit: number;
}

/**
 * Keyed by the email as typed (normalized), whether or not an account has
 * it, together with the client address: a stranger's wrong guesses lock the
 * account for the stranger's address only, never for its owner elsewhere.
 */
export const accountCounter = (email: string, address: string): FailureCounter => ({
  key: `account:${address} ${normalizeEmail(email)}`,
  limit: ACCOUNT_FAILURE_LIMIT,
});

export const ipCounter = (address: string): FailureCounter => ({
  key: `ip:${address}`,
  limit: IP_FAILURE_LIMIT,
});

/**
 * The security log's counter of refused attempts: the account targeted, or
 * for an unknown account (what was typed is not kept) the client address,
 * over fixed windows as long as the failure window. Every refusal of one
 * counter in one window adds to one event (`src/audit/operations.ts`).
 */
export const refusalCounter = (subject: string | null, address: string) => ({
  key: subject === null ? `address ${address}` : `account ${subject}`,
  windowMs: FAILURE_WINDOW_MS,
});

/** An attempt in flight: one provisional failure per counter, by the id its ledger gave it. */
export interface Attempt {
  failures: readonly { key: string; id: string }[];
}

/** The security-log event of an attempt the limits refuse. */
export interface Refusal {
  audit: AuditContext;
  entry: AuditEntry;
}

/**
 * Where failures are counted: the accounts store's table (SQLite or
 * PostgreSQL), or Redis when instances share it. `begin` is one atomic
 * step — check every counter, then record a provisional failure in each only when all have room — so
 * concurrent guesses, on any instance, cannot all slip past the check.
 */
export interface FailureLedger {
  /** The attempt, or how long until the counters have room (the refusal recorded). */
  begin(
    counters: readonly FailureCounter[],
    now: number,
    refusal: Refusal,
  ): Promise<Attempt | { retryAfterMs: number }>;
  /** Drops the attempt's provisional failures, and every failure of `clearKeys`. */
  forgive(attempt: Attempt, clearKeys: readonly string[]): Promise<void>;
}

/**
 * Admits an attempt or throws 429 with the seconds until the oldest counted
 * failure leaves the window. The attempt is recorded as a failure *before*
 * the password or signature is checked (and forgiven on success), so
 * concurrent guesses cannot all slip past the check while the first hash is
 * still being computed.
 */
export async function beginAttempt(
  ledger: FailureLedger,
  counters: readonly FailureCounter[],
  now: number,
  refusal: Refusal,
): Promise<Attempt> {
  const outcome = await ledger.begin(counters, now, refusal);
  if ('retryAfterMs' in outcome) {
    const retryAfterSeconds = Math.ceil(outcome.retryAfterMs / 1000);
    throw fail('auth.too_many_attempts', { retryAfterSeconds });
  }
  return outcome;
}

/**
 * A successful attempt is not a failure. `clearKeys` also wipes earlier
 * failures of those counters (the account's own after a correct password).
 */
export function forgiveAttempt(
  ledger: FailureLedger,
  attempt: Attempt,
  clearKeys: readonly string[] = [],
): Promise<void> {
  return ledger.forgive(attempt, clearKeys);
}
