/**
 * `bun run bench`: seeds a temporary database, starts the service pinned to
 * CPU 0, drives each endpoint with wrk pinned to CPU 1 (32 connections, a
 * bearer token on every request), measures a bare Bun.serve ceiling in the
 * same run, and prints requests/s, p50/p99 and errors with the ratio to the
 * ceiling. A machine-readable copy goes to bench/results/latest.json.
 */
import { existsSync, mkdirSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { TokenService } from '@/auth/tokens';
import { runWrk, type WrkResult } from './wrk';

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
  options: { headers?: Record<string, string>; body?: string; method?: string } = {},
) {
  let peakRss = 0;
  const sampler = setInterval(() => {
    peakRss = Math.max(peakRss, rssMb(pid));
  }, 250);
  const common = { url, connections, cpu: LOAD_CPU, scriptDir: workDir, ...options };
  await runWrk({ ...common, seconds: 2 }); // warm-up: JIT, statement cache, page cache
  const result = await runWrk({ ...common, seconds });
  clearInterval(sampler);
  console.log(
    `  ${name}: ${result.requestsPerSecond.toFixed(0)} req/s, p50 ${result.p50Ms.toFixed(2)} ms, p99 ${result.p99Ms.toFixed(2)} ms, errors ${result.errors}, peak RSS ${peakRss.toFixed(0)} MB`,
  );
  return { ...result, peakRssMb: peakRss };
}

async function main() {
  console.log(`bench: database ${databasePath}`);
  const properties = Number(values.properties);
  if (!values.database || !existsSync(databasePath)) {
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
      {
        DATABASE_PATH: databasePath,
        JWT_SECRET: secret,
      },
    );
    console.log(`seeded in ${((performance.now() - started) / 1000).toFixed(1)} s`);
  }
  const { prepareFixtures } = await import('./fixtures');

  const port = 3200;
  const env = {
    ...process.env,
    PORT: String(port),
    HOST: '127.0.0.1',
    DATABASE_PATH: databasePath,
    JWT_SECRET: secret,
    WORKERS: 'off',
    LOG_LEVEL: 'warn',
    RATE_LIMIT_EMPLOYEE_PER_MINUTE: '1000000',
  };
  const server = Bun.spawn(
    ['taskset', '-c', String(SERVER_CPU), process.execPath, 'src/index.ts'],
    {
      cwd: root,
      env,
      stdout: 'ignore',
      stderr: 'inherit',
    },
  );
  const base = `http://127.0.0.1:${port}`;
  await waitFor(`${base}/health`);
  const token = await new TokenService(secret).issue('bench-employee', 'employee', 3600);
  const headers = { authorization: `Bearer ${token}`, accept: 'application/json' };
  const endpoints: Endpoint[] = await prepareFixtures(base, headers);

  const results: Record<
    string,
    WrkResult & { peakRssMb: number; ratio?: number; target?: number; met?: boolean }
  > = {};
  const wanted = values.only?.split(',');
  for (const endpoint of endpoints) {
    if (wanted && !wanted.includes(endpoint.name)) continue;
    results[endpoint.name] = await measure(endpoint.name, `${base}${endpoint.path}`, server.pid, {
      headers,
      body: endpoint.body,
      method: endpoint.method,
    });
  }
  const walMb = fileMb(`${databasePath}-wal`);
  server.kill('SIGTERM');
  await server.exited;

  const ceilingPort = 3201;
  const ceiling = Bun.spawn(
    ['taskset', '-c', String(SERVER_CPU), process.execPath, 'bench/ceiling.ts'],
    {
      cwd: root,
      env: { ...process.env, PORT: String(ceilingPort) },
      stdout: 'ignore',
    },
  );
  await waitFor(`http://127.0.0.1:${ceilingPort}/`);
  const ceilingResult = await measure(
    'ceiling (bare Bun.serve)',
    `http://127.0.0.1:${ceilingPort}/`,
    ceiling.pid,
    { headers },
  );
  ceiling.kill();

  console.log('\n| endpoint | req/s | p50 ms | p99 ms | errors | ratio | target | met |');
  console.log('|---|---:|---:|---:|---:|---:|---:|---|');
  for (const endpoint of endpoints) {
    const r = results[endpoint.name];
    if (!r) continue;
    r.ratio = r.requestsPerSecond / ceilingResult.requestsPerSecond;
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
    `| ceiling (bare Bun.serve, ${(await import('./ceiling')).CEILING_BODY.length} B JSON) | ${ceilingResult.requestsPerSecond.toFixed(0)} | ${ceilingResult.p50Ms.toFixed(2)} | ${ceilingResult.p99Ms.toFixed(2)} | ${ceilingResult.errors} | 1.000 | | |`,
  );
  const peakRss = Math.max(...Object.values(results).map((r) => r.peakRssMb));
  console.log(
    `\npeak server RSS ${peakRss.toFixed(0)} MB (target < 300 MB); WAL after the run ${walMb.toFixed(1)} MB`,
  );

  mkdirSync(join(root, 'bench', 'results'), { recursive: true });
  await Bun.write(
    join(root, 'bench', 'results', 'latest.json'),
    JSON.stringify(
      {
        at: new Date().toISOString(),
        properties,
        unitsPerProperty: Number(values['units-per-property']),
        seconds,
        connections,
        ceiling: ceilingResult,
        endpoints: results,
        peakRssMb: peakRss,
        walMb,
      },
      null,
      2,
    ),
  );
}

await main();
