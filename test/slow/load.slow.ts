import { expect, test } from 'bun:test';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { TokenService } from '@/auth/tokens';
import { CITY_IDS } from '@/listings/cities';
import { PROPERTY_TYPES } from '@/listings/properties/schemas';
import { tempDir } from '../support/harness';
import {
  employeeToken,
  freePort,
  JWT_SECRET,
  pool,
  type Random,
  randomProperty,
  seeded,
  startServer,
} from './support';

/**
 * Bounded load on loopback: 64 connections for 60 s of mixed reads
 * and writes against the real server. No error response other than the
 * customer API's planned 429s, memory that levels off (the server's RSS
 * sampled every second), and p50/p99 latency printed per kind of request.
 */

const SECONDS = Number(process.env.LOAD_SECONDS ?? 60);
const CONNECTIONS = 64;
const SEEDED_PROPERTIES = 300;
const PAGES = ['about', 'terms', 'careers', 'faq', 'privacy'];
const CUSTOMER = 'load-customer';
/**
 * RSS of the last third may exceed the middle third's peak by at most this
 * much… The first third is warm-up (JIT, SQLite's 64 MiB page cache filling
 * as the file grows, the read caches): compared with it, a run whose
 * start-up happened to be lean failed by a few MB without any leak.
 */
const RSS_GROWTH_BYTES = 50 * 1024 * 1024;
/** …or by this factor, whichever allows more. */
const RSS_GROWTH_FACTOR = 1.25;

interface Call {
  kind: string;
  method: string;
  path: string;
  body?: unknown;
  headers?: Record<string, string>;
  /** Statuses this call may answer besides 2xx/304 (planned: the customer API's 429). */
  planned?: number[];
  /** Another bearer token than the employee's. */
  token?: string;
  /** Called with the response, e.g. to remember a new property id. */
  after?: (response: Response) => void;
}

const rssOf = (pid: number): number => {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = /VmRSS:\s+(\d+) kB/.exec(status);
  return kb ? Number(kb[1]) * 1024 : 0;
};

const MB = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(1)} MB`;

function percentile(sorted: Float64Array, p: number): number {
  if (sorted.length === 0) return 0;
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

/** A list query with a few random filters of GET /properties. */
function listQuery(random: Random): string {
  const params = new URLSearchParams();
  if (random.next() < 0.6) params.append('cityIds', random.pick(CITY_IDS));
  if (random.next() < 0.3) params.append('cityIds', random.pick(CITY_IDS));
  if (random.next() < 0.4) params.set('type', random.pick(PROPERTY_TYPES));
  if (random.next() < 0.3) params.set('published', random.pick(['true', 'false']));
  if (random.next() < 0.3) params.set('archived', 'false');
  if (random.next() < 0.2) params.set('numRentableUnits', String(random.int(1, 5)));
  if (random.next() < 0.2) params.set('address', 'street');
  if (random.next() < 0.3) params.set('sort', random.pick(['-totalUnits', 'type', 'ownerId']));
  params.set('page', String(random.int(1, 3)));
  params.set('itemsPerPage', String(random.pick([10, 30, 100])));
  return `/listings/properties?${params}`;
}

test(`${CONNECTIONS} connections for ${SECONDS} s of mixed reads and writes: no errors, flat memory`, async () => {
  const dir = tempDir('listings-load-');
  const env = {
    ...{ DATABASE_PATH: join(dir, 'app.db'), JWT_SECRET, WORKERS: 'on' },
    // The employee's creates and edits run flat out for the whole run: past the default write budget.
    RATE_LIMIT_EMPLOYEE_WRITES_PER_MINUTE: '100000000',
  };
  const port = freePort();
  const base = `http://127.0.0.1:${port}`;
  const employee = await employeeToken('load-employee');
  const server = await startServer(port, env);
  const random = seeded(60);
  const auth = { authorization: `Bearer ${employee}` };
  const json = { ...auth, 'content-type': 'application/json' };

  try {
    // Seed: properties to read and edit, static pages to serve.
    const ids: string[] = [];
    await pool(SEEDED_PROPERTIES, 8, async (i) => {
      const res = await fetch(`${base}/listings/properties`, {
        method: 'POST',
        headers: json,
        body: JSON.stringify(randomProperty(random, `Seed street ${i}`)),
      });
      expect(res.status).toBe(201);
      ids.push(res.headers.get('location')!.split('/').pop()!);
    });
    for (const slug of PAGES) {
      const res = await fetch(`${base}/content/static-pages/${slug}`, {
        method: 'PUT',
        headers: json,
        body: JSON.stringify({
          language: 'en',
          title: slug,
          content: `# ${slug}\n\n${'Lorem ipsum dolor sit amet. '.repeat(200)}`,
          published: true,
        }),
      });
      expect(res.status).toBe(201);
    }
    // Customer API: one customer's transactions, read by the customer and by employees.
    const customer = await new TokenService(JWT_SECRET).issue(CUSTOMER, 'customer', 3600);
    const imported = await fetch(`${base}/api/v1/admin/transactions`, {
      method: 'POST',
      headers: json,
      body: JSON.stringify(
        Array.from({ length: 200 }, (_, i) => ({
          customer_id: CUSTOMER,
          booking_id: `B-${i}`,
          amount: `${random.int(1, 99_999)}.${String(random.int(0, 99)).padStart(2, '0')}`,
          currency: 'EUR',
          pay_date: `2026-${String(random.int(1, 12)).padStart(2, '0')}-${String(random.int(1, 28)).padStart(2, '0')}`,
          status: 'paid',
        })),
      ),
    });
    expect(imported.status).toBe(201);
    const etags = new Map<string, string>();

    let serial = 0;
    const nextCall = (): Call => {
      const roll = random.next();
      const id = random.pick(ids);
      if (roll < 0.3) {
        const etag = etags.get(id);
        return {
          kind: 'GET property',
          method: 'GET',
          path: `/listings/properties/${id}`,
          headers: etag && random.next() < 0.5 ? { 'if-none-match': etag } : {},
          after: (res) => etags.set(id, res.headers.get('etag') ?? ''),
        };
      }
      if (roll < 0.5) return { kind: 'GET list', method: 'GET', path: listQuery(random) };
      if (roll < 0.6) {
        return {
          kind: 'POST property',
          method: 'POST',
          path: '/listings/properties',
          body: randomProperty(random, `Load street ${serial++}`),
          after: (res) => {
            if (res.status === 201) ids.push(res.headers.get('location')!.split('/').pop()!);
          },
        };
      }
      if (roll < 0.7) {
        return {
          kind: 'PUT information',
          method: 'PUT',
          path: `/listings/properties/${id}/information`,
          body: { isVisitable: random.next() < 0.5, yearOfConstruction: random.int(1900, 2025) },
          // `*`: a conditional write that holds while the property exists.
          headers: { 'if-match': '*' },
        };
      }
      if (roll < 0.75) {
        return { kind: 'GET units', method: 'GET', path: `/listings/properties/${id}/units` };
      }
      if (roll < 0.9) {
        const slug = random.pick(PAGES);
        return random.next() < 0.2
          ? { kind: 'GET pages', method: 'GET', path: '/content/static-pages/' }
          : { kind: 'GET page', method: 'GET', path: `/content/static-pages/${slug}` };
      }
      // The customer API is rate-limited (120/min for the customer, 5000/min for the
      // employee): its 429s are planned.
      const token = random.next() < 0.5 ? customer : employee;
      if (random.next() < 0.3) {
        return {
          kind: 'GET /api/v1 limits',
          method: 'GET',
          path: '/api/v1/tokens/limits',
          token,
          planned: [429],
        };
      }
      const month = String(random.int(1, 12)).padStart(2, '0');
      const filters = new URLSearchParams({ per_page: String(random.pick([15, 50, 100])) });
      if (random.next() < 0.5) filters.set('pay_date_from', `2026-${month}-01`);
      if (random.next() < 0.3) filters.set('amount_from', String(random.int(1, 50_000)));
      if (token === employee) filters.set('customer_id', CUSTOMER);
      return {
        kind: 'GET /api/v1 transactions',
        method: 'GET',
        path: `/api/v1/c/transactions?${filters}`,
        token,
        planned: [429],
      };
    };

    // Memory: the server's RSS every second.
    const rss: number[] = [];
    const sampler = setInterval(() => rss.push(rssOf(server.pid)), 1000);

    const stats = new Map<string, { latencies: number[]; statuses: Map<number, number> }>();
    const statsOf = (kind: string) => {
      const known = stats.get(kind);
      if (known) return known;
      const fresh = { latencies: [] as number[], statuses: new Map<number, number>() };
      stats.set(kind, fresh);
      return fresh;
    };
    const unexpected: string[] = [];
    const failures: string[] = [];
    const deadline = performance.now() + SECONDS * 1000;
    const started = performance.now();

    const worker = async () => {
      while (performance.now() < deadline) {
        const call = nextCall();
        const begin = performance.now();
        try {
          const res = await fetch(`${base}${call.path}`, {
            method: call.method,
            headers: {
              ...(call.body === undefined ? auth : json),
              ...(call.token ? { authorization: `Bearer ${call.token}` } : {}),
              ...call.headers,
            },
            body: call.body === undefined ? undefined : JSON.stringify(call.body),
          });
          await res.arrayBuffer();
          const took = performance.now() - begin;
          const kind = statsOf(call.kind);
          kind.latencies.push(took);
          kind.statuses.set(res.status, (kind.statuses.get(res.status) ?? 0) + 1);
          const ok = res.status < 400 || call.planned?.includes(res.status);
          if (!ok && unexpected.length < 20) {
            unexpected.push(`${call.method} ${call.path} → ${res.status}`);
          }
          call.after?.(res);
        } catch (error) {
          if (failures.length < 20) failures.push(`${call.method} ${call.path}: ${error}`);
        }
      }
    };
    await Promise.all(Array.from({ length: CONNECTIONS }, worker));
    const elapsed = (performance.now() - started) / 1000;
    clearInterval(sampler);

    // Report: counts, statuses and latency per kind, then overall.
    const all = Float64Array.from([...stats.values()].flatMap((k) => k.latencies)).sort();
    const lines = [...stats.entries()].map(([kind, { latencies: values, statuses }]) => {
      const sorted = Float64Array.from(values).sort();
      const counts = [...statuses.entries()].map(([s, n]) => `${s}×${n}`).join(' ');
      return `  ${kind.padEnd(26)} ${String(values.length).padStart(7)}  p50 ${percentile(sorted, 50).toFixed(1).padStart(6)} ms  p99 ${percentile(sorted, 99).toFixed(1).padStart(7)} ms  ${counts}`;
    });
    const third = Math.max(1, Math.floor(rss.length / 3));
    const firstPeak = Math.max(...rss.slice(0, third));
    const middlePeak = Math.max(...rss.slice(third, -third));
    const lastPeak = Math.max(...rss.slice(-third));
    console.log(
      [
        `load: ${all.length} requests in ${elapsed.toFixed(1)} s (${Math.round(all.length / elapsed)}/s), ` +
          `${CONNECTIONS} connections, ${ids.length} properties at the end`,
        ...lines,
        `  ${'all'.padEnd(26)} ${String(all.length).padStart(7)}  p50 ${percentile(all, 50).toFixed(1).padStart(6)} ms  p99 ${percentile(all, 99).toFixed(1).padStart(7)} ms`,
        `  server RSS: thirds' peaks ${MB(firstPeak)}, ${MB(middlePeak)}, ${MB(lastPeak)}, ` +
          `samples ${rss.map((b) => Math.round(b / 1024 / 1024)).join(' ')}`,
      ].join('\n'),
    );

    expect(failures).toEqual([]);
    expect(unexpected).toEqual([]);
    expect(elapsed).toBeGreaterThanOrEqual(SECONDS);
    expect(rss.length).toBeGreaterThanOrEqual(Math.floor(SECONDS) - 2);
    expect(lastPeak).toBeLessThanOrEqual(
      Math.max(middlePeak + RSS_GROWTH_BYTES, middlePeak * RSS_GROWTH_FACTOR),
    );
    const health = await fetch(`${base}/health`);
    expect(health.status).toBe(200);
  } finally {
    server.kill('SIGTERM');
    await server.exited;
  }
  expect(server.exitCode).toBe(0);
}, 120_000);
