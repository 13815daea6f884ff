/**
 * `bun run bench`: seeds a temporary database (or reuses `--database FILE`),
 * starts the service pinned to CPU 0, drives each benchmarked endpoint with
 * wrk pinned to CPU 1 (32 connections, a bearer token on every request), and
 * measures a bare Bun.serve ceiling (~570-byte JSON, also on CPU 0) before
 * every endpoint and once at the end: each endpoint's ratio is taken against
 * the mean of the ceilings just before and after it, since a shared machine's
 * speed drifts. Prints req/s, p50/p99, errors, ratio/target/met, peak RSS and
 * WAL size, and the server's CPU time per request with its ratio to the
 * ceiling's (the figure other work on the machine barely moves); a
 * machine-readable copy goes to bench/results/latest.json.
 *
 *   bun run bench [-- --properties 1000000 --units-per-property 5 --seconds 10
 *                     --database /tmp/bench.db --only features,POST --read-cache off]
 *
 * `--mix on` (the default): during every read measurement a background
 * client on wrk's CPU sends 20 creates/s, 10 unit edits/s and 50 customer-API
 * calls/s (bench/background.ts); the rates it achieved are reported beside
 * each figure. `--mix off` measures the reads alone.
 * `--metrics off` starts it with METRICS=off (no per-request figures), to
 * measure what the metrics cost (`bun run bench:metrics` measures it
 * in-process, where the difference is not lost in the machine's noise).
 * At the end a full sync of every property, 100 a page, with page numbers
 * and with keyset paging (bench/full-sync.ts; `--full-sync off` skips it).
 * `--read-cache off` starts the service with READ_CACHE=off: every property
 * and list read queries SQLite, for the figures of a cache miss.
 * `--read-cache compare` starts a second server with READ_CACHE=off beside
 * the first (also on CPU 0, idle while the other is measured) and measures
 * each point read (`GET /listings/properties/{id}`, ids uniform over the
 * table and Zipf-distributed, s = 1) on both, one after the other, then
 * prints each cached figure over the uncached one: the cache's gain within
 * one run. `--memory-budget N` sets MEMORY_BUDGET_MB (SQLite's page cache
 * and the read cache together) for the servers.
 * `--instances N` starts N servers on the one database, sharing their
 * limits and job leases in the Redis at `--redis-url` (default
 * redis://127.0.0.1:6379, under a key prefix of the run), all pinned to CPU
 * 0 like the single server: each endpoint's connections are split between
 * them (one wrk each, on CPU 1) and the figures are their sums (CPU, RSS)
 * or the slowest (p99). On this 2-core layout a second instance adds no CPU,
 * so the comparison shows what sharing costs, not what another core gains.
 * `--backend postgres` serves from PostgreSQL instead: the seeded SQLite
 * file is copied with `bun run migrate-to-postgres` into the database
 * `--postgres-url` names (default listings_bench on 127.0.0.1:5432, dropped
 * and made anew at the start; the copy keeps every id, so the fixtures
 * still come from the SQLite file) and the servers get DATABASE_URL.
 * PostgreSQL runs unpinned; its CPU time per request (that database's
 * backends and the server's shared processes) is printed beside the
 * servers', and with several instances so are Redis's commands per request
 * (docs/postgresql.md, Benchmark).
 * Last, replication with Litestream (bench/replication.ts): creates/s with
 * it off and on, side by side, and the WAL over a 5-minute write load under
 * it; `--replication off` skips it, `--replication-seconds N` shortens that load.
 */
import { Database } from 'bun:sqlite';
import { existsSync, mkdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { TokenService } from '@/auth/tokens';
import type { BackgroundConfig, BackgroundFigures } from './background';
import { CEILING_BODY } from './ceiling';
import {
  DEFAULT_BENCH_POSTGRES_URL,
  postgresCpuSeconds,
  recreateDatabase,
  redisCommandCounter,
} from './postgres';
import { CLOCK_TICKS, cpuSeconds, freePort } from './reference-harness';
import { BENCH_SECRET, seedUnlessPresent } from './seeded-file';
import { SERVICE_COMMAND } from './service-command';
import { runWrk, type WrkResult } from './wrk';

type Measured = WrkResult & {
  /** CPU time (user + system) the measured server process spent per request served. */
  cpuUsPerRequest: number;
  peakRssMb: number;
  /** The anonymous part of that peak: heap, caches and allocator, not mapped files. */
  peakAnonMb: number;
  peakWalMb: number;
  /** CPU time PostgreSQL spent per request for the bench database (postgres backend only). */
  postgresCpuUsPerRequest?: number;
  /** Commands Redis processed per request, from every client (several instances only). */
  redisCommandsPerRequest?: number;
  background?: BackgroundFigures;
};

const { values } = parseArgs({
  args: Bun.argv.slice(2).filter((arg) => arg !== '--'),
  options: {
    properties: { type: 'string', default: '1000000' },
    'units-per-property': { type: 'string', default: '5' },
    seconds: { type: 'string', default: '10' },
    connections: { type: 'string', default: '32' },
    database: { type: 'string' },
    only: { type: 'string' },
    'read-cache': { type: 'string', default: 'on' },
    'memory-budget': { type: 'string' },
    metrics: { type: 'string', default: 'on' },
    mix: { type: 'string', default: 'on' },
    instances: { type: 'string', default: '1' },
    'redis-url': { type: 'string', default: 'redis://127.0.0.1:6379' },
    backend: { type: 'string', default: 'sqlite' },
    'postgres-url': { type: 'string', default: DEFAULT_BENCH_POSTGRES_URL },
    'full-sync': { type: 'string', default: 'on' },
    replication: { type: 'string', default: 'on' },
    'replication-seconds': { type: 'string', default: '300' },
  },
});

const seconds = Number(values.seconds);
const connections = Number(values.connections);
const root = join(import.meta.dir, '..');
const workDir = join(tmpdir(), `listings-bench-${Date.now()}`);
mkdirSync(workDir, { recursive: true });
const databasePath = values.database ?? join(workDir, 'bench.db');
const SERVER_CPU = 0;
const LOAD_CPU = 1;
const readCacheOn = values['read-cache'] !== 'off';
/** A second server with READ_CACHE=off measures the point reads too (`--read-cache compare`). */
const compareCache = values['read-cache'] === 'compare';
const metricsOn = values.metrics !== 'off';
const mixOn = values.mix !== 'off';
/** Servers sharing the database (and a Redis); all pinned to the server's CPU. */
const instanceCount = Math.max(1, Math.floor(Number(values.instances)) || 1);
if (values.backend !== 'sqlite' && values.backend !== 'postgres') {
  console.error(`bench: --backend is sqlite or postgres (got "${values.backend}")`);
  process.exit(1);
}
const onPostgres = values.backend === 'postgres';
const postgresUrl = values['postgres-url'];
/** Reads Redis's command count when several instances share it. */
const redisCounter = instanceCount > 1 ? redisCommandCounter(values['redis-url']) : undefined;
/** Every read's p99 under the background writes stays below this. */
const READ_P99_TARGET_MS = 20;

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

/** Resident memory of `pid` in MB: all of it, and the anonymous part (heap, caches; not mapped files). */
function rssMb(pid: number): { total: number; anon: number } {
  try {
    const status = require('node:fs').readFileSync(`/proc/${pid}/status`, 'utf8') as string;
    const kb = (field: string) =>
      Number(new RegExp(`${field}:\\s+(\\d+) kB`).exec(status)?.[1] ?? 0);
    return { total: kb('VmRSS') / 1024, anon: kb('RssAnon') / 1024 };
  } catch {
    return { total: 0, anon: 0 };
  }
}

const fileMb = (path: string) => (existsSync(path) ? statSync(path).size / 1024 / 1024 : 0);

/**
 * Drives `urls` (one per server instance, the same path on each) at once,
 * the connections split between them, and adds up what they answered and
 * what the processes `pids` spent: one instance is the usual single run.
 */
async function measure(
  name: string,
  urls: string[],
  pids: number[],
  options: {
    headers?: Record<string, string>;
    body?: string;
    method?: string;
    paths?: string[];
    lines?: { file: string; prefix: string };
    /** Background traffic to run during the warm-up and the measurement. */
    background?: BackgroundConfig;
    /** Measured seconds (the run's --seconds by default) after the warm-up. */
    duration?: number;
    /** Seconds of warm-up (2 by default). */
    warmup?: number;
  } = {},
) {
  let peakRss = 0;
  let peakAnon = 0;
  let peakWal = 0;
  const sampler = setInterval(() => {
    const rss = pids.map(rssMb);
    peakRss = Math.max(peakRss, sum(rss.map((r) => r.total)));
    peakAnon = Math.max(peakAnon, sum(rss.map((r) => r.anon)));
    peakWal = Math.max(peakWal, fileMb(`${databasePath}-wal`));
  }, 250);
  const { background: backgroundConfig, warmup = 2, ...wrkOptions } = options;
  const common = {
    connections: Math.ceil(connections / urls.length),
    cpu: LOAD_CPU,
    scriptDir: workDir,
    ...wrkOptions,
  };
  const drive = async (duration: number) =>
    combined(await Promise.all(urls.map((url) => runWrk({ ...common, url, seconds: duration }))));
  const background = backgroundConfig && (await startBackground(backgroundConfig));
  await drive(warmup); // JIT, statement cache, page cache, read cache
  const cpuOf = () => sum(pids.map(cpuSeconds));
  const postgresCpuOf = () => (onPostgres ? postgresCpuSeconds(postgresUrl, CLOCK_TICKS) : 0);
  const cpuBefore = cpuOf();
  const postgresBefore = postgresCpuOf();
  const redisBefore = await redisCounter?.read();
  const result = await drive(options.duration ?? seconds);
  const perRequest = (amount: number) => amount / Math.max(1, result.requests);
  const cpuUsPerRequest = perRequest((cpuOf() - cpuBefore) * 1e6);
  const postgresCpuUsPerRequest = onPostgres
    ? perRequest((postgresCpuOf() - postgresBefore) * 1e6)
    : undefined;
  const redisCommandsPerRequest =
    redisBefore === undefined ? undefined : perRequest((await redisCounter!.read()) - redisBefore);
  const figures = await background?.stop();
  clearInterval(sampler);
  const rates = figures
    ? `; background ${describeBackground(figures)}, failed ${figures.creates.failed}/${figures.unitEdits.failed}/${figures.customerCalls.failed} ${JSON.stringify(figures.customerCalls.statuses)}`
    : '';
  const moved = [
    postgresCpuUsPerRequest === undefined
      ? ''
      : `, PostgreSQL CPU ${postgresCpuUsPerRequest.toFixed(1)} µs/req`,
    redisCommandsPerRequest === undefined
      ? ''
      : `, Redis ${redisCommandsPerRequest.toFixed(2)} commands/req`,
  ].join('');
  console.log(
    `  ${name}: ${result.requestsPerSecond.toFixed(0)} req/s, p50 ${result.p50Ms.toFixed(2)} ms, p99 ${result.p99Ms.toFixed(2)} ms, CPU ${cpuUsPerRequest.toFixed(1)} µs/req${moved}, errors ${result.errors}, peak RSS ${peakRss.toFixed(0)} MB (anonymous ${peakAnon.toFixed(0)}), peak WAL ${peakWal.toFixed(1)} MB${rates}`,
  );
  return {
    ...result,
    cpuUsPerRequest,
    postgresCpuUsPerRequest,
    redisCommandsPerRequest,
    peakRssMb: peakRss,
    peakAnonMb: peakAnon,
    peakWalMb: peakWal,
    background: figures,
  };
}

const sum = (values: number[]) => values.reduce((total, v) => total + v, 0);

/**
 * Several wrk runs side by side as one: requests added up, the slowest p99,
 * the p50 weighted by requests (close enough to the whole's median).
 */
function combined(runs: WrkResult[]): WrkResult {
  if (runs.length === 1) return runs[0]!;
  const requests = sum(runs.map((r) => r.requests));
  return {
    requestsPerSecond: sum(runs.map((r) => r.requestsPerSecond)),
    p50Ms: sum(runs.map((r) => r.p50Ms * r.requests)) / Math.max(1, requests),
    p99Ms: Math.max(...runs.map((r) => r.p99Ms)),
    requests,
    errors: sum(runs.map((r) => r.errors)),
  };
}

const describeBackground = (f: BackgroundFigures) =>
  `${f.creates.perSecond.toFixed(1)} creates/s, ${f.unitEdits.perSecond.toFixed(1)} unit edits/s, ${f.customerCalls.perSecond.toFixed(1)} customer calls/s`;

/** The `--mix` background client, on the load generator's CPU; `stop()` gives its rates. */
async function startBackground(config: BackgroundConfig) {
  const file = join(workDir, `background-${crypto.randomUUID()}.json`);
  await Bun.write(file, JSON.stringify(config));
  const proc = Bun.spawn(
    ['taskset', '-c', String(LOAD_CPU), process.execPath, 'bench/background.ts', file],
    { cwd: root, stdout: 'pipe', stderr: 'inherit' },
  );
  return {
    async stop(): Promise<BackgroundFigures> {
      proc.kill('SIGTERM');
      const output = await new Response(proc.stdout).text();
      await proc.exited;
      return JSON.parse(output.trim().split('\n').at(-1)!) as BackgroundFigures;
    },
  };
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

/** Waits for a spawned server, and fails if it exited (so nothing else answered for it). */
async function waitForOwn(child: ReturnType<typeof Bun.spawn>, url: string) {
  await waitFor(url);
  if (child.exitCode !== null) throw new Error(`bench: the server for ${url} exited`);
}

async function spawnCeiling(port: number) {
  const ceiling = Bun.spawn(
    ['taskset', '-c', String(SERVER_CPU), process.execPath, 'bench/ceiling.ts'],
    { cwd: root, env: { ...process.env, PORT: String(port) }, stdout: 'ignore' },
  );
  await waitForOwn(ceiling, `http://127.0.0.1:${port}/`);
  return ceiling;
}

/** The server with READ_CACHE=off of `--read-cache compare`, on the one database. */
async function spawnUncached(env: Record<string, string | undefined>) {
  const port = freePort();
  const server = Bun.spawn(['taskset', '-c', String(SERVER_CPU), ...SERVICE_COMMAND], {
    cwd: root,
    env: { ...env, PORT: String(port), READ_CACHE: 'off' },
    stdout: 'ignore',
    stderr: 'inherit',
  });
  const base = `http://127.0.0.1:${port}`;
  await waitForOwn(server, `${base}/health`);
  return { server, bases: [base], pids: [server.pid] };
}

const mean = (values: number[]) => values.reduce((sum, v) => sum + v, 0) / values.length;

async function main() {
  ensureWrk();
  ensureTwoCores();
  console.log(
    `bench: backend ${values.backend}${onPostgres ? ` (${postgresUrl}, copied from ${databasePath})` : ''}, ${instanceCount} instance${instanceCount > 1 ? 's' : ''}, database ${databasePath}, read cache ${readCacheOn ? 'on' : 'off'}, mix ${mixOn ? 'on' : 'off'}, metrics ${metricsOn ? 'on' : 'off'}`,
  );
  const properties = Number(values.properties);
  seedUnlessPresent(databasePath, {
    properties: String(properties),
    unitsPerProperty: String(values['units-per-property']),
  });
  if (onPostgres) {
    const started = performance.now();
    await recreateDatabase(postgresUrl);
    run([
      process.execPath,
      'scripts/migrate-to-postgres.ts',
      '--from',
      databasePath,
      '--to',
      postgresUrl,
    ]);
    console.log(`copied to PostgreSQL in ${((performance.now() - started) / 1000).toFixed(1)} s`);
  }
  const token = await new TokenService(BENCH_SECRET).issue('bench-employee', 'employee', 6 * 3600);
  const headers = { authorization: `Bearer ${token}`, accept: 'application/json' };

  const env = {
    ...process.env,
    HOST: '127.0.0.1',
    DATABASE_PATH: databasePath,
    JWT_SECRET: BENCH_SECRET,
    WORKERS: 'off',
    // The default level: the per-request log line is part of what is measured.
    LOG_LEVEL: 'info',
    // The limiter stays on; the bench employee may send far more than 5000 a minute.
    RATE_LIMIT_EMPLOYEE_PER_MINUTE: '1000000',
    // Its creates count each unit: thousands of 30-unit creates a second are millions a minute.
    RATE_LIMIT_EMPLOYEE_WRITES_PER_MINUTE: '100000000',
    READ_CACHE: readCacheOn ? 'on' : 'off',
    METRICS: metricsOn ? 'on' : 'off',
    ...(values['memory-budget'] ? { MEMORY_BUDGET_MB: values['memory-budget'] } : {}),
    ...(onPostgres ? { DATABASE_URL: postgresUrl } : {}),
    // Several instances share their limits and job leases in Redis, under a prefix of this run.
    ...(instanceCount > 1
      ? { REDIS_URL: values['redis-url'], REDIS_PREFIX: `bench-${Date.now()}:` }
      : {}),
  };
  // The first alone (it applies pending migrations), then the others.
  const servers: ReturnType<typeof Bun.spawn>[] = [];
  const bases: string[] = [];
  for (let n = 0; n < instanceCount; n++) {
    const port = freePort();
    const server = Bun.spawn(['taskset', '-c', String(SERVER_CPU), ...SERVICE_COMMAND], {
      cwd: root,
      env: { ...env, PORT: String(port) },
      stdout: 'ignore',
      stderr: 'inherit',
    });
    servers.push(server);
    bases.push(`http://127.0.0.1:${port}`);
    await waitForOwn(server, `${bases[n]}/health`);
  }
  const base = bases[0]!;
  const serverPids = servers.map((server) => server.pid);
  const uncached = compareCache ? await spawnUncached(env) : undefined;
  if (instanceCount > 1) {
    console.log(
      `bench: ${instanceCount} instances on CPU ${SERVER_CPU} sharing ${onPostgres ? postgresUrl : databasePath} and Redis at ${values['redis-url']}; each endpoint's load is split between them`,
    );
  }
  // Both servers stay up on CPU 0; only the one being measured has work.
  const ceilingPort = freePort();
  const ceilingServer = await spawnCeiling(ceilingPort);
  const { prepareFixtures, unitsToEdit, CREATE_BODY, benchCustomer, BACKGROUND_CUSTOMERS } =
    await import('./fixtures');
  const endpoints = await prepareFixtures({ base, headers, databasePath, workDir });
  const background: BackgroundConfig | undefined = mixOn
    ? {
        base,
        employeeToken: token,
        customerTokens: await Promise.all(
          Array.from({ length: BACKGROUND_CUSTOMERS }, (_, n) =>
            new TokenService(BENCH_SECRET).issue(benchCustomer(n), 'customer', 6 * 3600),
          ),
        ),
        units: unitsToEdit(databasePath),
        createsPerSecond: 20,
        unitEditsPerSecond: 10,
        customerCallsPerSecond: 50,
        createBody: CREATE_BODY,
      }
    : undefined;
  const dataset = datasetOf(databasePath);
  console.log(
    `bench: ${dataset.properties.toLocaleString('en')} properties, ${dataset.units.toLocaleString('en')} units, database ${dataset.databaseMb.toFixed(0)} MB`,
  );

  // The machine is shared, so its speed drifts: the ceiling is measured
  // before every endpoint and once more at the end, and each endpoint is
  // compared with the mean of the ceilings just before and just after it.
  const ceilings: Measured[] = [];
  const measureCeiling = async () => {
    const result = await measure(
      `ceiling (bare Bun.serve) #${ceilings.length + 1}`,
      [`http://127.0.0.1:${ceilingPort}/`],
      [ceilingServer.pid],
      { headers, duration: Math.max(3, Math.round(seconds / 2)) },
    );
    ceilings.push(result);
    return result;
  };
  type Result = Measured & {
    ceiling: number;
    ratio: number;
    /** The ceiling's CPU time per request over this one's: the ratio a busy machine barely moves. */
    cpuRatio: number;
    target?: number;
    met?: boolean;
  };
  const results: Record<string, Result> = {};
  const wanted = values.only?.split(',');
  const chosen = endpoints.filter(
    (endpoint) => !wanted || wanted.some((part) => endpoint.name.includes(part)),
  );
  const before: Measured[] = [];
  // Each endpoint on the server(s) under test; each point read also on the uncached one.
  const runs = chosen.flatMap((endpoint) => [
    { endpoint, name: endpoint.name, bases, pids: serverPids, cached: readCacheOn },
    ...(uncached && endpoint.pointRead
      ? [{ endpoint, name: `${endpoint.name}, READ_CACHE=off`, ...uncached, cached: false }]
      : []),
  ]);
  for (const { endpoint, name, bases: targets, pids } of runs) {
    before.push(await measureCeiling());
    // Nothing left queued from the previous endpoint.
    for (const instance of targets) await waitFor(`${instance}/health`);
    const urls = targets.map((instance) => `${instance}${endpoint.path}`);
    const measured = await measure(name, urls, pids, {
      headers,
      body: endpoint.body,
      method: endpoint.method,
      paths: endpoint.paths,
      lines: endpoint.lines,
      // A point read spread over the table is measured once the read cache is
      // full (20,000 answers, then the collector settling): what it costs a
      // long-running server, not the first seconds after a start.
      warmup: endpoint.pointRead ? 10 : 2,
      // The writes and customer calls go to the server measured, so its CPU counts them.
      background: endpoint.read && background ? { ...background, base: targets[0]! } : undefined,
    });
    results[name] = { ...measured, ceiling: 0, ratio: 0, cpuRatio: 0 };
  }
  const last = await measureCeiling();
  const walMb = fileMb(`${databasePath}-wal`);
  redisCounter?.close();
  for (const server of servers) server.kill('SIGTERM');
  uncached?.server.kill('SIGTERM');
  ceilingServer.kill();
  await Promise.all([
    ...servers.map((server) => server.exited),
    ceilingServer.exited,
    uncached?.server.exited,
  ]);

  const ceiling = {
    requestsPerSecond: mean(ceilings.map((c) => c.requestsPerSecond)),
    p50Ms: mean(ceilings.map((c) => c.p50Ms)),
    p99Ms: mean(ceilings.map((c) => c.p99Ms)),
    errors: ceilings.reduce((sum, c) => sum + c.errors, 0),
    cpuUsPerRequest: mean(ceilings.map((c) => c.cpuUsPerRequest)),
  };
  // Where the work moves on PostgreSQL, and with several instances: a column each.
  const movedColumns = [
    ...(onPostgres ? ['PostgreSQL CPU µs/req'] : []),
    ...(redisCounter ? ['Redis commands/req'] : []),
  ];
  const movedCells = (r?: Measured) =>
    [
      ...(onPostgres ? [r?.postgresCpuUsPerRequest?.toFixed(1) ?? ''] : []),
      ...(redisCounter ? [r?.redisCommandsPerRequest?.toFixed(2) ?? ''] : []),
    ]
      .map((cell) => ` ${cell} |`)
      .join('');
  console.log(
    `\n| endpoint | keys | req/s | p50 ms | p99 ms | errors | ceiling req/s | ratio | CPU µs/req | CPU ratio |${movedColumns.map((column) => ` ${column} |`).join('')} target | met | background achieved |`,
  );
  console.log(
    `|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|${'---:|'.repeat(movedColumns.length)}---|---|---|`,
  );
  runs.forEach(({ endpoint, name, cached }, index) => {
    const r = results[name]!;
    const next = before[index + 1] ?? last;
    r.ceiling = (before[index]!.requestsPerSecond + next.requestsPerSecond) / 2;
    r.ratio = r.requestsPerSecond / r.ceiling;
    r.cpuRatio = ceiling.cpuUsPerRequest / r.cpuUsPerRequest;
    const ratioTarget = cached ? endpoint.target : endpoint.offTarget;
    const p99Target = endpoint.read && mixOn ? READ_P99_TARGET_MS : endpoint.p99TargetMs;
    r.target = ratioTarget;
    const hasTarget = ratioTarget !== undefined || p99Target !== undefined;
    r.met =
      (ratioTarget === undefined || r.ratio >= ratioTarget) &&
      (p99Target === undefined || r.p99Ms < p99Target);
    const target = [
      ratioTarget === undefined ? '' : `≥ ${ratioTarget}`,
      p99Target === undefined ? '' : `p99 < ${p99Target} ms`,
    ]
      .filter(Boolean)
      .join(', ');
    console.log(
      `| ${name} | ${(endpoint.keys ?? endpoint.paths?.length ?? 1).toLocaleString('en')} | ${r.requestsPerSecond.toFixed(0)} | ${r.p50Ms.toFixed(2)} | ${r.p99Ms.toFixed(2)} | ${r.errors} | ${r.ceiling.toFixed(0)} | ${r.ratio.toFixed(3)} | ${r.cpuUsPerRequest.toFixed(1)} | ${r.cpuRatio.toFixed(3)} |${movedCells(r)} ${target} | ${hasTarget ? (r.met ? 'met' : 'NOT met') : ''} | ${r.background ? describeBackground(r.background) : ''} |`,
    );
  });
  console.log(
    `| ceiling: bare Bun.serve, ${CEILING_BODY.length} B JSON (mean of ${ceilings.length} runs, ${Math.min(...ceilings.map((c) => c.requestsPerSecond)).toFixed(0)}–${Math.max(...ceilings.map((c) => c.requestsPerSecond)).toFixed(0)}) | | ${ceiling.requestsPerSecond.toFixed(0)} | ${ceiling.p50Ms.toFixed(2)} | ${ceiling.p99Ms.toFixed(2)} | ${ceiling.errors} | | 1.000 | ${ceiling.cpuUsPerRequest.toFixed(1)} | 1.000 |${movedCells()} | | |`,
  );
  const gains = runs.flatMap(({ name }) => {
    const off = results[`${name}, READ_CACHE=off`];
    if (!off) return [];
    const on = results[name]!;
    const gain = {
      requests: on.requestsPerSecond / off.requestsPerSecond,
      cpu: on.cpuUsPerRequest / off.cpuUsPerRequest,
    };
    console.log(
      `${name}: cached ÷ READ_CACHE=off: ${gain.requests.toFixed(2)}× the requests/s, ${gain.cpu.toFixed(2)}× the CPU a request (${on.cpuUsPerRequest.toFixed(1)} against ${off.cpuUsPerRequest.toFixed(1)} µs); ratios to the ceiling ${on.ratio.toFixed(3)} and ${off.ratio.toFixed(3)}; peak RSS ${on.peakRssMb.toFixed(0)} and ${off.peakRssMb.toFixed(0)} MB`,
    );
    return [{ endpoint: name, ...gain }];
  });
  const peakRss = Math.max(...Object.values(results).map((r) => r.peakRssMb));
  const peakAnon = Math.max(...Object.values(results).map((r) => r.peakAnonMb));
  const peakWal = Math.max(...Object.values(results).map((r) => r.peakWalMb));
  console.log(
    `\npeak server RSS${instanceCount > 1 ? ` (${instanceCount} instances together)` : ''} ${peakRss.toFixed(0)} MB (target < 300 MB; anonymous at most ${peakAnon.toFixed(0)} MB); WAL peak ${peakWal.toFixed(1)} MB, after the run ${walMb.toFixed(1)} MB`,
  );

  mkdirSync(join(root, 'bench', 'results'), { recursive: true });
  await Bun.write(
    join(root, 'bench', 'results', 'latest.json'),
    JSON.stringify(
      {
        at: new Date().toISOString(),
        backend: values.backend,
        readCache: env.READ_CACHE,
        metrics: env.METRICS,
        mix: mixOn,
        instances: instanceCount,
        dataset,
        seconds,
        connections,
        ceiling: { ...ceiling, runs: ceilings },
        endpoints: results,
        cacheGains: gains,
        peakRssMb: peakRss,
        peakAnonMb: peakAnon,
        peakWalMb: peakWal,
        walMb,
      },
      null,
      2,
    ),
  );
  if (values['full-sync'] !== 'off' && !onPostgres) {
    // Keyset against page numbers over every property (bench/full-sync.ts).
    run([process.execPath, 'bench/full-sync.ts', '--database', databasePath]);
  }
  if (values.replication !== 'off' && !onPostgres) {
    // Its own servers on new files: what Litestream costs the writes (bench/replication.ts).
    run([
      process.execPath,
      'bench/replication.ts',
      '--wal-seconds',
      String(values['replication-seconds']),
    ]);
  }
  // The wrk scripts, and the seeded database unless --database named one elsewhere.
  rmSync(workDir, { recursive: true, force: true });
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
