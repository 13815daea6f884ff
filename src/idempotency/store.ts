import type { MaybePromise } from '@/kernel/maybe-promise';

/** A request claiming its key. */
export interface KeyClaim {
  /** SHA-256 of the caller (audience and subject), so a key never crosses callers. */
  scope: string;
  key: string;
  method: string;
  path: string;
  requestHash: string;
  now: number;
}

/** The parts of a final response kept for a replay. */
export interface StoredAnswer {
  status: number;
  headers: Record<string, string>;
  body: string;
}

export interface ClaimRules {
  /** Live keys kept per caller; the oldest go first. */
  keysPerCaller: number;
  /** Asked after each new claim: whether to drop every caller's expired keys now. */
  pruneDue(): boolean;
}

/**
 * Where `Idempotency-Key` claims and their answers are kept. The rules of a
 * claim (expiry, 422, 409, the bound per caller) are the steps of
 * `./operations.ts`; a store holds only its SQL. `sqliteIdempotencyStore`
 * answers at once, `postgresIdempotencyStore` with promises.
 */
export interface IdempotencyStore {
  /**
   * Claims the key in one transaction: the stored answer to replay, or null
   * once the key is this request's. Throws the 422 of a key used with
   * another request and the 409 of a key whose first request still runs.
   */
  claim(claim: KeyClaim, rules: ClaimRules): MaybePromise<StoredAnswer | null>;
  /** Keeps the final answer of a claimed key, or (null) frees the key. */
  finish(scope: string, key: string, answer: StoredAnswer | null): MaybePromise<void>;
}
