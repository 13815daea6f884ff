import { type Steps, step } from '@/kernel/steps';
import { type Attempt, FAILURE_WINDOW_MS, type FailureLedger } from './guessing';
import type { AccountRunner } from './tables';

/**
 * Failures in the `auth_failures` table of a store, checked and recorded in
 * one transaction that holds off every other on the same counters. A
 * refusal is recorded in the security log by the same transaction as the
 * check (committed: the 429 is thrown after it).
 */
export function tableFailureLedger(run: AccountRunner): FailureLedger {
  return {
    async begin(counters, now, refusal) {
      const since = now - FAILURE_WINDOW_MS;
      return run(function* (tables): Steps<Attempt | { retryAfterMs: number }> {
        yield* step(tables.lockFailureCounters(counters.map(({ key }) => key)));
        // Failures that left the window count for nothing; dropping them bounds the table.
        yield* step(tables.deleteFailuresUpTo(since));
        let retryAfterMs = 0;
        for (const { key, limit } of counters) {
          const times = yield* step(tables.failureTimes(key, since));
          if (times.length < limit) continue;
          // Admitted again once enough failures age out to leave room for one more.
          const freedAt = times[times.length - limit]! + FAILURE_WINDOW_MS;
          retryAfterMs = Math.max(retryAfterMs, freedAt - now);
        }
        if (retryAfterMs > 0) {
          yield* step(tables.recordAudit(refusal.audit, refusal.entry));
          return { retryAfterMs };
        }
        const failures: { key: string; id: string }[] = [];
        for (const { key } of counters) {
          failures.push({ key, id: yield* step(tables.insertFailure(key, now)) });
        }
        return { failures };
      });
    },
    async forgive(attempt, clearKeys) {
      const ids = attempt.failures.map((failure) => failure.id);
      const keys = [...new Set([...attempt.failures.map((failure) => failure.key), ...clearKeys])];
      await run(function* (tables) {
        // Under the counters' locks, as `begin`: two attempts forgiven at once
        // that share a counter would otherwise each delete its own rows, then
        // wait on the other's (a deadlock on PostgreSQL).
        yield* step(tables.lockFailureCounters(keys));
        yield* step(tables.deleteFailures(ids, clearKeys));
      });
    },
  };
}
