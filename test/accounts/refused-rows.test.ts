import { beforeAll, describe, expect, test } from 'bun:test';
import type { PasswordHasher } from '@/accounts/hashing';
import { DEFAULT_AUDIT_ROWS_PER_HOUR } from '@/audit/operations';
import { AuditPage } from '@/audit/schemas';
import { problemOf } from '../support/harness';
import { redisEnv, redisSkipReason, redisTitle } from '../support/redis';
import {
  type AccountsTestApp,
  postgresUnderTest,
  type StoreUnderTest,
  sqliteUnderTest,
} from './stores';
import { PASSWORD, UNKNOWN_PASSKEY_ASSERTION } from './support';

const MINUTE_MS = 60_000;
/** The guessing limiter's window, and so the refusal counter's. */
const WINDOW_MS = 15 * MINUTE_MS;

/** A cheap argon2id hasher that counts its calls: refused attempts must not reach it. */
function countingHasher() {
  const calls = { hash: 0, verify: 0 };
  const hasher: PasswordHasher = {
    hash: (password) => {
      calls.hash++;
      return Bun.password.hash(password, { algorithm: 'argon2id', memoryCost: 1024, timeCost: 1 });
    },
    verify: (password, hash) => {
      calls.verify++;
      return Bun.password.verify(password, hash).catch(() => false);
    },
  };
  return { hasher, calls };
}

/**
 * Refused sign-ins and repeated account actions write bounded rows
 * (docs/accounts.md, "The security log"), on each store and ledger.
 */
function boundedRowsTests(ledgerEnv: Record<string, string>, under: StoreUnderTest) {
  const { hasher, calls } = countingHasher();
  let ctx: AccountsTestApp;
  beforeAll(async () => {
    ctx = await under.app({ env: { TRUST_PROXY: 'true', ...ledgerEnv }, hasher });
  });
  let ipCounter = 0;
  const newIp = () => `198.51.100.${++ipCounter}`;

  const signIn = (email: string, password: string, ip: string, headers = {}) =>
    ctx.request('POST', '/auth/sign-in', {
      body: { email, password },
      headers: { 'x-forwarded-for': ip, ...headers },
    });
  const failedPasskey = (ip: string) =>
    ctx.request('POST', '/auth/passkey/authenticate', {
      headers: { 'x-forwarded-for': ip },
      body: { response: UNKNOWN_PASSKEY_ASSERTION },
    });

  /** 10 wrong passwords: the account is refused from `ip` for the next 15 minutes. */
  async function lockOut(email: string, ip: string) {
    for (let i = 0; i < 10; i++) expect((await signIn(email, 'wrong', ip)).status).toBe(401);
    expect((await signIn(email, PASSWORD, ip)).body).toEqual(problemOf(429));
  }

  const refusedRows = async (subject: string | null) =>
    (await ctx.auditRows('sign_in.refused')).filter((row) => row.subjectId === subject);

  test('the figure: 1,000 refused sign-ins write one row, counting 1,000, and hash nothing', async () => {
    const user = await ctx.createAccount();
    const ip = newIp();
    for (let i = 0; i < 10; i++) expect((await signIn(user.email, 'wrong', ip)).status).toBe(401);
    const rowsBefore = (await ctx.auditRows()).length;
    const verifiesBefore = calls.verify;
    for (let i = 0; i < 1000; i++) {
      expect((await signIn(user.email, PASSWORD, ip)).status).toBe(429);
    }
    const refused = await refusedRows(user.id);
    expect(refused).toHaveLength(1);
    expect(refused[0]).toMatchObject({ count: 1000, counterKey: expect.any(String) });
    expect((await ctx.auditRows()).length - rowsBefore).toBe(1);
    expect(calls.verify).toBe(verifiesBefore);
    console.log(
      `refused-sign-in rows written by 1,000 attempts (accounts on ${ctx.deps.postgres || under !== sqliteUnderTest ? 'PostgreSQL' : 'SQLite'}, ${ledgerEnv.REDIS_URL ? 'Redis' : 'table'} ledger): ${refused.length}, count ${refused[0]!.count}`,
    );
  });

  test('50 concurrent refused attempts make one row with count 50', async () => {
    const user = await ctx.createAccount();
    const ip = newIp();
    for (let i = 0; i < 10; i++) expect((await signIn(user.email, 'wrong', ip)).status).toBe(401);
    const answers = await Promise.all(
      Array.from({ length: 50 }, () => signIn(user.email, PASSWORD, ip).then((res) => res.status)),
    );
    expect(answers).toEqual(Array.from({ length: 50 }, () => 429));
    const refused = await refusedRows(user.id);
    expect(refused).toHaveLength(1);
    expect(refused[0]!.count).toBe(50);
  });

  test('one row per window: the first refusal of the next window starts a new one', async () => {
    const user = await ctx.createAccount();
    const ip = newIp();
    // One minute into a window; the lock-out lasts 15 minutes, past the window's end.
    ctx.clock.set(Math.ceil(ctx.clock() / WINDOW_MS) * WINDOW_MS + MINUTE_MS);
    await lockOut(user.email, ip);
    ctx.clock.advance(MINUTE_MS);
    for (let i = 0; i < 2; i++) expect((await signIn(user.email, PASSWORD, ip)).status).toBe(429);
    ctx.clock.advance(13 * MINUTE_MS);
    for (let i = 0; i < 4; i++) expect((await signIn(user.email, PASSWORD, ip)).status).toBe(429);
    const refused = await refusedRows(user.id);
    expect(refused.map((row) => row.count)).toEqual([3, 4]);
    expect(refused[0]!.lastAt!.getTime() - refused[0]!.at.getTime()).toBe(MINUTE_MS);
  });

  test("the account's security log shows the counted row, caller text cut", async () => {
    const user = await ctx.createAccount();
    const ip = newIp();
    const headers = { 'user-agent': 'A'.repeat(600), 'x-request-id': 'r'.repeat(128) };
    for (let i = 0; i < 10; i++) await signIn(user.email, 'wrong', ip, headers);
    for (let i = 0; i < 5; i++) await signIn(user.email, PASSWORD, ip, headers);
    const rows = await ctx.auditRows();
    for (const row of rows) {
      expect(row.userAgent?.length ?? 0).toBeLessThanOrEqual(256);
      expect(row.requestId?.length ?? 0).toBeLessThanOrEqual(64);
    }
    const stored = await refusedRows(user.id);
    expect(stored).toHaveLength(1);
    expect(stored[0]).toMatchObject({ userAgent: 'A'.repeat(256), requestId: 'r'.repeat(64) });
    // The route reads the app's own audit log: the store under test only when it is the app's.
    if (under !== sqliteUnderTest) return;
    const session = await ctx.signIn(user.email, PASSWORD);
    const res = await ctx.request<AuditPage>('GET', '/auth/security-log?limit=100', {
      headers: { cookie: session.cookie },
    });
    const events = AuditPage.parse(res.body).events;
    const refused = events.filter((event) => event.action === 'sign_in.refused');
    expect(refused).toEqual([
      expect.objectContaining({
        count: 5,
        lastAt: expect.any(String),
        userAgent: 'A'.repeat(256),
        requestId: 'r'.repeat(64),
      }),
    ]);
  });

  test('unknown emails are counted per client address, whatever was typed', async () => {
    const [first, second] = [newIp(), newIp()];
    for (const ip of [first, second]) {
      for (let i = 0; i < 10; i++) await signIn('nobody@example.com', 'wrong', ip);
    }
    // Locked out for that email only: another unknown email is admitted (and fails) once.
    for (let i = 0; i < 4; i++) await signIn('nobody@example.com', 'x', first);
    await signIn('nobody@example.com', 'x', second);
    const refused = await refusedRows(null);
    const ofAddress = (ip: string) => refused.filter((row) => row.ip === ip);
    expect(ofAddress(first).map((row) => row.count)).toEqual([4]);
    expect(ofAddress(second).map((row) => row.count)).toEqual([1]);
    expect(refused.every((row) => !JSON.stringify(row).includes('nobody'))).toBe(true);
  });

  test('refused passkey attempts are counted too', async () => {
    const ip = newIp();
    for (let i = 0; i < 50; i++) expect((await failedPasskey(ip)).status).toBe(401);
    for (let i = 0; i < 20; i++) expect((await failedPasskey(ip)).status).toBe(429);
    const refused = (await refusedRows(null)).filter((row) => row.ip === ip);
    expect(refused.map((row) => row.count)).toEqual([20]);
  });

  test('past AUDIT_ROWS_PER_CALLER_PER_HOUR rows of one action, the rest of the hour is counted', async () => {
    const user = await ctx.createAccount();
    const limit = DEFAULT_AUDIT_ROWS_PER_HOUR;
    ctx.clock.set(Math.ceil(ctx.clock() / (60 * MINUTE_MS)) * 60 * MINUTE_MS);
    for (let i = 0; i < limit + 4; i++) await ctx.signIn(user.email, PASSWORD);
    for (let i = 0; i < limit + 2; i++) await signIn(user.email, 'wrong', newIp());
    const rows = (await ctx.auditRows()).filter((row) => row.subjectId === user.id);
    const shape: unknown[] = rows.map((row) => [row.action, row.count, row.counterKey !== null]);
    const single = (action: string): (string | number | boolean)[][] =>
      Array.from({ length: limit }, () => [action, 1, false]);
    expect(shape).toEqual([
      ...single('sign_in.succeeded'),
      ['sign_in.succeeded', 4, true],
      ...single('sign_in.failed'),
      ['sign_in.failed', 2, true],
    ]);
    // The next hour writes rows again.
    ctx.clock.advance(60 * MINUTE_MS);
    await ctx.signIn(user.email, PASSWORD);
    const next = (await ctx.auditRows('sign_in.succeeded')).filter((r) => r.subjectId === user.id);
    expect(next.at(-1)).toMatchObject({ count: 1, counterKey: null });
  });
}

describe('bounded security-log rows', () => {
  describe('failures in SQLite', () => boundedRowsTests({}, sqliteUnderTest));
  const postgres = postgresUnderTest();
  postgres.describe('failures in the account store', () => boundedRowsTests({}, postgres));
  const skip = redisSkipReason !== undefined;
  describe.skipIf(skip)(redisTitle('failures in Redis'), () =>
    boundedRowsTests(skip ? {} : redisEnv(), sqliteUnderTest),
  );
});
