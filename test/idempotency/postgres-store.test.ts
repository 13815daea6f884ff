import { beforeAll, describe, expect, test } from 'bun:test';
import { type PgDb, pgDatabase } from '@/db/pg/client';
import * as pg from '@/db/pg/schema';
import { IDEMPOTENCY_TTL_MS } from '@/idempotency/operations';
import { postgresIdempotencyStore } from '@/idempotency/postgres-store';
import type { IdempotencyStore, KeyClaim } from '@/idempotency/store';
import { migratedDatabaseForSuite, pgSuite, postgresAvailable } from '../support/postgres';

/** What only PostgreSQL can get wrong in the idempotency keys (docs/postgresql.md). */
describe.skipIf(!postgresAvailable)(pgSuite('PostgreSQL idempotency store'), () => {
  const database = migratedDatabaseForSuite(6);
  let store: IdempotencyStore;
  let db: PgDb;

  beforeAll(() => {
    db = pgDatabase(database.client());
    store = postgresIdempotencyStore(database.client());
  });

  const NOW = Date.UTC(2026, 0, 2);
  const rules = { keysPerCaller: 1000, pruneDue: () => false };
  const claimOf = (key: string, overrides: Partial<KeyClaim> = {}): KeyClaim => ({
    scope: 'caller',
    key,
    method: 'POST',
    path: '/listings/properties',
    requestHash: 'hash-1',
    now: NOW,
    ...overrides,
  });
  const settle = (claims: KeyClaim[]) =>
    Promise.allSettled(claims.map((claim) => Promise.resolve(store.claim(claim, rules))));
  const codesOf = (results: PromiseSettledResult<unknown>[]) =>
    results.map((result) =>
      result.status === 'fulfilled' ? result.value : (result.reason as { code: string }).code,
    );

  test('five claims of one key at once: exactly one is claimed, the others answer 409', async () => {
    const results = await settle(Array.from({ length: 5 }, () => claimOf('race')));
    const codes = codesOf(results);
    expect(codes.filter((code) => code === null)).toHaveLength(1);
    expect(codes.filter((code) => code === 'idempotency.in_progress')).toHaveLength(4);
    expect(await db.select().from(pg.idempotencyKeys)).toHaveLength(1);
  });

  test('claims of one key with other requests at once: one is claimed, the others answer 422', async () => {
    const claims = ['a', 'b', 'c', 'd'].map((hash) => claimOf('race-2', { requestHash: hash }));
    const codes = codesOf(await settle(claims));
    expect(codes.filter((code) => code === null)).toHaveLength(1);
    expect(codes.filter((code) => code === 'request.invalid')).toHaveLength(3);
  });

  test('a stored answer is replayed with its status, headers and exact body', async () => {
    expect(await store.claim(claimOf('done'), rules)).toBeNull();
    const body = '{"b":1,"a":"\\u00fc ✓"}';
    const headers = { 'content-type': 'application/json', location: '/x/1' };
    await store.finish('caller', 'done', { status: 201, headers, body });
    expect(await store.claim(claimOf('done'), rules)).toEqual({ status: 201, headers, body });
  });

  test('an expired key is claimed afresh; a freed one too', async () => {
    expect(await store.claim(claimOf('old'), rules)).toBeNull();
    await store.finish('caller', 'old', { status: 200, headers: {}, body: '' });
    const later = claimOf('old', { now: NOW + IDEMPOTENCY_TTL_MS + 1, requestHash: 'other' });
    expect(await store.claim(later, rules)).toBeNull();
    await store.finish('caller', 'old', null);
    expect(await store.claim(later, rules)).toBeNull();
  });

  test('the bound per caller drops its oldest keys, those of one millisecond in claim order', async () => {
    const bounded = { keysPerCaller: 2, pruneDue: () => false };
    for (const key of ['k0', 'k1', 'k2', 'k3']) {
      expect(await store.claim(claimOf(key, { scope: 'bounded' }), bounded)).toBeNull();
    }
    const kept = await db.select({ key: pg.idempotencyKeys.key }).from(pg.idempotencyKeys);
    expect(
      kept
        .map((row) => row.key)
        .filter((key) => key.startsWith('k'))
        .sort(),
    ).toEqual(['k2', 'k3']);
  });
});
