import type { idempotencyKeys } from '@/db/sqlite/schema';
import type { MaybePromise } from '@/kernel/maybe-promise';

/** The queries of a claim, inside one transaction of a store (`src/kernel/steps.ts`). */
export interface KeyTables {
  find(scope: string, key: string): MaybePromise<KeyRow | undefined>;
  remove(scope: string, key: string): MaybePromise<void>;
  /** Inserts the claim unless the key is taken (by a claim committed meanwhile); whether it did. */
  insert(row: NewKeyRow): MaybePromise<boolean>;
  removeExpiredOf(scope: string, before: number): MaybePromise<void>;
  countOf(scope: string): MaybePromise<number>;
  /** Removes the caller's `count` oldest keys (created first; ties in insertion order). */
  removeOldestOf(scope: string, count: number): MaybePromise<void>;
  removeExpired(before: number): MaybePromise<void>;
}

export type KeyRow = typeof idempotencyKeys.$inferSelect;

export type NewKeyRow = typeof idempotencyKeys.$inferInsert;
