import { expect, test } from 'bun:test';
import { accountCounter, FAILURE_WINDOW_MS, ipCounter } from '@/accounts/guessing';
import { searchAccounts } from '@/accounts/lifecycle';
import { newSession, sessionResolver } from '@/accounts/sessions';
import { sqliteAccountStore } from '@/accounts/sqlite-store';
import type { AccountStore, NewPasskey } from '@/accounts/store';
import { normalizeEmail } from '@/accounts/users';
import { toolContext } from '@/audit/record';
import { uuidv7 } from '@/db/ids';
import type { AuditEventRow } from '@/db/sqlite/schema';
import { auditRows as sqliteAuditRows } from '../audit/support';
import { sqliteDatabase } from '../support/harness';
import { postgresUnderTest } from './stores';

/**
 * What only PostgreSQL can get wrong in the accounts store: concurrent
 * transactions (READ COMMITTED, several connections), its types and its
 * text. Each test has a database of its own.
 */
const under = postgresUnderTest();
const NOW = Date.UTC(2026, 10, 22, 12, 0, 0) + 123;
const audit = toolContext(NOW);

/** A fresh database's accounts store, with its rows read straight. */
async function open() {
  const app = await under.app();
  return { ...app, store: app.deps.stores.accounts };
}

async function newUser(store: AccountStore, email = `${uuidv7()}@example.com`) {
  const values = { id: uuidv7(), email, passwordHash: 'hash', role: 'customer' as const };
  const user = await store.createUser(values);
  if (!user) throw new Error('email taken');
  return user;
}

const passkeyOf = (userId: string, overrides: Partial<NewPasskey> = {}) => ({
  id: uuidv7(NOW),
  userId,
  credentialId: crypto.randomUUID(),
  publicKey: Buffer.from([0, 1, 254, 255]),
  counter: 5,
  transports: ['usb', 'nfc'],
  deviceType: 'multiDevice' as const,
  backedUp: true,
  name: undefined,
  createdAt: new Date(NOW),
  lastUsedAt: null,
  aaguid: '00000000-0000-0000-0000-000000000000',
  provider: 'Passkey',
  ...overrides,
});

under.describe('the accounts store', () => {
  test('six sign-ups at once for one email, in two cases: one account, one sign_up event', async () => {
    const { store, usersOf, auditRows } = await open();
    const made = await Promise.all(
      Array.from({ length: 6 }, (_, i) =>
        store.createUser(
          {
            id: uuidv7(),
            email: normalizeEmail(i % 2 ? ' Race@Example.COM' : 'race@example.com'),
            passwordHash: `hash ${i}`,
            role: 'customer',
          },
          { action: 'sign_up', audit },
        ),
      ),
    );
    const winners = made.filter((user) => user !== undefined);
    expect(winners).toHaveLength(1);
    expect(await usersOf('race@example.com')).toHaveLength(1);
    expect((await store.findUserByEmail('RACE@example.com'))?.id).toBe(winners[0]!.id);
    const events = await auditRows('sign_up');
    expect(events.map((row) => row.subjectId)).toEqual([winners[0]!.id]);
  });

  test('one challenge used five times at once: exactly one use wins', async () => {
    const { store } = await open();
    const { id: userId } = await newUser(store);
    const challenge = 'c'.repeat(56);
    const uses = await Promise.all(
      Array.from({ length: 5 }, () =>
        store.markChallengeUsed(
          {
            id: uuidv7(NOW),
            challenge,
            kind: 'authentication',
            userId,
            expiresAt: new Date(NOW + 60_000),
          },
          NOW,
        ),
      ),
    );
    expect(uses.filter(Boolean)).toHaveLength(1);
    expect(await store.usedChallengeCount()).toBe(1);
  });

  test('five verifications against one stored counter at once: one is recorded, the counter never goes back', async () => {
    const { store } = await open();
    const user = await newUser(store);
    const passkey = await store.addPasskey(passkeyOf(user.id), audit);
    const recorded = await Promise.all(
      [9, 7, 12, 6, 8].map((counter) =>
        store.recordPasskeyUse(
          passkey,
          { counter, backedUp: true, deviceType: 'multiDevice' },
          NOW + 1,
        ),
      ),
    );
    expect(recorded.filter(Boolean)).toHaveLength(1);
    const winner = [9, 7, 12, 6, 8][recorded.indexOf(true)];
    const stored = await store.findPasskeyByCredentialId(passkey.credentialId);
    expect(stored?.counter).toBe(winner!);
    expect(stored?.lastUsedAt).toEqual(new Date(NOW + 1));
    // A verification against the old counter finds it changed.
    const late = { counter: 20, backedUp: true, deviceType: 'multiDevice' as const };
    expect(await store.recordPasskeyUse(passkey, late, NOW + 2)).toBe(false);
  });

  test('one session revoked twice at once: one revocation, the other not found, one event', async () => {
    const { store, auditRows } = await open();
    const user = await newUser(store);
    const session = newSession(user.id, audit);
    await store.startSession(session.row, audit, { action: 'sign_in.succeeded', subject: user.id });
    const outcomes = await Promise.allSettled(
      [1, 2].map(() => store.revokeSession(user.id, session.id, audit)),
    );
    expect(outcomes.map((outcome) => outcome.status).sort()).toEqual(['fulfilled', 'rejected']);
    const refused = outcomes.find((outcome) => outcome.status === 'rejected');
    expect(String((refused as PromiseRejectedResult).reason)).toContain('session.not_found');
    expect(await auditRows('session.revoked')).toHaveLength(1);
  });

  test('registrations at once: one credential stored once (the others 409), new names kept apart', async () => {
    const { store, auditRows } = await open();
    const user = await newUser(store);
    const credentialId = crypto.randomUUID();
    const same = await Promise.allSettled(
      [1, 2, 3].map(() =>
        store.addPasskey(passkeyOf(user.id, { id: uuidv7(NOW), credentialId }), audit),
      ),
    );
    expect(same.filter((outcome) => outcome.status === 'fulfilled')).toHaveLength(1);
    for (const outcome of same.filter((outcome) => outcome.status === 'rejected')) {
      expect(String(outcome.reason)).toContain('passkey.already_registered');
    }
    await Promise.all(
      [1, 2, 3].map(() => store.addPasskey(passkeyOf(user.id, { id: uuidv7(NOW) }), audit)),
    );
    const names = (await store.listPasskeys(user.id)).map((passkey) => passkey.name).sort();
    expect(names).toEqual(['Passkey', 'Passkey 2', 'Passkey 3', 'Passkey 4']);
    expect(await auditRows('passkey.added')).toHaveLength(4);
  });

  test('twenty failed guesses at once against a limit of ten: ten admitted, ten refused and logged', async () => {
    const { store, auditRows } = await open();
    const counter = accountCounter('guess@example.com', '203.0.113.9');
    const refusal = { audit, entry: { action: 'sign_in.refused' as const, subject: null } };
    const outcomes = await Promise.all(
      Array.from({ length: 20 }, () => store.failures.begin([counter], NOW, refusal)),
    );
    expect(outcomes.filter((outcome) => 'failures' in outcome)).toHaveLength(counter.limit);
    const refused = outcomes.filter((outcome) => 'retryAfterMs' in outcome);
    expect(refused).toHaveLength(10);
    expect(refused[0]).toEqual({ retryAfterMs: FAILURE_WINDOW_MS });
    expect(await auditRows('sign_in.refused')).toHaveLength(10);
  });

  test('the two last active employees demote, disable or delete each other at once: one wins, the other 409', async () => {
    const { store, auditRows } = await open();
    const employee = async () => {
      const user = await newUser(store);
      await store.changeAccount(user.id, { role: 'employee' }, audit);
      return user.id;
    };
    type Move = (actor: string, other: string) => Promise<unknown>;
    const demote: Move = async (_, other) =>
      store.changeAccount(other, { role: 'customer' }, audit);
    const disable: Move = async (_, other) => store.changeAccount(other, { disabled: true }, audit);
    const remove: Move = async (_, other) => store.deleteAccount(other, audit);
    const rounds: [Move, Move][] = [
      [demote, demote],
      [disable, disable],
      [remove, remove],
      [demote, disable],
      [disable, remove],
      [remove, demote],
    ];
    const changes = async () =>
      (await auditRows('account.role_changed')).length +
      (await auditRows('account.disabled')).length +
      (await auditRows('account.deleted')).length;
    let survivor: string | undefined;
    for (const [first, second] of [...rounds, ...rounds]) {
      const [a, b] = [await employee(), await employee()];
      // The previous round's survivor steps down: a and b are the only two active.
      if (survivor) await demote(a, survivor);
      const before = await changes();
      const outcomes = await Promise.allSettled([first(a, b), second(b, a)]);
      expect(outcomes.map((outcome) => outcome.status).sort()).toEqual(['fulfilled', 'rejected']);
      const refused = outcomes.find((outcome) => outcome.status === 'rejected');
      expect((refused as PromiseRejectedResult).reason).toMatchObject({
        code: 'account.last_employee',
      });
      // The winner's change is recorded; the refused one writes nothing.
      expect(await changes()).toBe(before + 1);
      const { users } = await searchAccounts(store, { role: 'employee', state: 'active' });
      expect(users).toHaveLength(1);
      survivor = users[0]!.id;
      expect([a, b]).toContain(survivor);
    }
  });

  test('counters with NUL in the typed email are counted apart from their look-alikes', async () => {
    const { store } = await open();
    const refusal = { audit, entry: { action: 'sign_in.refused' as const, subject: null } };
    const nul = { ...accountCounter('a\u0000@example.com', '198.51.100.1'), limit: 1 };
    const lookAlike = { ...accountCounter('a\\0@example.com', '198.51.100.1'), limit: 1 };
    expect(await store.failures.begin([nul], NOW, refusal)).toHaveProperty('failures');
    expect(await store.failures.begin([lookAlike], NOW, refusal)).toHaveProperty('failures');
    expect(await store.failures.begin([nul], NOW, refusal)).toHaveProperty('retryAfterMs');
    const attempt = await store.failures.begin([ipCounter('198.51.100.1')], NOW, refusal);
    if (!('failures' in attempt)) throw new Error('refused');
    await store.failures.forgive(attempt, [nul.key]);
    expect(await store.failures.begin([nul], NOW, refusal)).toHaveProperty('failures');
  });

  test('a lookup by a value holding NUL finds nothing (PostgreSQL text cannot hold one)', async () => {
    const { store } = await open();
    const user = await newUser(store, 'nul@example.com');
    expect(await store.findUserByEmail('nul@example.com\u0000')).toBeUndefined();
    expect(await store.findUserById(`${user.id}\u0000`)).toBeUndefined();
    expect(await store.findPasskeyByCredentialId('\u0000')).toBeUndefined();
    expect(await store.renamePasskey(user.id, { id: '\u0000', name: 'x' }, audit)).toBeUndefined();
    expect(await store.deletePasskey(user.id, '\u0000', audit)).toBe(false);
  });

  test('session expiry in epoch milliseconds: live one millisecond before, over at the instant', async () => {
    const { store } = await open();
    const user = await newUser(store);
    const session = newSession(user.id, audit);
    const expiresAt = NOW + 1_000;
    await store.startSession({ ...session.row, expiresAt: new Date(expiresAt) }, audit, {
      action: 'sign_in.succeeded',
      subject: user.id,
    });
    let now = expiresAt - 1;
    const resolve = sessionResolver(store, () => now);
    expect(await resolve(session.token)).toMatchObject({ sub: user.id, via: 'session' });
    expect(await store.listSessions(user.id, now)).toHaveLength(1);
    const row = await store.sessionOf(session.row.id);
    expect(row?.createdAt).toEqual(new Date(NOW));
    expect(row?.expiresAt.getTime()).toBe(expiresAt);
    now = expiresAt;
    expect(await resolve(session.token)).toBeNull();
    expect(await store.listSessions(user.id, now)).toEqual([]);
  });

  test('a session that cannot be stored changes nothing: the expired ones it would drop stay', async () => {
    const { store, auditRows } = await open();
    const user = await newUser(store);
    const old = newSession(user.id, toolContext(NOW - 8 * 24 * 60 * 60 * 1000));
    const entry = { action: 'sign_in.succeeded' as const, subject: user.id };
    await store.startSession(old.row, audit, entry);
    // An unknown user: the insert fails its foreign key after the expired session was deleted.
    const orphan = newSession('no-such-user', audit);
    await expect(store.startSession(orphan.row, audit, entry)).rejects.toThrow();
    expect(await store.sessionOf(old.row.id)).toBeDefined();
    expect(await auditRows('sign_in.succeeded')).toHaveLength(1);
  });

  test('passkeys come back with their bytes, JSON, booleans and times, in the order they were added', async () => {
    const { store } = await open();
    const user = await newUser(store);
    const first = await store.addPasskey(passkeyOf(user.id), audit);
    const second = await store.addPasskey(
      passkeyOf(user.id, { backedUp: false, transports: [], deviceType: 'singleDevice' }),
      audit,
    );
    const listed = await store.listPasskeys(user.id);
    expect(listed.map((passkey) => passkey.id)).toEqual([first.id, second.id]);
    expect(listed.map((passkey) => passkey.name)).toEqual(['Passkey', 'Passkey 2']);
    expect(listed[0]).toMatchObject({
      publicKey: Buffer.from([0, 1, 254, 255]),
      transports: ['usb', 'nfc'],
      backedUp: true,
      counter: 5,
      createdAt: new Date(NOW),
      lastUsedAt: null,
    });
    expect(listed[1]).toMatchObject({
      backedUp: false,
      transports: [],
      deviceType: 'singleDevice',
    });
  });

  test('the same operations write the same security-log rows as on SQLite', async () => {
    const userId = uuidv7(NOW);
    const passkeyId = uuidv7(NOW);
    const later = toolContext(NOW + 1_000);
    const one = newSession(userId, audit);
    const two = newSession(userId, audit);
    const script = async (store: AccountStore) => {
      const values = {
        id: userId,
        email: 'same@example.com',
        passwordHash: 'h',
        role: 'customer' as const,
      };
      await store.createUser(values, { action: 'sign_up', audit });
      const entry = { action: 'sign_in.succeeded' as const, subject: userId, target: one.id };
      await store.startSession(one.row, audit, entry);
      await store.startSession(two.row, audit, { ...entry, target: two.id });
      await store.endSession(one.row.id, later);
      await store.revokeSession(userId, two.id, later);
      await store.addPasskey(passkeyOf(userId, { id: passkeyId }), audit);
      await store.renamePasskey(userId, { id: passkeyId, name: 'Laptop' }, later);
      await store.deletePasskey(userId, passkeyId, later);
      await store.recordSecurityEvent(later, { action: 'sign_in.failed', subject: null });
      const counter = { key: 'ip:192.0.2.1', limit: 1 };
      const refusal = { audit: later, entry: { action: 'sign_in.refused' as const } };
      await store.failures.begin([counter], NOW, refusal);
      await store.failures.begin([counter], NOW, refusal);
    };
    const withoutId = (rows: AuditEventRow[]) => rows.map(({ id: _, ...row }) => row);

    // A SQLite file of its own: under TEST_DATABASE=postgres a test app has none.
    const db = sqliteDatabase();
    await script(sqliteAccountStore(db));
    const { store, auditRows } = await open();
    await script(store);
    const expected = withoutId(sqliteAuditRows(db));
    expect(expected.map((row) => row.action)).toEqual([
      'sign_up',
      'sign_in.succeeded',
      'sign_in.succeeded',
      'sign_out',
      'session.revoked',
      'passkey.added',
      'passkey.renamed',
      'passkey.deleted',
      'sign_in.failed',
      'sign_in.refused',
    ]);
    expect(withoutId(await auditRows())).toEqual(expected);
  });
});
