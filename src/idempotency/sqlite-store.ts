import { and, asc, count, eq, inArray, lt, sql } from 'drizzle-orm';
import type { Db, Tx } from '@/db/sqlite/client';
import { idempotencyKeys } from '@/db/sqlite/schema';
import type { KeyTables } from '@/idempotency/tables';
import { runNow } from '@/kernel/steps';
import { claimKey } from './operations';
import type { IdempotencyStore } from './store';

const ofKey = (scope: string, key: string) =>
  and(eq(idempotencyKeys.scope, scope), eq(idempotencyKeys.key, key));

/** A claim's queries inside one SQLite transaction; every one answers at once. */
const sqliteKeyTables = (tx: Tx): KeyTables => ({
  find: (scope, key) => tx.select().from(idempotencyKeys).where(ofKey(scope, key)).get(),
  remove: (scope, key) => {
    tx.delete(idempotencyKeys).where(ofKey(scope, key)).run();
  },
  insert: (row) =>
    tx
      .insert(idempotencyKeys)
      .values(row)
      .onConflictDoNothing()
      .returning({ key: idempotencyKeys.key })
      .all().length > 0,
  removeExpiredOf: (scope, before) => {
    tx.delete(idempotencyKeys)
      .where(and(eq(idempotencyKeys.scope, scope), lt(idempotencyKeys.createdAt, before)))
      .run();
  },
  countOf: (scope) =>
    tx.select({ n: count() }).from(idempotencyKeys).where(eq(idempotencyKeys.scope, scope)).get()
      ?.n ?? 0,
  removeOldestOf: (scope, n) => {
    const ofCaller = eq(idempotencyKeys.scope, scope);
    const oldest = tx
      .select({ key: idempotencyKeys.key })
      .from(idempotencyKeys)
      .where(ofCaller)
      .orderBy(asc(idempotencyKeys.createdAt), asc(sql`rowid`))
      .limit(n);
    tx.delete(idempotencyKeys)
      .where(and(ofCaller, inArray(idempotencyKeys.key, oldest)))
      .run();
  },
  removeExpired: (before) => {
    tx.delete(idempotencyKeys).where(lt(idempotencyKeys.createdAt, before)).run();
  },
});

/** Idempotency keys on `bun:sqlite`: every call answers at once, a claim in one transaction. */
export const sqliteIdempotencyStore = (db: Db): IdempotencyStore => ({
  claim: (claim, rules) =>
    db.transaction((tx) => runNow(claimKey(sqliteKeyTables(tx), claim, rules))),
  finish(scope, key, answer) {
    if (answer === null) {
      db.delete(idempotencyKeys).where(ofKey(scope, key)).run();
      return;
    }
    db.update(idempotencyKeys).set(answer).where(ofKey(scope, key)).run();
  },
});
