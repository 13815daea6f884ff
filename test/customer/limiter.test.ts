import { describe, expect, test } from 'bun:test';
import { parseConfig } from '@/config';
import type { PlanRow } from '@/db/sqlite/schema';
import { calendarSpan, isoWithOffset } from '@/rate-limit/calendar';
import { type LimiterRecords, RateLimiter } from '@/rate-limit/limiter';
import { MemoryStore } from '@/rate-limit/memory-store';
import { SlidingLog } from '@/rate-limit/sliding-log';
import type { WindowRule } from '@/rate-limit/store';
import {
  type StoredWindow,
  sqliteWindowPersistence,
  type WindowPersistence,
} from '@/rate-limit/window-persistence';
import { createTestApp, manualClock } from '../support/harness';
import { sqliteOnly } from '../support/postgres-mode';
import { storesUnderTest } from './stores';

const at = (iso: string) => Date.parse(iso);

describe('calendar windows (UTC)', () => {
  test.each([
    ['hour', '2026-11-22T12:34:56Z', '2026-11-22T12:00:00Z', '2026-11-22T13:00:00Z'],
    ['day', '2026-11-22T23:59:59.999Z', '2026-11-22T00:00:00Z', '2026-11-23T00:00:00Z'],
    ['week', '2026-11-22T10:00:00Z', '2026-11-16T00:00:00Z', '2026-11-23T00:00:00Z'],
    ['week', '2026-11-23T00:00:00Z', '2026-11-23T00:00:00Z', '2026-11-30T00:00:00Z'],
    ['month', '2026-12-31T23:00:00Z', '2026-12-01T00:00:00Z', '2027-01-01T00:00:00Z'],
    ['month', '2028-02-10T00:00:00Z', '2028-02-01T00:00:00Z', '2028-03-01T00:00:00Z'],
  ] as const)('%s containing %s', (kind, now, start, end) => {
    expect(calendarSpan(kind, at(now))).toEqual({ start: at(start), end: at(end) });
  });

  test('ISO 8601 with offset, rounded up to the second', () => {
    expect(isoWithOffset(at('2026-11-22T12:01:00Z'))).toBe('2026-11-22T12:01:00+00:00');
    expect(isoWithOffset(at('2026-11-22T12:01:00.001Z'))).toBe('2026-11-22T12:01:01+00:00');
  });
});

describe('sliding log', () => {
  test('holds at most the limit and frees a slot 60 s after each request', () => {
    const log = new SlidingLog(3);
    log.push(0);
    log.push(10_000);
    log.push(20_000);
    expect(log.count(59_999)).toBe(3);
    expect(log.resetAt(59_999)).toBe(60_000);
    expect(log.count(60_000)).toBe(2);
    log.push(60_000);
    expect(log.count(60_000)).toBe(3);
    expect(log.resetAt(60_000)).toBe(70_000);
  });

  test('grows past its initial capacity and keeps order', () => {
    const log = new SlidingLog(100);
    for (let i = 0; i < 100; i++) log.push(i);
    expect(log.count(99)).toBe(100);
    expect(log.count(60_050)).toBe(49);
    expect(log.resetAt(60_050)).toBe(60_051);
  });

  test('a lower limit keeps the newest requests; a higher one adds room', () => {
    const log = new SlidingLog(5);
    for (const t of [0, 1, 2, 3, 4]) log.push(t);
    log.setLimit(2);
    expect(log.count(10)).toBe(2);
    expect(log.resetAt(10)).toBe(60_003);
    log.setLimit(4);
    log.push(11);
    log.push(12);
    expect(log.count(12)).toBe(4);
  });
});

describe('memory store', () => {
  const minute: WindowRule[] = [{ kind: 'minute', limit: 2 }];

  test('checks every window before recording in any', () => {
    const store = new MemoryStore();
    const rules: WindowRule[] = [
      { kind: 'minute', limit: 10 },
      { kind: 'hour', limit: 1 },
    ];
    expect(store.hit('k', rules, 0).admitted).toBe(true);
    const refused = store.hit('k', rules, 1);
    expect(refused.admitted).toBe(false);
    expect(refused.windows.map((w) => w.used)).toEqual([1, 1]);
  });

  test('evicts callers idle for a minute', () => {
    const store = new MemoryStore();
    for (let i = 0; i < 50; i++) store.hit(`ip:${i}`, minute, 0);
    expect(store.size).toBe(50);
    store.hit('ip:late', minute, 30_000);
    expect(store.size).toBe(51);
    store.hit('ip:later', minute, 60_000);
    expect(store.size).toBe(2);
  });

  test('without persistence, running calendar windows are kept in memory', () => {
    const store = new MemoryStore();
    const rules: WindowRule[] = [
      { kind: 'minute', limit: 10 },
      { kind: 'day', limit: 2 },
    ];
    store.hit('c:x', rules, 0);
    store.hit('other', minute, 120_000);
    expect(store.peek('c:x', rules, 120_000)[1]!.used).toBe(1);
  });
});

/**
 * A persistence that answers later, as PostgreSQL's does, kept in a map;
 * `hold()` keeps saves waiting until the function it returns is called,
 * `failNextSave()` refuses the next one.
 */
function persistenceAnsweringLater() {
  const stored = new Map<string, StoredWindow[]>();
  let gate: Promise<void> = Promise.resolve();
  let failing = false;
  const persistence: WindowPersistence = {
    load: async (subject) => stored.get(subject) ?? [],
    async save(rows) {
      await gate;
      if (failing) {
        failing = false;
        throw new Error('connection lost');
      }
      for (const row of rows) {
        const others = (stored.get(row.subject) ?? []).filter((kept) => kept.kind !== row.kind);
        stored.set(row.subject, [...others, row]);
      }
    },
    deleteExpired: async () => 0,
  };
  const hold = () => {
    let release = () => {};
    gate = new Promise((resolve) => {
      release = resolve;
    });
    return release;
  };
  const failNextSave = () => {
    failing = true;
  };
  return { persistence, stored, hold, failNextSave };
}

describe('memory store over a persistence that answers later', () => {
  const rules: WindowRule[] = [
    { kind: 'minute', limit: 10 },
    { kind: 'day', limit: 5 },
  ];
  const dayUsed = async (store: MemoryStore<WindowPersistence>, key: string, now: number) =>
    (await store.peek(key, rules, now))[1]!.used;

  test('a caller swept while its windows are being saved is loaded with the saved counts', async () => {
    const { persistence, hold } = persistenceAnsweringLater();
    const store = new MemoryStore({ persistence });
    await store.hit('c:a', rules, 0);
    const release = hold();
    const flushed = store.flush();
    // A minute later the idle caller is swept; the save has not finished.
    await store.hit('other', rules, 61_000);
    expect(await dayUsed(store, 'c:a', 61_000)).toBe(1);
    release();
    await flushed;
  });

  test('a failed save leaves the counters to the next flush', async () => {
    const { persistence, stored, failNextSave } = persistenceAnsweringLater();
    const store = new MemoryStore({ persistence });
    await store.hit('c:a', rules, 0);
    failNextSave();
    await store.flush();
    expect(stored.get('c:a')).toBeUndefined();
    await store.flush();
    expect(stored.get('c:a')?.map((row) => row.used)).toEqual([1]);
  });
});

sqliteOnly.describe('persists windows through the SQLite store', 'resetExpiredWindows', () => {
  test('clears ended calendar windows in store and memory', async () => {
    const start = Date.UTC(2026, 10, 22, 12, 30);
    const ctx = createTestApp({ clock: manualClock(start) });
    const store = new MemoryStore({ persistence: sqliteWindowPersistence(ctx.db) });
    const rules: WindowRule[] = [
      { kind: 'minute', limit: 100 },
      { kind: 'hour', limit: 10 },
      { kind: 'day', limit: 10 },
    ];
    store.hit('c:a', rules, start);
    store.hit('c:b', rules, start);
    store.flush();
    expect(store.resetExpired(start + 60_000)).toBe(0);
    // 13:00: both hour windows ended, the day windows run on.
    expect(store.resetExpired(Date.UTC(2026, 10, 22, 13))).toBe(2);
    const rows = ctx.db.$client.query('SELECT subject, window FROM window_usage').all();
    expect(rows).toEqual([
      { subject: 'c:a', window: 'day' },
      { subject: 'c:b', window: 'day' },
    ]);
    expect(store.peek('c:a', rules, Date.UTC(2026, 10, 22, 13)).map((w) => w.used)).toEqual([
      0, 0, 1,
    ]);
  });
});

for (const store of storesUnderTest()) {
  store.describe('resetExpiredWindows through the limiter of the app', () => {
    test("a plan's day window ends at midnight UTC", async () => {
      const ctx = await store.app({ clock: manualClock(Date.UTC(2026, 10, 22, 23, 0)) });
      const admin = await ctx.tokenFor('admin', 'employee');
      const plan = await ctx.request<{ id: number }>('POST', '/api/v1/admin/plans', {
        token: admin,
        body: { name: 'Daily', slug: 'daily', limits: { day: 3 } },
      });
      await ctx.request('PUT', '/api/v1/admin/customers/c-day/plan', {
        token: admin,
        body: { planId: plan.body.id },
      });
      const token = await ctx.tokenFor('c-day');
      for (let i = 0; i < 3; i++) await ctx.request('GET', '/api/v1/c/transactions', { token });
      expect(await ctx.deps.limiter.resetExpiredWindows()).toEqual({ cleared: 0 });
      ctx.clock.set(Date.UTC(2026, 10, 23, 0, 0, 1));
      expect(await ctx.deps.limiter.resetExpiredWindows()).toEqual({ cleared: 1 });
      expect((await ctx.request('GET', '/api/v1/c/transactions', { token })).status).toBe(200);
    });
  });
}

describe('limiter over records that answer later', () => {
  test('a plan read under way when an admin change lands serves its request but is not kept', async () => {
    const config = parseConfig({ DATABASE_PATH: ':memory:', LOG_LEVEL: 'silent' });
    const answers: ((row: PlanRow | undefined) => void)[] = [];
    const records: LimiterRecords = {
      customerPlan: () => new Promise((resolve) => answers.push(resolve)),
      employeeLimit: async () => undefined,
      windows: persistenceAnsweringLater().persistence,
    };
    const limiter = new RateLimiter({ records, config, clock: () => 0 });
    const key = limiter.limitKeyOf({ sub: 'c-1', aud: 'customer' }, '');
    const first = limiter.peek(key);
    // The plan changes (and the cache is dropped) while the first read is under way.
    limiter.invalidate();
    answers[0]!(undefined);
    expect(await first).toHaveLength(1);
    const second = limiter.peek(key);
    expect(answers).toHaveLength(2);
    answers[1]!(undefined);
    await second;
    // Read again after the change, that one is kept.
    await limiter.peek(key);
    expect(answers).toHaveLength(2);
  });
});
