import { expect, test } from 'bun:test';
import { USED_CHALLENGES_PER_ACCOUNT } from '@/accounts/challenges';
import { usedChallengesQuery } from '@/accounts/sqlite-tables';
import { sqliteDatabase } from '../support/harness';
import { sqliteOnly } from '../support/postgres-mode';

sqliteOnly.describe('the SQLite query plan of a read', 'used passkey challenges', () => {
  test("an account's used challenges are an index walk, never a scan of every account's", () => {
    const db = sqliteDatabase();
    const { sql, params } = usedChallengesQuery(db, 'user-1', USED_CHALLENGES_PER_ACCOUNT).toSQL();
    const plan = (
      db.$client.query(`EXPLAIN QUERY PLAN ${sql}`).all(...(params as [])) as { detail: string }[]
    ).map((row) => row.detail);
    expect(plan).toEqual([
      'SEARCH webauthn_challenges USING COVERING INDEX webauthn_challenges_user_id_idx (user_id=?)',
    ]);
  });
});
