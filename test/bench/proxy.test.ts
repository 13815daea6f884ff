import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { TokenService } from '@/auth/tokens';
import { type RoundRobinProxy, startProxy } from '../../bench/proxy';
import { freePort, startServer } from '../accounts/server-process';
import { pool, randomProperty, seeded } from '../slow/support';
import { createTestDatabase, type TestDatabase } from '../support/postgres';
import { onPostgres } from '../support/postgres-mode';
import { redisEnv, redisSkipReason } from '../support/redis';

/**
 * Two PostgreSQL-mode instances (each its own process, one database, one
 * Redis) behind the bench's round-robin proxy (`bench/proxy.ts`), as
 * `bun run bench:postgres -- --instances 2` runs them: what one instance
 * wrote is what the other reads at once, though each keeps a read cache of
 * its own, because the change feed drops whatever another instance's write
 * made stale. Runs under TEST_DATABASE=postgres with the shared Redis.
 */

const JWT_SECRET = 'proxy-suite-secret-0123456789-abcdefghijklmnop';
const CREATES = 40;
const CHANGES = 8;

interface Page {
  _embedded: { 'svc:properties': { yearOfConstruction: number | null }[] };
}

const skipReason = !onPostgres ? 'runs with TEST_DATABASE=postgres' : redisSkipReason;
const title = (text: string) => (skipReason ? `${text} (skipped: ${skipReason})` : text);

describe.skipIf(skipReason !== undefined)(
  title('two PostgreSQL instances behind the bench proxy'),
  () => {
    let database: TestDatabase;
    const servers: ReturnType<typeof Bun.spawn>[] = [];
    const bases: string[] = [];
    let proxy: RoundRobinProxy;
    let headers: Record<string, string>;

    beforeAll(async () => {
      database = await createTestDatabase();
      const token = await new TokenService(JWT_SECRET).issue('proxy-employee', 'employee', 3600);
      headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
      const env = {
        DATABASE_URL: database.url,
        ...redisEnv(),
        JWT_SECRET,
        READ_CACHE: 'on',
        LOG_LEVEL: 'warn',
      };
      // One after the other: the first migrates the new database.
      for (let n = 0; n < 2; n++) {
        const port = freePort();
        servers.push(await startServer(port, env));
        bases.push(`http://127.0.0.1:${port}`);
      }
      proxy = startProxy(bases);
    }, 60_000);

    afterAll(async () => {
      proxy?.stop();
      for (const server of servers) server.kill('SIGTERM');
      await Promise.all(servers.map((server) => server.exited));
      await database?.drop();
    }, 60_000);

    const get = async <T>(url: string): Promise<T> => {
      const response = await fetch(url, { headers });
      expect(response.status).toBe(200);
      return (await response.json()) as T;
    };
    /** The list total each instance answers, asked of it directly. */
    const totals = () =>
      Promise.all(bases.map((base) => get<{ total: number }>(`${base}/listings/properties`))).then(
        (pages) => pages.map((page) => page.total),
      );
    /** Reads the read cache answered on instance `n`, from its /metrics. */
    const cacheHits = async (n: number) => {
      const text = await (await fetch(`${bases[n]}/metrics`, { headers })).text();
      return Number(/^listings_read_cache_hits_total (\d+)/m.exec(text)?.[1]);
    };
    /** Which instance the proxy handed its next request to: the one whose count moved. */
    const servedBy = async (send: () => Promise<Response>) => {
      const before = [...proxy.forwarded];
      const response = await send();
      return { response, instance: proxy.forwarded.findIndex((count, n) => count !== before[n]) };
    };

    test('creates through the proxy are spread over both instances, and both count every one', async () => {
      // Read twice on each, so each holds its total before the creates.
      await totals();
      const before = await totals();
      expect(before[0]).toBe(before[1]!);
      const forwardedBefore = [...proxy.forwarded];
      const random = seeded(50);
      const statuses: number[] = [];
      await pool(CREATES, 8, async (n) => {
        const response = await fetch(`${proxy.base}/listings/properties`, {
          method: 'POST',
          headers,
          body: JSON.stringify(randomProperty(random, `Proxy street ${n}`)),
        });
        await response.arrayBuffer();
        statuses.push(response.status);
      });
      expect(statuses).toEqual(Array(CREATES).fill(201));
      expect(proxy.forwarded.map((count, n) => count - forwardedBefore[n]!)).toEqual([
        CREATES / 2,
        CREATES / 2,
      ]);
      expect(await totals()).toEqual([before[0]! + CREATES, before[1]! + CREATES]);
    });

    test('a change written through one instance is read back exactly through the other, whose cache held the old answer', async () => {
      const created = await fetch(`${proxy.base}/listings/properties`, {
        method: 'POST',
        headers,
        body: JSON.stringify(randomProperty(seeded(7), 'Proxy square 1')),
      });
      expect(created.status).toBe(201);
      const id = created.headers.get('location')!.split('/').pop()!;
      // A list of this one property, which the read cache holds (a point read is held only
      // once reads repeat over many keys).
      const list = `/listings/properties?ids=${id}`;
      const yearIn = async (url: string) =>
        (await get<Page>(url))._embedded['svc:properties'][0]!.yearOfConstruction;
      const writers = new Set<number>();
      for (let change = 0; change < CHANGES; change++) {
        // Read on each instance until it holds the page (a read after a change its cache has
        // not looked at yet is not kept: two reads), then once more, from its cache.
        for (let warm = 0; warm < 2; warm++) {
          for (const base of bases) await yearIn(`${base}${list}`);
        }
        const hitsBefore = await Promise.all([cacheHits(0), cacheHits(1)]);
        for (const base of bases) await yearIn(`${base}${list}`);
        const hitsAfter = await Promise.all([cacheHits(0), cacheHits(1)]);
        expect(hitsAfter.map((hits, n) => hits - hitsBefore[n]!)).toEqual([1, 1]);

        const year = 1900 + change;
        const { response, instance: writer } = await servedBy(() =>
          fetch(`${proxy.base}/listings/properties/${id}/information`, {
            method: 'PUT',
            headers,
            body: JSON.stringify({ yearOfConstruction: year, isVisitable: true }),
          }),
        );
        expect(response.status).toBe(204);
        writers.add(writer);
        // The other instance, whose cache held the page with the old year.
        expect(await yearIn(`${bases[1 - writer]}${list}`)).toBe(year);
        // And through the proxy, whichever instance answers; the property itself too.
        for (let n = 0; n < 2; n++) {
          expect(await yearIn(`${proxy.base}${list}`)).toBe(year);
          expect(await get(`${proxy.base}/listings/properties/${id}`)).toMatchObject({
            yearOfConstruction: year,
          });
        }
      }
      // The proxy handed the writes to both instances in turn.
      expect([...writers].sort()).toEqual([0, 1]);
    });
  },
);
