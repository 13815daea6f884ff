import { expect, test } from 'bun:test';
import type { Answer } from '@/api/answer';
import { transactionsAnswer } from '@/api/customer/reads';
import { propertyListAnswer, propertyReadAnswer } from '@/api/listings/properties/read';
import { ReadCache } from '@/db/read-cache';
import { openDatabase } from '@/db/sqlite/client';
import { listingsContext, makeProperty, postProperty } from '../listings/support';
import { createTestApp } from '../support/harness';
import { READ_CACHE, sqliteOnly } from '../support/postgres-mode';

const LONDON = {
  ...{ addressLine1: '1 Baker St', postalCode: 'NW1', latitude: 51.5, longitude: -0.15 },
  ...{ cityId: 'london' as const, city: 'London' },
};
const POOL = { applicability: 'unit', category: 'amenities', name: 'pool', value: 'yes' };
const MADRID_LIST = '/listings/properties?cityIds=madrid&type=apartment';
const LONDON_LIST = '/listings/properties?cityIds=london&type=studio';
const POOL_LIST = '/listings/properties?features[0][name]=pool&features[0][value]=yes';

async function setUp() {
  const ctx = await listingsContext();
  const madrid = makeProperty(ctx.db, { units: [{ rentable: true }, { rentable: true }] });
  const london = makeProperty(ctx.db, { type: 'studio', location: LONDON });
  makeProperty(ctx.db, { units: [{ rentable: true, features: [POOL] }] });
  const get = async (path: string) => {
    const res = await ctx.request<Record<string, unknown>>('GET', path, { token: ctx.employee });
    expect(res.status).toBe(200);
    return res.body;
  };
  const cache = ctx.deps.readCache;
  /** The reads (hits, misses) of `paths`, each read once. */
  const reads = async (...paths: string[]) => {
    const before = { hits: cache.hits, misses: cache.misses };
    const bodies = [];
    for (const path of paths) bodies.push(await get(path));
    return { hits: cache.hits - before.hits, misses: cache.misses - before.misses, bodies };
  };
  const paths = {
    madrid: `/listings/properties/${madrid}`,
    london: `/listings/properties/${london}`,
  };
  const all = [paths.madrid, paths.london, MADRID_LIST, LONDON_LIST, POOL_LIST];
  await reads(...all);
  return { ctx, madrid, london, reads, paths, all };
}

sqliteOnly.describe(READ_CACHE, 'ReadCache: writes drop only what they can change', () => {
  test('writes to tables no answer is read from drop nothing', async () => {
    const { ctx, reads, all } = await setUp();
    // Counted customer-API calls and a limiter flush (rate-limit windows), a job run, a plan.
    for (let i = 0; i < 3; i++) {
      const res = await ctx.request('GET', '/api/v1/c/transactions', { token: ctx.customer });
      expect(res.status).toBe(200);
    }
    await ctx.deps.limiter.flush();
    ctx.db.$client.run(
      "INSERT INTO window_usage (subject, window, window_start, resets_at, used) VALUES ('c:x', 'minute', 0, 60000, 1)",
    );
    ctx.db.$client.run(
      "INSERT INTO job_runs (job, started_at, finished_at, outcome, details) VALUES ('j', 0, 1, 'succeeded', '{}')",
    );
    ctx.db.$client.run("INSERT INTO plans (name, slug) VALUES ('x', 'x-plan')");
    expect(await reads(...all)).toMatchObject({ hits: all.length, misses: 0 });
  });

  test('a property write drops that property and the lists of its city and type', async () => {
    const { ctx, reads, paths, madrid } = await setUp();
    const put = await ctx.request('PUT', `/listings/properties/${madrid}/information`, {
      body: { isVisitable: true, yearOfConstruction: 1931 },
      token: ctx.employee,
    });
    expect(put.status).toBe(204);
    const after = await reads(paths.madrid, MADRID_LIST);
    expect(after.hits).toBe(0);
    expect(after.bodies[0]!.yearOfConstruction).toBe(1931);
    expect(await reads(paths.london, LONDON_LIST, POOL_LIST)).toMatchObject({
      hits: 3,
      misses: 0,
    });
  });

  test('a unit edit drops its property and its lists; a create elsewhere keeps the rest', async () => {
    const { ctx, reads, paths, madrid } = await setUp();
    const { id: unit } = ctx.db.$client
      .query('SELECT id FROM units WHERE property_id = ? LIMIT 1')
      .get(madrid) as { id: string };
    const patched = await ctx.request('PATCH', `/listings/properties/${madrid}/units/${unit}`, {
      body: { rentable: false },
      token: ctx.employee,
    });
    expect(patched.status).toBe(204);
    const after = await reads(paths.madrid, MADRID_LIST);
    expect(after.hits).toBe(0);
    expect(after.bodies[0]!.rentableUnits).toBe(1);
    expect(await reads(paths.london, LONDON_LIST, POOL_LIST)).toMatchObject({ hits: 3 });

    await postProperty(ctx, { location: { ...LONDON, country: undefined }, type: 'studio' });
    expect(await reads(paths.madrid, MADRID_LIST, POOL_LIST)).toMatchObject({ hits: 3 });
    const london = await reads(LONDON_LIST);
    expect(london.hits).toBe(0);
    expect(london.bodies[0]!.total).toBe(2);
  });

  test('a features search is dropped by a write to the features it names', async () => {
    const { ctx, reads, madrid } = await setUp();
    const { id: unit } = ctx.db.$client
      .query('SELECT id FROM units WHERE property_id = ? LIMIT 1')
      .get(madrid) as { id: string };
    const patched = await ctx.request('PATCH', `/listings/properties/${madrid}/units/${unit}`, {
      body: { features: [POOL] },
      token: ctx.employee,
    });
    expect(patched.status).toBe(204);
    const after = await reads(POOL_LIST);
    expect(after.hits).toBe(0);
    expect(after.bodies[0]!.total).toBe(2);
  });

  test("a transaction write drops its customer's pages only", async () => {
    const { ctx } = await setUp();
    const row = (customer: string, n: number) => ({
      ...{ customer_id: customer, booking_id: `BK-${n}`, amount: '10.00', currency: 'EUR' },
      ...{ pay_date: '2025-05-01', status: 'paid', description: null },
    });
    const mine = '/api/v1/c/transactions';
    const totalOf = async () =>
      (
        await ctx.request<{ pagination: { total: number } }>('GET', mine, {
          token: ctx.customer,
        })
      ).body.pagination.total;
    const importRows = async (rows: unknown[]) =>
      expect(
        (
          await ctx.request('POST', '/api/v1/admin/transactions', {
            token: ctx.employee,
            body: rows,
          })
        ).status,
      ).toBe(201);
    await importRows([row('owner-1', 1)]);
    expect(await totalOf()).toBe(1);
    const { hits, misses } = ctx.deps.readCache;
    await importRows([row('owner-2', 2)]);
    expect(await totalOf()).toBe(1);
    expect([ctx.deps.readCache.hits - hits, ctx.deps.readCache.misses - misses]).toEqual([1, 0]);
    await importRows([row('owner-1', 3)]);
    expect(await totalOf()).toBe(2);
  });
});

sqliteOnly.describe(READ_CACHE, 'ReadCache: every writer is seen before the next read', () => {
  test('a write through the connection outside the routes', async () => {
    const { ctx, reads, paths, madrid } = await setUp();
    ctx.db.$client.run('UPDATE properties SET verified = 1 WHERE id = ?', [madrid]);
    const after = await reads(paths.madrid, MADRID_LIST);
    expect(after.hits).toBe(0);
    expect(after.bodies[0]!.verified).toBe(true);
  });

  test('a commit by another process', async () => {
    const { ctx, reads, paths, madrid } = await setUp();
    const script = `
      const { Database } = require('bun:sqlite');
      const db = new Database(${JSON.stringify(ctx.config.databasePath)});
      db.run("UPDATE properties SET year_of_construction = 1850 WHERE id = ?", [${JSON.stringify(madrid)}]);
      db.close();`;
    const child = Bun.spawnSync([process.execPath, '-e', script]);
    expect(child.exitCode).toBe(0);
    const after = await reads(paths.madrid);
    expect(after).toMatchObject({ misses: 1 });
    expect(after.bodies[0]!.yearOfConstruction).toBe(1850);
  });

  test('a backlog longer than the feed reads at once drops everything', async () => {
    const { ctx, reads, all } = await setUp();
    const other = openDatabase(ctx.config.databasePath);
    other.$client.run(
      `WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 5000)
       INSERT INTO cache_changes (topic, key) SELECT 'feature', 'nothing-cached' FROM n`,
    );
    other.$client.close();
    expect((await reads(...all)).hits).toBe(0);
  });

  test('inside an open transaction the cache is neither read nor filled', async () => {
    const { ctx } = await setUp();
    const cache = new ReadCache({ db: ctx.db });
    let computed = 0;
    const answer = () => cache.answer('k', () => ({ value: ++computed, size: 1, tags: ['P'] }));
    ctx.db.$client.transaction(() => {
      answer();
      answer();
    })();
    expect(computed).toBe(2);
    expect([answer(), answer()]).toEqual([3, 3]);
  });
});

sqliteOnly.describe(
  READ_CACHE,
  'ReadCache: bounded, keeping what is read again or costly to compute',
  () => {
    const MIB = 1024 * 1024;

    /** A cache of 100 entries at most (a decision every 400 requests for cheap answers), and a cheap read counting its computes. */
    const cheapAnswers = () => {
      const ctx = createTestApp();
      const cache = new ReadCache({ db: ctx.db, maxEntries: 100, maxChars: MIB, admitAfterMs: 0 });
      let computes = 0;
      const cheap = (key: string) =>
        cache.answerCheap(key, () => ({
          value: ++computes,
          size: 10,
          tags: [`s:${key}`],
          cheap: true,
        })) as number;
      return { cache, cheap, computed: () => computes };
    };
    /** Answers counted as 400,000 characters each: two fit in 1 MiB. */
    const answersOf = (cache: ReadCache) => {
      let computed = 0;
      return (key: string) =>
        cache.answer(key, () => ({ value: ++computed, size: 400_000, tags: [`s:${key}`] }));
    };

    test("the read cache's share of MEMORY_BUDGET_MB is the bound: past it the least recently used goes", () => {
      // 3 MiB: 0.6 MiB for SQLite's page cache, 2.4 MiB of answers.
      const cache = createTestApp({ env: { MEMORY_BUDGET_MB: '3' } }).deps.readCache;
      for (const key of ['a', 'b', 'c'])
        cache.store(key, { value: key, size: 1_000_000, tags: [] });
      expect(cache.size).toBe(2);
    });

    test('the service holds at most 20,000 answers however small: past them the least recently used goes', () => {
      const cache = createTestApp().deps.readCache;
      for (let n = 0; n <= 20_000; n++) cache.store(`k${n}`, { value: n, size: 10, tags: [] });
      expect(cache.size).toBe(20_000);
      expect(cache.peek('k0')).toBeUndefined();
      expect(cache.peek('k20000')).toBe(20_000);
    });

    test("SQLite's page cache is its share of MEMORY_BUDGET_MB", () => {
      const ctx = createTestApp({ env: { MEMORY_BUDGET_MB: '50' } });
      const db = openDatabase(ctx.config.databasePath, {
        pageCacheKib: ctx.config.sqlitePageCacheKib,
      });
      const { cache_size } = db.$client
        .query<{ cache_size: number }, []>('PRAGMA cache_size')
        .get()!;
      db.$client.close();
      expect(cache_size).toBe(-10 * 1024);
    });

    test('once full, a scan of keys asked for once does not push out what is read again', () => {
      const ctx = createTestApp();
      const answer = answersOf(
        new ReadCache({ db: ctx.db, maxChars: MIB, admitAfterMs: Infinity }),
      );
      expect([answer('a'), answer('a'), answer('b'), answer('b')]).toEqual([1, 1, 2, 2]);
      // Full: a thousand one-off reads (a crawler, ids spread over a large table)
      // are answered but not kept; a plain LRU would have replaced both.
      for (let n = 0; n < 1000; n++) expect(answer(`scan-${n}`)).toBe(3 + n);
      expect([answer('a'), answer('b')]).toEqual([1, 2]);
    });

    test('once full, a key is let in only when asked for more often than the next to go', () => {
      const ctx = createTestApp();
      const answer = answersOf(
        new ReadCache({ db: ctx.db, maxChars: MIB, admitAfterMs: Infinity }),
      );
      const thrice = (key: string) => [answer(key), answer(key), answer(key)];
      expect([...thrice('a'), ...thrice('b')]).toEqual([1, 1, 1, 2, 2, 2]);
      // Keys each read twice lose to 'a' (three times), the least recently used:
      // a rule of "keep what is computed a second time" would have let them in.
      for (let n = 0; n < 10; n++)
        expect([answer(`k${n}`), answer(`k${n}`)]).toEqual([3, 4].map((v) => v + 2 * n));
      expect([answer('a'), answer('b')]).toEqual([1, 2]);
      // Asked for a fifth time ('a' four times by now): kept, and 'a', the next to go, goes.
      expect([answer('k0'), answer('k0'), answer('k0')]).toEqual([23, 24, 25]);
      expect([answer('k0'), answer('b'), answer('a')]).toEqual([25, 2, 26]);
    });

    test('answers quick to read again are held only while reads repeat: not while spread over far more keys than fit', () => {
      const { cache, cheap } = cheapAnswers();
      // A list page read a few times: the one other answer held, never pushed out by a one-off read.
      for (let n = 0; n < 5; n++) {
        expect(cache.answer('list', () => ({ value: `page ${n}`, size: 10, tags: ['P'] }))).toBe(
          'page 0',
        );
      }
      // A window of reads each for a key of its own, as ids uniform over a large table.
      for (let n = 0; n < 399; n++) cheap(`u${n}`);
      expect(cache.count('u')).toBe(99);
      cheap('u399');
      expect(cache.count('u')).toBe(0);
      expect(cache.count('list')).toBe(1);
      // Not held now, and only one read in 16 is looked up: the others compute as with the cache off.
      const missed = cache.misses;
      const first = cheap('again');
      for (let n = 1; n < 160; n++) expect(cheap('again')).toBe(first + n);
      expect(cache.count('again')).toBe(0);
      expect(cache.misses - missed).toBe(10);
      // Reads mostly of one key, again and again: held again within a window of 400 reads.
      for (let n = 0; n < 400; n++) cheap('hot');
      const held = cheap('hot');
      expect(cheap('hot')).toBe(held);
      expect(cache.count('hot')).toBe(1);
    });

    test('answers quick to read again stay held while most of their reads hit, before any key is read often', () => {
      const { cache, cheap, computed } = cheapAnswers();
      // Ids uniform over fewer keys than fit (as 20,000 properties with 20,000 answers):
      // each key is read five times in the first window, below the 8 that count as
      // repeating, yet four reads in five hit.
      for (let n = 0; n < 400; n++) cheap(`k${n % 80}`);
      expect(computed()).toBe(80);
      expect(cache.count('k')).toBe(80);
      // Still held after the decision: the next reads compute nothing.
      for (let n = 0; n < 160; n++) cheap(`k${n % 80}`);
      expect(computed()).toBe(80);
    });

    test('once full, an answer slow to compute is kept at once', async () => {
      const ctx = createTestApp();
      const answer = answersOf(new ReadCache({ db: ctx.db, maxChars: MIB, admitAfterMs: 0 }));
      expect([answer('a'), answer('b'), answer('c'), answer('c'), answer('a')]).toEqual([
        1, 2, 3, 3, 4,
      ]);
    });
  },
);

sqliteOnly.describe(READ_CACHE, 'ReadCache: answers are held as the UTF-8 bytes sent', () => {
  test('a property, a list page and a transaction page with non-Latin-1 text', async () => {
    const ctx = await listingsContext();
    const location = { ...LONDON, addressLine1: 'ul. Długa 5', addressLine2: '2º izquierda' };
    const id = makeProperty(ctx.db, { type: 'studio', location });
    const decode = (body: unknown) => {
      // Kept as bytes: a string holding "ł" would take two bytes a character and be
      // encoded again for every response.
      expect(body).toBeInstanceOf(Uint8Array);
      return new TextDecoder().decode(body as Uint8Array);
    };
    // The SQLite store answers at once: the fast lane stays synchronous.
    const read = propertyReadAnswer(ctx.deps, null, id, undefined) as Answer;
    const list = propertyListAnswer(
      ctx.deps,
      { sub: 'e', aud: 'employee' },
      `?ids[]=${id}`,
    ) as Answer;
    expect([read, list].some((answer) => answer instanceof Promise)).toBe(false);
    const http = await ctx.request('GET', `/listings/properties/${id}`);
    expect(decode(read.body)).toBe(JSON.stringify(http.body));
    expect(decode(list.body)).toContain('"addressLine1":"ul. Długa 5"');
    const caller = { sub: 'customer-1', aud: 'customer' } as const;
    expect(decode((await transactionsAnswer(ctx.deps, caller, '')).body)).toContain('"data":[]');
  });
});
