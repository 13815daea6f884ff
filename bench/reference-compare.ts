/**
 * `bun run bench:reference`: the service against a reference implementation
 * of the same endpoints (bench/reference/: Node, Fastify, better-sqlite3),
 * side by side in one run. Both get the same data: the service's file is
 * seeded (`scripts/seed.ts`, 1 to 30 units a property by default) and its
 * properties and units copied into the reference's own tables
 * (bench/reference-data.ts). Each server in turn runs pinned to CPU 0 and
 * wrk to CPU 1, 32 connections, a bearer token on every request:
 *
 * - GET /listings/properties/{id}, ids uniform over the whole table;
 * - the same with 20 creates/s beside it (bench/background.ts, 15 units each);
 * - GET /api/v1/tokens/limits;
 * - POST /listings/properties, the bodies rotating over 1 to 30 units.
 *
 * The list is measured `--rounds` times (3 by default), the service first in
 * odd rounds and the reference first in even ones, so neither always meets
 * a machine the other has just warmed. Prints, for each measurement, the
 * median round's figures for both (req/s, p99, CPU time a request), the
 * ratios service/reference of req/s and reference/service of CPU time with
 * every round's beside them, and each server's peak resident memory; a copy goes to
 * bench/results/reference-latest.json (or `--results FILE`). The reference's packages are
 * installed on first use (`npm install --prefix bench/reference`;
 * better-sqlite3 is compiled with node-gyp when no prebuilt binary can be
 * had, a few minutes).
 *
 * Before the first round each server runs `--settle` seconds (30 by
 * default) of the first measurement's traffic, unmeasured, so that no
 * round catches a server in its first seconds.
 *
 *   bun run bench:reference [-- --properties 200000 --seconds 5 --warmup 3 --settle 30 --rounds 3
 *                               --units-per-property 1-30 --database /tmp/ref.db]
 *
 *   bun run bench:reference -- --creates [--until 200000 --rounds 2]
 *
 *   bun run bench:reference -- --reads-with-creates [--properties 200000 --rounds 4]
 *
 * `--creates` measures creates alone the way users' traffic brings them
 * instead: each server from an empty file until `--until` properties exist
 * (bench/reference-creates.ts). `--reads-with-creates` measures only the
 * point reads with 20 creates/s beside them (ids uniform over the whole
 * table), the p99 of both servers being the figure to read.
 *
 * `--database FILE` keeps the seeded service file (and FILE.reference
 * beside it) for later runs, which measure copies of the two: each run
 * starts from the same rows, without an earlier run's creates.
 */
import {
  closeSync,
  copyFileSync,
  existsSync,
  mkdirSync,
  openSync,
  readSync,
  rmSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { TokenService } from '@/auth/tokens';
import type { BackgroundConfig, BackgroundFigures } from './background';
import { CREATE_BODY, writePropertyIds } from './fixtures';
import { runCreates } from './reference-creates';
import { copyToReference, REFERENCE_DIR } from './reference-data';
import {
  cpuSeconds,
  type Measurement as HarnessMeasurement,
  requireLoadTools,
  residentMb,
  runQueueSeconds,
  type Started,
  startServer,
  wrkDriver,
} from './reference-harness';
import { BENCH_SECRET, seedUnlessPresent } from './seeded-file';
import { SERVICE_COMMAND } from './service-command';
import type { WrkResult } from './wrk';

const { values } = parseArgs({
  args: Bun.argv.slice(2).filter((arg) => arg !== '--'),
  options: {
    properties: { type: 'string', default: '200000' },
    'units-per-property': { type: 'string', default: '1-30' },
    seconds: { type: 'string', default: '5' },
    warmup: { type: 'string', default: '3' },
    settle: { type: 'string', default: '30' },
    rounds: { type: 'string' },
    creates: { type: 'boolean', default: false },
    'reads-with-creates': { type: 'boolean', default: false },
    until: { type: 'string', default: '20000' },
    connections: { type: 'string', default: '32' },
    database: { type: 'string' },
    results: { type: 'string' },
  },
});

const seconds = Number(values.seconds);
const warmupSeconds = Number(values.warmup);
const settleSeconds = Number(values.settle);
const rounds = Number(values.rounds ?? (values.creates ? 2 : 3));
const connections = Number(values.connections);
const root = join(import.meta.dir, '..');
const workDir = join(tmpdir(), `listings-reference-${Date.now()}`);
mkdirSync(workDir, { recursive: true });
const servicePath = values.database ?? join(workDir, 'service.db');
const referencePath = `${servicePath}.reference`;
/** What the servers run on: copies of a kept pair, so every run starts from the same rows. */
const runPaths = values.database
  ? { service: join(workDir, 'service.db'), reference: join(workDir, 'reference.db') }
  : { service: servicePath, reference: referencePath };
const SERVER_CPU = 0;
const LOAD_CPU = 1;
/** Units of each create of the background writes: the middle of 1..30. */
const BACKGROUND_UNITS = 15;

/** Installs bench/reference's packages unless better-sqlite3 already loads there. */
function ensureReferenceInstalled() {
  const loads = () =>
    Bun.spawnSync(['node', '-e', "new (require('better-sqlite3'))(':memory:')"], {
      cwd: REFERENCE_DIR,
      stdio: ['ignore', 'ignore', 'ignore'],
    }).exitCode === 0;
  if (loads()) return;
  console.log('bench: installing the reference (npm install --prefix bench/reference)');
  const started = performance.now();
  // No prebuilt binary can be fetched from here: bench/reference/.prebuild-installrc
  // has better-sqlite3 compiled at once instead of trying.
  Bun.spawnSync(['npm', 'install', '--prefix', REFERENCE_DIR, '--no-audit', '--no-fund'], {
    stdio: ['ignore', 'inherit', 'inherit'],
  });
  if (!loads()) {
    console.error('bench: the reference could not be installed (better-sqlite3 does not load)');
    process.exit(1);
  }
  console.log(
    `bench: reference installed in ${((performance.now() - started) / 1000).toFixed(0)} s`,
  );
}

function prepareData() {
  seedUnlessPresent(servicePath, {
    properties: values.properties!,
    unitsPerProperty: values['units-per-property']!,
  });
  if (!existsSync(referencePath)) {
    const started = performance.now();
    const copied = copyToReference(servicePath, referencePath);
    console.log(
      `reference database: ${copied.properties.toLocaleString('en')} properties, ${copied.units.toLocaleString('en')} units, copied in ${((performance.now() - started) / 1000).toFixed(1)} s`,
    );
  }
  if (values.database) {
    copyFileSync(servicePath, runPaths.service);
    copyFileSync(referencePath, runPaths.reference);
  }
  // Written out and read once, both files start in the OS page cache, as a
  // long-running server's would: otherwise the first reads measure the disk
  // and whatever the copy left to write back.
  Bun.spawnSync(['sync']);
  for (const path of [runPaths.service, runPaths.reference]) readThrough(path);
}

function readThrough(path: string) {
  const chunk = Buffer.alloc(8 * 1024 * 1024);
  const fd = openSync(path, 'r');
  try {
    while (readSync(fd, chunk, 0, chunk.length, null) > 0);
  } finally {
    closeSync(fd);
  }
}

type Measured = WrkResult & {
  cpuUsPerRequest: number;
  background?: BackgroundFigures;
};

async function startBackground(config: BackgroundConfig) {
  const file = join(workDir, `background-${crypto.randomUUID()}.json`);
  await Bun.write(file, JSON.stringify(config));
  const proc = Bun.spawn(
    ['taskset', '-c', String(LOAD_CPU), process.execPath, 'bench/background.ts', file],
    { cwd: root, stdout: 'pipe', stderr: 'inherit' },
  );
  return async (): Promise<BackgroundFigures> => {
    proc.kill('SIGTERM');
    const output = await new Response(proc.stdout).text();
    await proc.exited;
    return JSON.parse(output.trim().split('\n').at(-1)!) as BackgroundFigures;
  };
}

interface Measurement extends HarnessMeasurement {
  withCreates?: boolean;
}

/** The creates sent beside a measurement `withCreates`: 20 a second, 15 units each. */
function backgroundCreates(server: Started, m: Measurement, token: string) {
  return m.withCreates
    ? startBackground({
        base: server.base,
        employeeToken: token,
        customerTokens: [],
        units: [],
        createsPerSecond: 20,
        unitEditsPerSecond: 0,
        customerCallsPerSecond: 0,
        createBody: { ...CREATE_BODY, totalUnits: BACKGROUND_UNITS, rentableUnits: 10 },
      })
    : undefined;
}

/**
 * `settleSeconds` of `m`'s traffic, not measured: a server just started
 * fills its read cache and grows its heap for the first 15 s or so, and its
 * event loop stalls for 10–50 ms several times meanwhile (the collector, the
 * JIT); a round measured then measures the start, not the server.
 */
async function settle(server: Started, m: Measurement, token: string): Promise<void> {
  if (settleSeconds <= 0) return;
  const stopBackground = await backgroundCreates(server, m, token);
  await wrkDriver(server, m, token, { connections, cpu: LOAD_CPU, scriptDir: workDir })(
    settleSeconds,
  );
  await stopBackground?.();
}

/**
 * A warm-up (3 s by default: the reference's JIT is still compiling after
 * 2), then `seconds` measured, with the server's CPU time per request.
 */
async function measure(server: Started, m: Measurement, token: string): Promise<Measured> {
  const stopBackground = await backgroundCreates(server, m, token);
  const drive = wrkDriver(server, m, token, { connections, cpu: LOAD_CPU, scriptDir: workDir });
  if (warmupSeconds > 0) await drive(warmupSeconds);
  const cpuBefore = cpuSeconds(server.pid);
  const waitedBefore = runQueueSeconds(server.pid);
  const result = await drive(seconds);
  const waited = runQueueSeconds(server.pid) - waitedBefore;
  const cpuUsPerRequest =
    ((cpuSeconds(server.pid) - cpuBefore) * 1e6) / Math.max(1, result.requests);
  const background = await stopBackground?.();
  console.log(
    `  ${server.name} ${m.name}: ${result.requestsPerSecond.toFixed(0)} req/s, p50 ${result.p50Ms.toFixed(2)} ms, p99 ${result.p99Ms.toFixed(2)} ms, CPU ${cpuUsPerRequest.toFixed(1)} µs/req, RSS ${residentMb(server.pid).toFixed(0)} MB (peak ${residentMb(server.pid, { peak: true }).toFixed(0)}), errors ${result.errors}, event loop waiting for the CPU ${waited.toFixed(2)} s of ${seconds}${background ? `, background ${background.creates.perSecond.toFixed(1)} creates/s (${background.creates.failed} failed)` : ''}`,
  );
  return { ...result, cpuUsPerRequest, background };
}

/** Both servers answer a property the same way, and take a create and the limits read. */
async function checkAlike(servers: Started[], id: string, token: string) {
  const headers = { authorization: `Bearer ${token}` };
  const bodies = await Promise.all(
    servers.map(async (server) => {
      const response = await fetch(`${server.base}/listings/properties/${id}`, { headers });
      if (response.status !== 200) throw new Error(`${server.name}: GET ${response.status}`);
      return (await response.json()) as unknown;
    }),
  );
  if (!Bun.deepEquals(bodies[0], bodies[1])) {
    throw new Error(`the two answers differ:\n${JSON.stringify(bodies)}`);
  }
  for (const server of servers) {
    const created = await fetch(`${server.base}/listings/properties`, {
      method: 'POST',
      headers: { ...headers, 'content-type': 'application/json' },
      body: JSON.stringify(CREATE_BODY),
    });
    const limits = await fetch(`${server.base}/api/v1/tokens/limits`, { headers });
    if (created.status !== 201 || limits.status !== 200) {
      throw new Error(`${server.name}: POST ${created.status}, limits ${limits.status}`);
    }
  }
}

const ratio = (a: number, b: number) => (b > 0 ? (a / b).toFixed(2) : '');

/** What both servers run with: the bench secret, the log level, the employee's limits out of reach. */
const limits = {
  JWT_SECRET: BENCH_SECRET,
  LOG_LEVEL: 'info',
  RATE_LIMIT_EMPLOYEE_PER_MINUTE: '1000000',
  RATE_LIMIT_EMPLOYEE_WRITES_PER_MINUTE: '100000000',
};

/** `--creates`: from empty files until `--until` properties exist (bench/reference-creates.ts). */
async function createsMain() {
  requireLoadTools();
  ensureReferenceInstalled();
  const token = await new TokenService(BENCH_SECRET).issue('bench-employee', 'employee', 6 * 3600);
  try {
    const failed = await runCreates({
      until: Number(values.until),
      rounds,
      connections,
      token,
      env: limits,
      workDir,
      serverCpu: SERVER_CPU,
      loadCpu: LOAD_CPU,
      results: values.results ?? join(root, 'bench', 'results', 'reference-creates-latest.json'),
    });
    if (failed > 0) {
      console.error(`bench: ${failed} requests failed`);
      process.exitCode = 1;
    }
  } finally {
    rmSync(workDir, { recursive: true, force: true });
  }
}

async function main() {
  requireLoadTools();
  ensureReferenceInstalled();
  prepareData();
  const token = await new TokenService(BENCH_SECRET).issue('bench-employee', 'employee', 6 * 3600);
  const service = await startServer({
    name: 'service',
    command: SERVICE_COMMAND,
    cpu: SERVER_CPU,
    env: { ...limits, DATABASE_PATH: runPaths.service, WORKERS: 'off', READ_CACHE: 'on' },
    ready: '/health',
  });
  const reference = await startServer({
    name: 'reference',
    command: ['node', join(REFERENCE_DIR, 'server.mjs')],
    cpu: SERVER_CPU,
    env: { ...limits, DATABASE_PATH: runPaths.reference },
    ready: '/api/v1/tokens/limits',
    token,
  });
  const servers = [service, reference];
  try {
    const idFile = join(workDir, 'property-ids.txt');
    const ids = writePropertyIds(runPaths.service, idFile);
    console.log(
      `bench: ${ids.count.toLocaleString('en')} properties, ${seconds} s a measurement, ${connections} connections`,
    );
    await checkAlike(servers, ids.first, token);
    const reads = { file: idFile, prefix: '/listings/properties/' };
    const all: Measurement[] = [
      {
        name: 'GET /listings/properties/{id}, uniform',
        path: `/listings/properties/${ids.first}`,
        lines: reads,
      },
      {
        name: 'the same, 20 creates/s beside it',
        path: `/listings/properties/${ids.first}`,
        lines: reads,
        withCreates: true,
      },
      { name: 'GET /api/v1/tokens/limits', path: '/api/v1/tokens/limits' },
      {
        name: 'POST /listings/properties, 1-30 units',
        path: '/listings/properties',
        method: 'POST',
        bodies: Array.from({ length: 30 }, (_, n) =>
          JSON.stringify({
            ...CREATE_BODY,
            totalUnits: n + 1,
            rentableUnits: Math.ceil((n + 1) / 2),
          }),
        ),
      },
    ];
    const measurements = values['reads-with-creates'] ? all.filter((m) => m.withCreates) : all;
    const runs = measurements.map(() => [] as { service: Measured; reference: Measured }[]);
    for (const server of servers) await settle(server, measurements[0]!, token);
    for (let round = 0; round < rounds; round++) {
      for (const [n, m] of measurements.entries()) {
        const order = round % 2 === 0 ? [service, reference] : [reference, service];
        const measured = new Map<Started, Measured>();
        for (const server of order) measured.set(server, await measure(server, m, token));
        runs[n]!.push({ service: measured.get(service)!, reference: measured.get(reference)! });
      }
    }
    const rss = {
      service: residentMb(service.pid, { peak: true }),
      reference: residentMb(reference.pid, { peak: true }),
    };
    const rows = measurements.map((m, n) => {
      const byRatio = [...runs[n]!].sort(
        (a, b) =>
          a.service.requestsPerSecond / a.reference.requestsPerSecond -
          b.service.requestsPerSecond / b.reference.requestsPerSecond,
      );
      const median = byRatio[Math.floor(byRatio.length / 2)]!;
      const cpuRatios = runs[n]!.map(
        (run) => run.reference.cpuUsPerRequest / run.service.cpuUsPerRequest,
      );
      const cpuRatio = [...cpuRatios].sort((a, b) => a - b)[Math.floor(cpuRatios.length / 2)]!;
      return { name: m.name, ...median, cpuRatio, rounds: runs[n]! };
    });
    console.log(
      `\n${rounds} rounds; each row is the round with the median req/s ratio, the CPU ratio the median of its own, every round's in brackets\n`,
    );
    console.log(
      '| measurement | service req/s | reference req/s | ratio | service p99 ms | reference p99 ms | CPU µs/req service / reference | CPU ratio |',
    );
    console.log('|---|---:|---:|---:|---:|---:|---:|---:|');
    for (const { name, service: s, reference: r, cpuRatio, rounds: all } of rows) {
      const each = (f: (run: { service: Measured; reference: Measured }) => number) =>
        all.map((run) => f(run).toFixed(2)).join(', ');
      console.log(
        `| ${name} | ${s.requestsPerSecond.toFixed(0)} | ${r.requestsPerSecond.toFixed(0)} | ${ratio(s.requestsPerSecond, r.requestsPerSecond)} (${each((run) => run.service.requestsPerSecond / run.reference.requestsPerSecond)}) | ${s.p99Ms.toFixed(2)} | ${r.p99Ms.toFixed(2)} | ${s.cpuUsPerRequest.toFixed(1)} / ${r.cpuUsPerRequest.toFixed(1)} | ${cpuRatio.toFixed(2)} (${each((run) => run.reference.cpuUsPerRequest / run.service.cpuUsPerRequest)}) |`,
      );
    }
    console.log(
      `| peak resident memory, MB | ${rss.service.toFixed(0)} | ${rss.reference.toFixed(0)} | ${ratio(rss.service, rss.reference)} | | | | |`,
    );
    // p99 moves with the shared host more than throughput does: every round's, and the medians.
    for (const { name, rounds: all } of rows) {
      const p99s = (pick: (run: { service: Measured; reference: Measured }) => Measured) =>
        all.map((run) => pick(run).p99Ms).sort((a, b) => a - b);
      const mid = (sorted: number[]) =>
        sorted.length % 2 === 1
          ? sorted[(sorted.length - 1) / 2]!
          : (sorted[sorted.length / 2 - 1]! + sorted[sorted.length / 2]!) / 2;
      const service = p99s((run) => run.service);
      const reference = p99s((run) => run.reference);
      console.log(
        `p99 ms by round, service / reference, ${name}: ${all.map((run) => `${run.service.p99Ms.toFixed(1)} / ${run.reference.p99Ms.toFixed(1)}`).join(', ')}; median ${mid(service).toFixed(2)} / ${mid(reference).toFixed(2)}`,
      );
    }
    const errors = rows.reduce((sum, row) => sum + row.service.errors + row.reference.errors, 0);
    await Bun.write(
      values.results ?? join(root, 'bench', 'results', 'reference-latest.json'),
      JSON.stringify(
        {
          at: new Date().toISOString(),
          properties: ids.count,
          seconds,
          rounds,
          connections,
          rows,
          rss,
        },
        null,
        2,
      ),
    );
    if (errors > 0) {
      console.error(`bench: ${errors} requests failed`);
      process.exitCode = 1;
    }
  } finally {
    for (const server of servers) server.process.kill('SIGTERM');
    await Promise.all(servers.map((server) => server.process.exited));
    rmSync(workDir, { recursive: true, force: true });
  }
}

await (values.creates ? createsMain() : main());
