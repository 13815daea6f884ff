import type { KeyRow, KeyTables } from '@/idempotency/tables';
import { fail, fieldError } from '@/kernel/errors';
import { type Steps, step } from '@/kernel/steps';
import type { ClaimRules, KeyClaim, StoredAnswer } from './store';

export const IDEMPOTENCY_TTL_MS = 24 * 60 * 60 * 1000;

const inProgress = () =>
  fail('idempotency.in_progress', {
    detail: 'A request with this Idempotency-Key is still being processed',
  });

/** What a key already held answers: a replay, 422 for another request, 409 while it runs. */
function answerOf(row: KeyRow, requestHash: string): StoredAnswer {
  if (row.requestHash !== requestHash) {
    throw fieldError(
      ['Idempotency-Key'],
      'keyReused',
      'The Idempotency-Key was already used with a different request',
    );
  }
  if (row.status === null) throw inProgress();
  return { status: row.status, headers: row.headers ?? {}, body: row.body ?? '' };
}

/**
 * Looks the key up and claims it: the stored answer to replay, or null once
 * the key is this request's. Two requests with one key at once: the insert
 * of the second finds the first's claim (it waits for the first to commit
 * on PostgreSQL) and answers as a retry would, 409 or 422.
 */
export function* claimKey(
  tables: KeyTables,
  claim: KeyClaim,
  { keysPerCaller, pruneDue }: ClaimRules,
): Steps<StoredAnswer | null> {
  const { scope, key, now, requestHash } = claim;
  const cutoff = now - IDEMPOTENCY_TTL_MS;
  let row = yield* step(tables.find(scope, key));
  if (row && row.createdAt < cutoff) {
    yield* step(tables.remove(scope, key));
    row = undefined;
  }
  if (row) return answerOf(row, requestHash);
  const { method, path } = claim;
  const inserted = yield* step(
    tables.insert({ scope, key, method, path, requestHash, createdAt: now }),
  );
  if (!inserted) {
    const holder = yield* step(tables.find(scope, key));
    // Claimed and freed again (a 5xx) between the two looks: still running as far as we know.
    if (!holder) throw inProgress();
    return answerOf(holder, requestHash);
  }
  yield* evictBeyondBound(tables, scope, cutoff, keysPerCaller);
  if (pruneDue()) yield* step(tables.removeExpired(cutoff));
  return null;
}

/**
 * Keeps at most `keysPerCaller` live keys per caller by dropping its
 * oldest: retries follow their request within minutes, so the oldest keys
 * are the ones no retry will ask for, and a busy client is never refused.
 */
function* evictBeyondBound(
  tables: KeyTables,
  scope: string,
  cutoff: number,
  keysPerCaller: number,
): Steps<void> {
  yield* step(tables.removeExpiredOf(scope, cutoff));
  const live = yield* step(tables.countOf(scope));
  if (live > keysPerCaller) yield* step(tables.removeOldestOf(scope, live - keysPerCaller));
}
