/**
 * What the request metrics cost on the hot reads, measured in-process: the
 * same requests through two services over one database, one with METRICS=on
 * and one with METRICS=off, taking turns (the order flips every round) so a
 * shared machine's drift hits both alike. Each figure is the median round's
 * CPU time per request through `fetch`, the server's whole request pipeline
 * without the socket (the socket costs the same either way, so the share
 * over HTTP is smaller still).
 *
 *   bun run bench:metrics [-- --requests 20000 --rounds 9]
 */
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { createService } from '@/app';
import { parseConfig } from '@/config';
import { migrateDatabase, openDatabase } from '@/db/sqlite/client';
import { buildDeps } from '@/deps';
import { createLogger } from '@/logger';
import { makePage } from '../test/content/factory';
import { propertyBody } from '../test/listings/support';
import { BASE, tempDir } from '../test/support/harness';

const { values } = parseArgs({
  args: Bun.argv.slice(2).filter((arg) => arg !== '--'),
  options: {
    requests: { type: 'string', default: '20000' },
    rounds: { type: 'string', default: '9' },
  },
});
const requests = Number(values.requests);
const rounds = Number(values.rounds);
/** The cost the metrics may add to a hot read. */
const TARGET = 0.03;

const dir = tempDir('listings-bench-metrics-');
const path = join(dir, 'app.db');
const secret = 'bench-secret-bench-secret-bench-secret-0123456789';
// The log line is formatted as in production (LOG_LEVEL=info) and dropped.
const logger = createLogger('info', () => {});

function serviceWith(metrics: 'on' | 'off') {
  const config = parseConfig({
    DATABASE_PATH: path,
    JWT_SECRET: secret,
    WORKERS: 'off',
    METRICS: metrics,
    RATE_LIMIT_EMPLOYEE_PER_MINUTE: '1000000',
    RATE_LIMIT_CUSTOMER_PER_MINUTE: '1000000',
  });
  const db = openDatabase(path);
  migrateDatabase(db);
  return { db, ...createService(buildDeps({ config, db, logger })) };
}

const on = serviceWith('on');
const off = serviceWith('off');
makePage(on.db, 'about');
const employee = await on.deps.tokens.issue('bench-employee', 'employee', 3600);
const customer = await on.deps.tokens.issue('bench-customer', 'customer', 3600);
const created = await on.fetch(
  new Request(`${BASE}/listings/properties`, {
    method: 'POST',
    headers: { authorization: `Bearer ${employee}`, 'content-type': 'application/json' },
    body: JSON.stringify(propertyBody()),
  }),
);
const propertyPath = created.headers
  .get('location')!
  .replace('/properties', '/listings/properties');

const reads: [string, string, string | undefined][] = [
  ['GET /listings/properties/{id}', propertyPath, employee],
  ['GET /content/static-pages/{slug} (cached)', '/content/static-pages/about', undefined],
  ['GET /api/v1/tokens/limits', '/api/v1/tokens/limits', customer],
  ['GET /api/v1/c/transactions', '/api/v1/c/transactions?per_page=5', customer],
];

/** CPU µs per request of `count` sequential requests through `fetch`. */
async function timed(
  fetch: (r: Request) => Response | Promise<Response>,
  url: string,
  token?: string,
) {
  const headers: Record<string, string> = token ? { authorization: `Bearer ${token}` } : {};
  const started = process.cpuUsage();
  for (let i = 0; i < requests; i++) {
    const response = await fetch(new Request(url, { headers }));
    if (response.status !== 200) throw new Error(`${url}: ${response.status}`);
    await response.arrayBuffer();
  }
  const used = process.cpuUsage(started);
  return (used.user + used.system) / requests;
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

console.log(
  `metrics cost: ${requests.toLocaleString('en')} requests × ${rounds} rounds per side\n`,
);
console.log('| read | µs/request METRICS=on | µs/request METRICS=off | cost | target | met |');
console.log('|---|---:|---:|---:|---|---|');
let allMet = true;
for (const [name, readPath, token] of reads) {
  const url = `${BASE}${readPath}`;
  await timed(on.fetch, url, token); // warm both: JIT, caches, remembered tokens
  await timed(off.fetch, url, token);
  const withMetrics: number[] = [];
  const without: number[] = [];
  for (let round = 0; round < rounds; round++) {
    const order = round % 2 === 0 ? [on, off] : [off, on];
    for (const service of order) {
      const us = await timed(service.fetch, url, token);
      (service === on ? withMetrics : without).push(us);
    }
  }
  const a = median(withMetrics);
  const b = median(without);
  const cost = a / b - 1;
  const met = cost < TARGET;
  allMet &&= met;
  console.log(
    `| ${name} | ${a.toFixed(2)} | ${b.toFixed(2)} | ${(cost * 100).toFixed(1)} % | < ${TARGET * 100} % | ${met ? 'met' : 'NOT met'} |`,
  );
}
on.db.$client.close();
off.db.$client.close();
rmSync(dir, { recursive: true, force: true });
process.exit(allMet ? 0 : 1);
