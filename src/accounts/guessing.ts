import { and, asc, eq, gt, inArray, lte } from 'drizzle-orm';
import { type AuditContext, type AuditEntry, recordAudit } from '@/audit/record';
import type { Db } from '@/db/client';
import { authFailures } from '@/db/schema';
import { fail } from '@/kernel/errors';
import { normalizeEmail } from './users';

/**
 * Sign-in failures are counted over a sliding 15 minutes: 10 per account
 * from one address, 50 per address.
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
 * Where failures are counted: SQLite for one instance, Redis when
 * instances share it. `begin` is one atomic step — check every counter,
 * then record a provisional failure in each only when all have room — so
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

/**
 * Failures in the `auth_failures` table. A refusal is recorded in the
 * security log by the same transaction as the check (committed: the 429 is
 * thrown after it).
 */
export function sqliteFailureLedger(db: Db): FailureLedger {
  return {
    async begin(counters, now, refusal) {
      const since = now - FAILURE_WINDOW_MS;
      return db.transaction((tx): Attempt | { retryAfterMs: number } => {
        // Failures that left the window count for nothing; dropping them bounds the table.
        tx.delete(authFailures).where(lte(authFailures.at, since)).run();
        let retryAfterMs = 0;
        for (const { key, limit } of counters) {
          const times = tx
            .select({ at: authFailures.at })
            .from(authFailures)
            .where(and(eq(authFailures.key, key), gt(authFailures.at, since)))
            .orderBy(asc(authFailures.at))
            .all();
          if (times.length < limit) continue;
          // Admitted again once enough failures age out to leave room for one more.
          const freedAt = times[times.length - limit]!.at + FAILURE_WINDOW_MS;
          retryAfterMs = Math.max(retryAfterMs, freedAt - now);
        }
        if (retryAfterMs > 0) {
          recordAudit(tx, refusal.audit, refusal.entry);
          return { retryAfterMs };
        }
        const failures = counters.map(({ key }) => {
          const { id } = tx
            .insert(authFailures)
            .values({ key, at: now })
            .returning({ id: authFailures.id })
            .get();
          return { key, id: String(id) };
        });
        return { failures };
      });
    },
    async forgive(attempt, clearKeys) {
      const ids = attempt.failures.map((failure) => Number(failure.id));
      db.transaction((tx) => {
        tx.delete(authFailures).where(inArray(authFailures.id, ids)).run();
        if (clearKeys.length > 0)
          tx.delete(authFailures)
            .where(inArray(authFailures.key, [...clearKeys]))
            .run();
      });
    },
  };
}
