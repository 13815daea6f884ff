/**
 * `bun run bench`: seeds a temporary database, starts the service pinned to
 * CPU 0, drives each endpoint with wrk pinned to CPU 1 (32 connections, a
 * bearer token on every request), measures a bare Bun.serve ceiling in the
 * same run, and prints requests/s, p50/p99 and errors with the ratio to the
 * ceiling. A machine-readable copy goes to bench/results/latest.json.
 */
import { Database } from 'bun:sqlite';
import { existsSync, mkdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { TokenService } from '@/auth/tokens';
import { CEILING_BODY } from './ceiling';
import { runWrk, type WrkResult } from './wrk';

type Measured = WrkResult & { peakRssMb: number; peakWalMb: number };

const { values } = parseArgs({
  args: Bun.argv.slice(2),
  options: {
    properties: { type: 'string', default: '1000000' },
    'units-per-property': { type: 'string', default: '5' },
    seconds: { type: 'string', default: '10' },
    connections: { type: 'string', default: '32' },
    database: { type: 'string' },
    only: { type: 'string' },
  },
});

const seconds = Number(values.seconds);
const connections = Number(values.connections);
const root = join(import.meta.dir, '..');
const workDir = join(tmpdir(), `listings-bench-${Date.now()}`);
mkdirSync(workDir, { recursive: true });
const databasePath = values.database ?? join(workDir, 'bench.db');
const secret = 'bench-secret-bench-secret-bench-secret-0123456789';
const SERVER_CPU = 0;
const LOAD_CPU = 1;

export interface Endpoint {
  name: string;
  path: string;
  /** Paths the requests rotate over (keys spread over the table); `path` when absent. */
  paths?: string[];
  method?: 'GET' | 'POST';
  body?: string;
  /** Target as a ratio of the ceiling's requests/s (issue #10). */
  target?: number;
  /** Extra target: p99 under this many ms. */
  p99TargetMs?: number;
}

function run(cmd: string[], env: Record<string, string> = {}) {
  const proc = Bun.spawnSync(cmd, {
    cwd: root,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'inherit', 'inherit'],
  });
  if (proc.exitCode !== 0) throw new Error(`${cmd.join(' ')} exited ${proc.exitCode}`);
}

async function waitFor(url: string) {
  for (let i = 0; i < 400; i++) {
    const ok = await fetch(url).then(
      (r) => r.ok,
      () => false,
    );
    if (ok) return;
    await Bun.sleep(50);
  }
  throw new Error(`${url} never answered`);
}

function rssMb(pid: number): number {
  try {
    const status = require('node:fs').readFileSync(`/proc/${pid}/status`, 'utf8') as string;
    const match = /VmRSS:\s+(\d+) kB/.exec(status);
    return match ? Number(match[1]) / 1024 : 0;
  } catch {
    return 0;
  }
}

const fileMb = (path: string) => (existsSync(path) ? statSync(path).size / 1024 / 1024 : 0);

async function measure(
  name: string,
  url: string,
  pid: number,
  options: {
    headers?: Record<string, string>;
    body?: string;
    method?: string;
    paths?: string[];
  } = {},
) {
  let peakRss = 0;
  let peakWal = 0;
  const sampler = setInterval(() => {
    peakRss = Math.max(peakRss, rssMb(pid));
    peakWal = Math.max(peakWal, fileMb(`${databasePath}-wal`));
  }, 250);
  const common = { url, connections, cpu: LOAD_CPU, scriptDir: workDir, ...options };
  await runWrk({ ...common, seconds: 2 }); // warm-up: JIT, statement cache, page cache
  const result = await runWrk({ ...common, seconds });
  clearInterval(sampler);
  console.log(
    `  ${name}: ${result.requestsPerSecond.toFixed(0)} req/s, p50 ${result.p50Ms.toFixed(2)} ms, p99 ${result.p99Ms.toFixed(2)} ms, errors ${result.errors}, peak RSS ${peakRss.toFixed(0)} MB, peak WAL ${peakWal.toFixed(1)} MB`,
  );
  return { ...result, peakRssMb: peakRss, peakWalMb: peakWal };
}

/** wrk from Debian's packages: installed here when possible, otherwise a clear message. */
function ensureWrk() {
  if (Bun.which('wrk')) return;
  if (process.getuid?.() === 0 && Bun.which('apt-get')) {
    console.log('bench: wrk is missing; installing it with apt-get (Debian package "wrk")');
    Bun.spawnSync(['apt-get', 'install', '-y', '--no-install-recommends', 'wrk'], {
      stdio: ['ignore', 'inherit', 'inherit'],
    });
    if (Bun.which('wrk')) return;
  }
  console.error(
    'bench: the load generator wrk is not installed. Install it with\n' +
      '  sudo apt-get install wrk\n' +
      'and run `bun run bench` again.',
  );
  process.exit(1);
}

function ensureTwoCores() {
  if (!Bun.which('taskset')) {
    console.error('bench: taskset (util-linux) is needed to pin the server and wrk to a core each');
    process.exit(1);
  }
  if (navigator.hardwareConcurrency < 2) {
    console.error('bench: needs at least 2 CPUs (server on CPU 0, wrk on CPU 1)');
    process.exit(1);
  }
}

async function spawnCeiling(port: number) {
  const ceiling = Bun.spawn(
    ['taskset', '-c', String(SERVER_CPU), process.execPath, 'bench/ceiling.ts'],
    { cwd: root, env: { ...process.env, PORT: String(port) }, stdout: 'ignore' },
  );
  await waitFor(`http://127.0.0.1:${port}/`);
  return ceiling;
}

/** The ceiling, measured before and after the service; the mean is the run's reference. */
async function measureCeiling(headers: Record<string, string>, round: string) {
  const port = 3201;
  const ceiling = await spawnCeiling(port);
  try {
    return await measure(
      `ceiling (bare Bun.serve), ${round}`,
      `http://127.0.0.1:${port}/`,
      ceiling.pid,
      {
        headers,
      },
    );
  } finally {
    ceiling.kill();
    await ceiling.exited;
  }
}

async function main() {
  ensureWrk();
  ensureTwoCores();
  console.log(`bench: database ${databasePath}`);
  const properties = Number(values.properties);
  if (!existsSync(databasePath)) {
    const started = performance.now();
    run(
      [
        process.execPath,
        'scripts/seed.ts',
        '--properties',
        String(properties),
        '--units-per-property',
        String(values['units-per-property']),
      ],
      { DATABASE_PATH: databasePath, JWT_SECRET: secret },
    );
    console.log(`seeded in ${((performance.now() - started) / 1000).toFixed(1)} s`);
  }
  const token = await new TokenService(secret).issue('bench-employee', 'employee', 6 * 3600);
  const headers = { authorization: `Bearer ${token}`, accept: 'application/json' };
  const ceilingBefore = await measureCeiling(headers, 'before');

  const port = 3200;
  const env = {
    ...process.env,
    PORT: String(port),
    HOST: '127.0.0.1',
    DATABASE_PATH: databasePath,
    JWT_SECRET: secret,
    WORKERS: 'off',
    // The default level: the per-request log line is part of what is measured.
    LOG_LEVEL: 'info',
    // The limiter stays on; the bench employee may send far more than 5000 a minute.
    RATE_LIMIT_EMPLOYEE_PER_MINUTE: '1000000',
  };
  const server = Bun.spawn(
    ['taskset', '-c', String(SERVER_CPU), process.execPath, 'src/index.ts'],
    { cwd: root, env, stdout: 'ignore', stderr: 'inherit' },
  );
  const base = `http://127.0.0.1:${port}`;
  await waitFor(`${base}/health`);
  const { prepareFixtures } = await import('./fixtures');
  const endpoints = await prepareFixtures({ base, headers, databasePath });
  const dataset = datasetOf(databasePath);
  console.log(
    `bench: ${dataset.properties.toLocaleString('en')} properties, ${dataset.units.toLocaleString('en')} units, database ${dataset.databaseMb.toFixed(0)} MB`,
  );

  const results: Record<string, Measured & { ratio?: number; target?: number; met?: boolean }> = {};
  const wanted = values.only?.split(',');
  for (const endpoint of endpoints) {
    if (wanted && !wanted.some((part) => endpoint.name.includes(part))) continue;
    results[endpoint.name] = await measure(endpoint.name, `${base}${endpoint.path}`, server.pid, {
      headers,
      body: endpoint.body,
      method: endpoint.method,
      paths: endpoint.paths,
    });
  }
  const walMb = fileMb(`${databasePath}-wal`);
  server.kill('SIGTERM');
  await server.exited;
  const ceilingAfter = await measureCeiling(headers, 'after');
  const ceiling = {
    ...ceilingAfter,
    requestsPerSecond: (ceilingBefore.requestsPerSecond + ceilingAfter.requestsPerSecond) / 2,
    p50Ms: (ceilingBefore.p50Ms + ceilingAfter.p50Ms) / 2,
    p99Ms: (ceilingBefore.p99Ms + ceilingAfter.p99Ms) / 2,
    errors: ceilingBefore.errors + ceilingAfter.errors,
  };

  console.log('\n| endpoint | req/s | p50 ms | p99 ms | errors | ratio | target | met |');
  console.log('|---|---:|---:|---:|---:|---:|---|---|');
  for (const endpoint of endpoints) {
    const r = results[endpoint.name];
    if (!r) continue;
    r.ratio = r.requestsPerSecond / ceiling.requestsPerSecond;
    r.target = endpoint.target;
    r.met =
      (endpoint.target === undefined || r.ratio >= endpoint.target) &&
      (endpoint.p99TargetMs === undefined || r.p99Ms < endpoint.p99TargetMs);
    const target =
      endpoint.target === undefined
        ? ''
        : `≥ ${endpoint.target}${endpoint.p99TargetMs ? `, p99 < ${endpoint.p99TargetMs} ms` : ''}`;
    console.log(
      `| ${endpoint.name} | ${r.requestsPerSecond.toFixed(0)} | ${r.p50Ms.toFixed(2)} | ${r.p99Ms.toFixed(2)} | ${r.errors} | ${r.ratio.toFixed(3)} | ${target} | ${endpoint.target === undefined ? '' : r.met ? 'met' : 'NOT met'} |`,
    );
  }
  console.log(
    `| ceiling: bare Bun.serve, ${CEILING_BODY.length} B JSON (mean of before ${ceilingBefore.requestsPerSecond.toFixed(0)} and after ${ceilingAfter.requestsPerSecond.toFixed(0)}) | ${ceiling.requestsPerSecond.toFixed(0)} | ${ceiling.p50Ms.toFixed(2)} | ${ceiling.p99Ms.toFixed(2)} | ${ceiling.errors} | 1.000 | | |`,
  );
  const peakRss = Math.max(...Object.values(results).map((r) => r.peakRssMb));
  const peakWal = Math.max(...Object.values(results).map((r) => r.peakWalMb));
  console.log(
    `\npeak server RSS ${peakRss.toFixed(0)} MB (target < 300 MB); WAL peak ${peakWal.toFixed(1)} MB, after the run ${walMb.toFixed(1)} MB`,
  );

  mkdirSync(join(root, 'bench', 'results'), { recursive: true });
  await Bun.write(
    join(root, 'bench', 'results', 'latest.json'),
    JSON.stringify(
      {
        at: new Date().toISOString(),
        dataset,
        seconds,
        connections,
        ceiling: { ...ceiling, before: ceilingBefore, after: ceilingAfter },
        endpoints: results,
        peakRssMb: peakRss,
        peakWalMb: peakWal,
        walMb,
      },
      null,
      2,
    ),
  );
  if (!values.database) rmSync(workDir, { recursive: true, force: true });
}

function datasetOf(path: string) {
  const db = new Database(path, { readonly: true });
  try {
    const count = (table: string) =>
      db.query<{ n: number }, []>(`SELECT max(rowid) AS n FROM ${table}`).get()?.n ?? 0;
    return {
      properties: count('properties'),
      units: count('units'),
      databaseMb: fileMb(path),
    };
  } finally {
    db.close();
  }
}

await main();
