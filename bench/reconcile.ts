/**
 * `bun run bench:reconcile`: how long the unit-counter-reconcile job takes
 * over 100,000 properties × 5 units, and how long a request waits behind it
 * (docs/performance.md). Seeds a temporary database, knocks the counters of 1 % of the
 * properties off, starts the real server pinned to CPU 0, and while the job
 * runs (POST /admin/jobs/unit-counter-reconcile/run) keeps 8 clients reading
 * random properties; the same clients run alone first as the baseline.
 *
 *   bun run bench:reconcile [-- --properties 100000 --units-per-property 5 --clients 8]
 */
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { TokenService } from '@/auth/tokens';
import { migrateDatabase, openDatabase } from '@/db/sqlite/client';
import { seedProperties, withBulkLoadSettings } from '../scripts/seed';
import { tempDir } from '../test/support/harness';
import { SERVICE_COMMAND } from './service-command';

const { values } = parseArgs({
  args: Bun.argv.slice(2).filter((arg) => arg !== '--'),
  options: {
    properties: { type: 'string', default: '100000' },
    'units-per-property': { type: 'string', default: '5' },
    clients: { type: 'string', default: '8' },
  },
});
const properties = Number(values.properties);
const clients = Number(values.clients);
const root = join(import.meta.dir, '..');
const secret = 'bench-secret-bench-secret-bench-secret-0123456789';
const port = 3210;
const base = `http://127.0.0.1:${port}`;

const dir = tempDir('bench-reconcile-');
const databasePath = join(dir, 'app.db');
const db = openDatabase(databasePath);
migrateDatabase(db);
let started = performance.now();
await withBulkLoadSettings(db, () =>
  seedProperties(db, { properties, unitsPerProperty: Number(values['units-per-property']) }),
);
const drifted = db.$client
  .query('UPDATE properties SET total_units = total_units + 1 WHERE seq % 100 = 0')
  .run().changes;
const ids = (
  db.$client.query('SELECT id FROM properties WHERE seq % 50 = 0').all() as { id: string }[]
).map((row) => row.id);
db.$client.close();
console.log(
  `seeded ${properties.toLocaleString('en')} properties in ${((performance.now() - started) / 1000).toFixed(1)} s; counters of ${drifted} knocked off`,
);

const server = Bun.spawn(['taskset', '-c', '0', ...SERVICE_COMMAND], {
  cwd: root,
  env: {
    ...process.env,
    PORT: String(port),
    HOST: '127.0.0.1',
    DATABASE_PATH: databasePath,
    JWT_SECRET: secret,
    WORKERS: 'off',
    LOG_LEVEL: 'warn',
  },
  stdout: 'ignore',
  stderr: 'inherit',
});
for (let i = 0; i < 400; i++) {
  if (
    await fetch(`${base}/health`).then(
      (r) => r.ok,
      () => false,
    )
  )
    break;
  await Bun.sleep(50);
}
const token = await new TokenService(secret).issue('bench-employee', 'employee', 3600);
const headers = { authorization: `Bearer ${token}` };

/** `clients` loops reading random properties until `until()`; every latency in ms. */
async function read(until: () => boolean): Promise<number[]> {
  const latencies: number[] = [];
  await Promise.all(
    Array.from({ length: clients }, async () => {
      while (!until()) {
        const id = ids[Math.floor(Math.random() * ids.length)];
        const t0 = performance.now();
        const response = await fetch(`${base}/listings/properties/${id}`, { headers });
        await response.arrayBuffer();
        if (response.status !== 200) throw new Error(`read answered ${response.status}`);
        latencies.push(performance.now() - t0);
      }
    }),
  );
  return latencies;
}

const summary = (latencies: number[]) => {
  const sorted = [...latencies].sort((a, b) => a - b);
  const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? 0;
  return {
    requests: sorted.length,
    p50Ms: Number(at(0.5).toFixed(2)),
    p99Ms: Number(at(0.99).toFixed(2)),
    maxMs: Number((sorted.at(-1) ?? 0).toFixed(2)),
  };
};

try {
  const baselineEnd = performance.now() + 5000;
  const baseline = summary(await read(() => performance.now() > baselineEnd));

  let done = false;
  started = performance.now();
  const job = fetch(`${base}/admin/jobs/unit-counter-reconcile/run`, {
    method: 'POST',
    headers,
  }).then(async (response) => {
    done = true;
    return { status: response.status, body: (await response.json()) as Record<string, unknown> };
  });
  const during = summary(await read(() => done));
  const run = await job;
  const wallMs = performance.now() - started;
  if (run.status !== 200) throw new Error(`job answered ${run.status}`);
  console.log('\nunit-counter-reconcile job:', JSON.stringify(run.body.details));
  console.log(`job wall time (request to answer): ${(wallMs / 1000).toFixed(2)} s`);
  console.log('\n| reads of GET /listings/properties/{id} | requests | p50 ms | p99 ms | max ms |');
  console.log('|---|---:|---:|---:|---:|');
  for (const [label, figures] of [
    [`alone (${clients} clients, 5 s)`, baseline],
    ['while the job runs', during],
  ] as const) {
    console.log(
      `| ${label} | ${figures.requests} | ${figures.p50Ms} | ${figures.p99Ms} | ${figures.maxMs} |`,
    );
  }
} finally {
  server.kill('SIGTERM');
  await server.exited;
  rmSync(dir, { recursive: true, force: true });
}
