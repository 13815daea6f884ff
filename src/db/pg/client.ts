import type { SQL } from 'bun';
import { type BunSQLDatabase, drizzle } from 'drizzle-orm/bun-sql';
import * as pgSchema from './schema';

/** drizzle over Bun's PostgreSQL client, with the pg-core schema of `./schema`. */
export type PgDb = BunSQLDatabase<typeof pgSchema>;
/** A transaction handle of `PgDb` (one connection, `BEGIN` … `COMMIT`). */
export type PgTx = Parameters<Parameters<PgDb['transaction']>[0]>[0];

/**
 * A drizzle database on `client`; the caller owns the client and closes it.
 * Rows come back as the SQLite schema's row types (docs/postgresql.md).
 */
export const pgDatabase = (client: SQL): PgDb =>
  drizzle({ client, schema: pgSchema, casing: 'snake_case' });

/**
 * The rows a statement without `returning()` changed: Bun's result carries
 * `count`, which drizzle's `bun-sql` types do not show.
 */
export const changedRows = (result: unknown): number => (result as { count: number }).count;

/**
 * The Bun client a drizzle transaction runs its statements on (the
 * `bun-sql` session's), for statements written as text inside it.
 * `test/db/pg-insert-rows.test.ts` checks it is the transaction.
 */
export const bunClientOf = (tx: PgTx): SQL =>
  (tx as unknown as { session: { client: SQL } }).session.client;
