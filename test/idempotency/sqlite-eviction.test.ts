import type { Database } from 'bun:sqlite';
import { expect, test } from 'bun:test';
import { join } from 'node:path';
import { migrateDatabase, openDatabase } from '@/db/sqlite/client';
import { sqliteIdempotencyStore } from '@/idempotency/sqlite-store';
import type { KeyClaim } from '@/idempotency/store';
import { tempDir } from '../support/harness';

/**
 * A claim past a caller's bound drops its oldest keys (and its expired ones)
 * in every claim: these statements must walk the caller's keys oldest first
 * and stop, not read all of them and sort (a keyed create cost about five
 * unkeyed ones that way at the default bound of 1,000).
 */

/** Records the text of every statement the connection prepares. */
function recordStatements(client: Database): string[] {
  const texts: string[] = [];
  for (const method of ['prepare', 'query'] as const) {
    const original = client[method].bind(client) as (sql: string) => unknown;
    (client as unknown as Record<string, (sql: string) => unknown>)[method] = (sql: string) => {
      texts.push(sql);
      return original(sql);
    };
  }
  return texts;
}

test('a claim past the bound evicts through the (scope, created_at) index, sorting nothing', () => {
  const db = openDatabase(join(tempDir('idempotency-eviction-'), 'app.db'));
  migrateDatabase(db);
  const store = sqliteIdempotencyStore(db);
  const claim = (key: string, now: number): KeyClaim => ({
    scope: 'caller',
    key,
    method: 'POST',
    path: '/listings/properties',
    requestHash: 'hash',
    now,
  });
  const rules = { keysPerCaller: 3, pruneDue: () => false };
  for (let n = 0; n < 3; n++) expect(store.claim(claim(`key-${n}`, 1_000 + n), rules)).toBeNull();
  const texts = recordStatements(db.$client);
  expect(store.claim(claim('key-3', 1_003), rules)).toBeNull();
  const keys = db.$client
    .query<{ key: string }, []>('SELECT key FROM idempotency_keys ORDER BY created_at')
    .all()
    .map((row) => row.key);
  // The oldest went: the bound holds.
  expect(keys).toEqual(['key-1', 'key-2', 'key-3']);
  const eviction = texts.filter((text) => /delete from "idempotency_keys"/i.test(text));
  // The caller's expired keys, then its oldest beyond the bound.
  expect(eviction).toHaveLength(2);
  for (const text of eviction) {
    const plan = db.$client
      .query<{ detail: string }, []>(`EXPLAIN QUERY PLAN ${text}`)
      .all()
      .map((row) => row.detail)
      .join('\n');
    expect(plan).toContain('idempotency_keys_scope_created_at');
    expect(plan).not.toContain('TEMP B-TREE');
  }
  db.$client.close();
});
