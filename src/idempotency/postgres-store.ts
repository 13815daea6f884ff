import type { SQL } from 'bun';
import { and, asc, count, eq, inArray, lt, sql } from 'drizzle-orm';
import { type PgTx, pgDatabase } from '@/db/pg/client';
import { idempotencyKeys } from '@/db/pg/schema';
import type { KeyTables } from '@/idempotency/tables';
import { runLater } from '@/kernel/steps';
import { claimKey } from './operations';
import type { IdempotencyStore } from './store';

const ofKey = (scope: string, key: string) =>
  and(eq(idempotencyKeys.scope, scope), eq(idempotencyKeys.key, key));

/** A claim's queries inside one PostgreSQL transaction (READ COMMITTED). */
const postgresKeyTables = (tx: PgTx): KeyTables => ({
  async find(scope, key) {
    const [row] = await tx.select().from(idempotencyKeys).where(ofKey(scope, key));
    return row;
  },
  async remove(scope, key) {
    await tx.delete(idempotencyKeys).where(ofKey(scope, key));
  },
  async insert(row) {
    // The claim itself: a concurrent claim of the same key makes this wait
    // for it to commit, then insert nothing (the next `find` sees its row),
    // instead of failing on the primary key.
    const inserted = await tx
      .insert(idempotencyKeys)
      .values(row)
      .onConflictDoNothing()
      .returning({ key: idempotencyKeys.key });
    return inserted.length > 0;
  },
  async removeExpiredOf(scope, before) {
    await tx
      .delete(idempotencyKeys)
      .where(and(eq(idempotencyKeys.scope, scope), lt(idempotencyKeys.createdAt, before)));
  },
  async countOf(scope) {
    const [counted] = await tx
      .select({ n: count() })
      .from(idempotencyKeys)
      .where(eq(idempotencyKeys.scope, scope));
    return counted?.n ?? 0;
  },
  async removeOldestOf(scope, n) {
    const ofCaller = eq(idempotencyKeys.scope, scope);
    // No rowid: ties within one millisecond go by the transaction that last
    // wrote the row (its claim, or the answer stored after), the nearest
    // PostgreSQL keeps to insertion order without another column.
    const oldest = tx
      .select({ key: idempotencyKeys.key })
      .from(idempotencyKeys)
      .where(ofCaller)
      .orderBy(asc(idempotencyKeys.createdAt), asc(sql`xmin::text::bigint`))
      .limit(n);
    await tx.delete(idempotencyKeys).where(and(ofCaller, inArray(idempotencyKeys.key, oldest)));
  },
  async removeExpired(before) {
    await tx.delete(idempotencyKeys).where(lt(idempotencyKeys.createdAt, before));
  },
});

/**
 * Idempotency keys on PostgreSQL: the same claims and answers as
 * `sqliteIdempotencyStore`, every one a promise. The caller owns `client`.
 */
export function postgresIdempotencyStore(client: SQL): IdempotencyStore {
  const db = pgDatabase(client);
  return {
    claim: (claim, rules) =>
      db.transaction((tx) => runLater(claimKey(postgresKeyTables(tx), claim, rules))),
    async finish(scope, key, answer) {
      if (answer === null) {
        await db.delete(idempotencyKeys).where(ofKey(scope, key));
        return;
      }
      await db.update(idempotencyKeys).set(answer).where(ofKey(scope, key));
    },
  };
}
