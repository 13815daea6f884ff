/**
 * `bun run bench:postgres`: one instance on SQLite against one instance on
 * PostgreSQL, the same scenario in one sitting. The SQLite file is seeded
 * (`scripts/seed.ts`, 20,000 properties of 1 to 30 units by default) and
 * copied into PostgreSQL (`scripts/migrate-to-postgres.ts`); each round
 * measures each mode on a fresh copy of its data (a file copy; a database
 * made from a template), the order alternated round by round.
 *
 * Layout on a 2-core machine: the server pinned to CPU 0, wrk to CPU 1,
 * 32 keep-alive connections, a bearer token on every request. PostgreSQL
 * is a system service shared with other work and is not pinned: its
 * backends run on either core, beside one or the other.
 *
 * Measured, in this order, each after a warm-up:
 * - GET /listings/properties/{id}, ids uniform over the table;
 * - one fixed list (`FIXED_LIST`), and `ROTATING_LISTS` lists in turn;
 * - the same fixed list walked with `paging=keyset` (its first page);
 * - POST /listings/properties, the bodies rotating over 1 to 30 units and
 *   over the owners (one per 200 properties, as the seed spreads them;
 *   `--owners 1` sends every create for one owner), cities and addresses.
 *
 * Prints each measurement's median round for every mode: req/s, p99, the
 * CPU time a request cost (the server's, PostgreSQL's for the measured
 * database, the proxy's), then the ratios of req/s (each mode over SQLite;
 * with `--instances`, also through the proxy over direct and N instances
 * over one), every round's beside the median. The machine may be shared: compare the ratios and the CPU
 * times, which one sitting keeps comparable (docs/scaling-out.md). The copy
 * PostgreSQL runs start from is the database `--postgres-url` names
 * (`listings_pg_mode` by default), dropped and made again each run.
 *
 *   bun run bench:postgres [-- --properties 20000 --seconds 4 --warmup 2 --rounds 3
 *                              --pool-sizes 10 --database /tmp/pg-mode.db
 *                              --instances 2 --redis-url redis://127.0.0.1:6379]
 *
 * `--pool-sizes 4,10,20` measures PostgreSQL once per pool size
 * (`POSTGRES_POOL_SIZE`) in every round. `--only POST` keeps the
 * measurements whose name holds that text (here the creates).
 * `--postgres-cpu 1` pins the measured database's backends to that CPU
 * after each warm-up (wrk's CPU on two cores), the server keeping CPU 0.
 *
 * `--instances 2` measures the scaled-out mode as well: every PostgreSQL
 * mode gets the Redis at `--redis-url` (a key prefix of its own each time),
 * and besides one instance reached directly it runs one instance behind
 * the round-robin proxy of `bench/proxy.ts` (its own process) and then
 * `--instances` instances behind it, each its own process on the same
 * database and Redis, their read caches kept exact by the change feed. The
 * instances and the proxy are pinned to the server's CPU, so on two cores
 * more instances add no CPU: the figures say what the proxy and sharing
 * cost, not what another core gains (docs/scaling-out.md). Around the
 * creates, every instance's list total must move by what the database
 * gained, the same on all of them; the bench stops when it does not.
 */
import { Database } from 'bun:sqlite';
import { copyFileSync, mkdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { SQL } from 'bun';
import { TokenService } from '@/auth/tokens';
import { CITY_IDS } from '@/listings/cities';
import { PROPERTY_TYPES } from '@/listings/properties/schemas';
import { ownersFor } from '../scripts/seed';
import { writePropertyIds } from './fixtures';
import { pinDatabaseBackends, postgresCpuSeconds, recreateDatabase } from './postgres';
import { bodyPrefixes } from './reference-creates';
import {
  CLOCK_TICKS,
  cpuSeconds,
  type Measurement,
  requireLoadTools,
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
    properties: { type: 'string', default: '20000' },
    'units-per-property': { type: 'string', default: '1-30' },
    seconds: { type: 'string', default: '4' },
    warmup: { type: 'string', default: '2' },
    rounds: { type: 'string', default: '3' },
    connections: { type: 'string', default: '32' },
    'pool-sizes': { type: 'string', default: '10' },
    instances: { type: 'string', default: '1' },
    'redis-url': { type: 'string', default: 'redis://127.0.0.1:6379' },
    'postgres-url': {
      type: 'string',
      default: 'postgres://postgres@127.0.0.1:5432/listings_pg_mode',
    },
    database: { type: 'string' },
    results: { type: 'string' },
    only: { type: 'string' },
    'postgres-cpu': { type: 'string' },
    owners: { type: 'string' },
  },
});

const seconds = Number(values.seconds);
const warmupSeconds = Number(values.warmup);
const rounds = Number(values.rounds);
const connections = Number(values.connections);
const poolSizes = values['pool-sizes']!.split(',').map(Number);
/** Instances behind the proxy; 1: no proxy, no Redis (one instance against SQLite only). */
const instanceCount = Math.max(1, Math.floor(Number(values.instances)) || 1);
const scaledOut = instanceCount > 1;
const root = join(import.meta.dir, '..');
const workDir = join(tmpdir(), `listings-pg-mode-${Date.now()}`);
mkdirSync(workDir, { recursive: true });
const seededPath = values.database ?? join(workDir, 'seeded.db');
const templateUrl = values['postgres-url']!;
const SERVER_CPU = 0;
const LOAD_CPU = 1;
/** Create bodies wrk rotates over: three for each of the 100 owners of 20,000 properties. */
const BODIES = 300;

const FIXED_LIST = '/listings/properties?cityIds=madrid&type=apartment&sort=-_id&page=1';
const FIXED_WALK = '/listings/properties?cityIds=madrid&type=apartment&sort=-_id&paging=keyset';
/** Lists rotated over: cities × types × three sorts, first pages. */
const ROTATING_LISTS = 384;
const rotatingPaths = CITY_IDS.flatMap((city) =>
  PROPERTY_TYPES.flatMap((type) =>
    ['-_id', '_id', '-type'].map(
      (sort) => `/listings/properties?cityIds=${city}&type=${type}&sort=${sort}`,
    ),
  ),
).slice(0, ROTATING_LISTS);

/**
 * CPU µs a request: the servers' (every instance together), PostgreSQL's
 * for the measured database (0 on SQLite), and the proxy's (0 without one).
 */
type Measured = WrkResult & {
  cpuUsPerRequest: number;
  postgresCpuUsPerRequest: number;
  proxyCpuUsPerRequest: number;
};

/** A fresh copy of a mode's data: the servers' environment, a count of its properties, its removal. */
interface Prepared {
  env: Record<string, string>;
  /** Properties in the database, read from it rather than through a server. */
  countProperties(): Promise<number>;
  cleanup(): Promise<void>;
}

/** A mode the bench runs: how many servers, whether behind the proxy, and its data. */
interface Mode {
  name: string;
  instances: number;
  proxied: boolean;
  prepare(round: number): Promise<Prepared>;
}

const databaseUrlNamed = (name: string) => {
  const url = new URL(templateUrl);
  url.pathname = `/${name}`;
  return url.toString();
};

async function adminRun(statement: string) {
  const admin = new URL(templateUrl);
  admin.pathname = '/postgres';
  const client = new SQL(admin.toString(), { max: 1 });
  try {
    await client.unsafe(statement);
  } finally {
    await client.close();
  }
}

const templateName = decodeURIComponent(new URL(templateUrl).pathname.slice(1));

const sqliteMode: Mode = {
  name: 'SQLite',
  instances: 1,
  proxied: false,
  async prepare(round) {
    const path = join(workDir, `sqlite-${round}.db`);
    copyFileSync(seededPath, path);
    return {
      env: { DATABASE_PATH: path },
      async countProperties() {
        const db = new Database(path, { readonly: true });
        try {
          return db.query<{ n: number }, []>('SELECT count(*) AS n FROM properties').get()!.n;
        } finally {
          db.close();
        }
      },
      async cleanup() {
        for (const suffix of ['', '-wal', '-shm']) rmSync(`${path}${suffix}`, { force: true });
      },
    };
  },
};

const postgresMode = (
  poolSize: number,
  { instances, proxied }: { instances: number; proxied: boolean },
): Mode => ({
  name: [
    'PostgreSQL',
    instances > 1 ? `×${instances}` : '',
    proxied ? 'via proxy' : '',
    poolSizes.length > 1 ? `pool ${poolSize}` : '',
  ]
    .filter(Boolean)
    .join(' '),
  instances,
  proxied,
  async prepare(round) {
    const name = `${templateName}_r${round}_p${poolSize}_i${instances}${proxied ? 'x' : ''}`;
    await adminRun(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    await adminRun(`CREATE DATABASE ${name} TEMPLATE ${templateName}`);
    const url = databaseUrlNamed(name);
    return {
      env: {
        DATABASE_URL: url,
        POSTGRES_POOL_SIZE: String(poolSize),
        // The scaled-out mode: instances share limits, job leases and guessing counts in Redis.
        ...(scaledOut
          ? { REDIS_URL: values['redis-url']!, REDIS_PREFIX: `bench-pg-${Date.now()}-${name}:` }
          : {}),
      },
      async countProperties() {
        const client = new SQL(url, { max: 1 });
        try {
          const [row] = await client.unsafe('SELECT count(*)::int AS n FROM properties');
          return row.n as number;
        } finally {
          await client.close();
        }
      },
      cleanup: () => adminRun(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`),
    };
  },
});

/** A mode's running processes: its instances and, in front of them, the proxy wrk is pointed at. */
interface Serving {
  instances: Started[];
  proxy?: Started;
  /** Where wrk sends its requests: the proxy, or the one instance. */
  target: Started;
}

async function serve(mode: Mode, env: Record<string, string>): Promise<Serving> {
  const instances: Started[] = [];
  const stopAll = async () => {
    for (const started of instances) started.process.kill('SIGTERM');
    await Promise.all(instances.map((started) => started.process.exited));
  };
  try {
    // One after another: the first applies any pending migration before the next starts.
    for (let n = 0; n < mode.instances; n++) {
      instances.push(
        await startServer({
          name: mode.instances > 1 ? `${mode.name} #${n + 1}` : mode.name,
          command: SERVICE_COMMAND,
          cpu: SERVER_CPU,
          env,
          ready: '/health',
        }),
      );
    }
    if (!mode.proxied) return { instances, target: instances[0]! };
    const proxy = await startServer({
      name: mode.name,
      command: [
        process.execPath,
        'bench/proxy.ts',
        ...instances.flatMap((started) => ['--upstream', started.base]),
      ],
      cpu: SERVER_CPU,
      env: {},
      ready: '/health',
    });
    instances.push(proxy);
    return { instances: instances.slice(0, -1), proxy, target: proxy };
  } catch (error) {
    await stopAll();
    throw error;
  }
}

async function stopServing(serving: Serving) {
  const all = [...serving.instances, ...(serving.proxy ? [serving.proxy] : [])];
  for (const started of all) started.process.kill('SIGTERM');
  await Promise.all(all.map((started) => started.process.exited));
}

async function measure(
  mode: Mode,
  serving: Serving,
  m: Measurement,
  token: string,
  databaseUrl: string | undefined,
): Promise<Measured> {
  const drive = wrkDriver(serving.target, m, token, {
    connections,
    cpu: LOAD_CPU,
    scriptDir: workDir,
  });
  if (warmupSeconds > 0) await drive(warmupSeconds);
  if (databaseUrl && values['postgres-cpu'] !== undefined) {
    pinDatabaseBackends(databaseUrl, Number(values['postgres-cpu']));
  }
  const postgresCpu = () => (databaseUrl ? postgresCpuSeconds(databaseUrl, CLOCK_TICKS) : 0);
  const serversCpu = () => serving.instances.reduce((sum, s) => sum + cpuSeconds(s.pid), 0);
  const proxyCpu = () => (serving.proxy ? cpuSeconds(serving.proxy.pid) : 0);
  const cpuBefore = serversCpu();
  const postgresBefore = postgresCpu();
  const proxyBefore = proxyCpu();
  const result = await drive(seconds);
  const perRequest = (cpu: number) => (cpu * 1e6) / Math.max(1, result.requests);
  const cpuUsPerRequest = perRequest(serversCpu() - cpuBefore);
  const postgresCpuUsPerRequest = perRequest(postgresCpu() - postgresBefore);
  const proxyCpuUsPerRequest = perRequest(proxyCpu() - proxyBefore);
  console.log(
    `  ${mode.name} ${m.name}: ${result.requestsPerSecond.toFixed(0)} req/s, p99 ${result.p99Ms.toFixed(2)} ms, CPU ${cpuUsPerRequest.toFixed(1)} µs/req${databaseUrl ? ` + PostgreSQL ${postgresCpuUsPerRequest.toFixed(1)}` : ''}${serving.proxy ? ` + proxy ${proxyCpuUsPerRequest.toFixed(1)}` : ''}, errors ${result.errors}`,
  );
  return { ...result, cpuUsPerRequest, postgresCpuUsPerRequest, proxyCpuUsPerRequest };
}

/** Each instance's `total` of the unfiltered property list, asked of it directly (not through the proxy). */
async function listTotals(serving: Serving, token: string): Promise<number[]> {
  const totals: number[] = [];
  for (const instance of serving.instances) {
    const response = await fetch(`${instance.base}/listings/properties`, {
      headers: { authorization: `Bearer ${token}`, accept: 'application/json' },
    });
    if (!response.ok) throw new Error(`bench: ${instance.name} answered ${response.status}`);
    totals.push(((await response.json()) as { total: number }).total);
  }
  return totals;
}

/** The database's count once creates still in flight when wrk stopped have committed. */
async function settledCount(prepared: Prepared): Promise<number> {
  let last = await prepared.countProperties();
  for (let attempt = 0; attempt < 50; attempt++) {
    await Bun.sleep(100);
    const now = await prepared.countProperties();
    if (now === last) return now;
    last = now;
  }
  return last;
}

/** What the creates' check saw: what the database gained, and each instance's list total after. */
interface CountCheck {
  gained: number;
  totals: number[];
}

/**
 * Runs the creates measurement between two readings of every instance's
 * list total (each read twice before, so the read cache holds it) and of
 * the database's count: every instance's total must move by exactly what
 * the database gained, whichever instance wrote the rows.
 */
async function measureCreatesChecked(
  run: () => Promise<Measured>,
  serving: Serving,
  prepared: Prepared,
  token: string,
): Promise<{ measured: Measured; check: CountCheck }> {
  await listTotals(serving, token);
  const before = await listTotals(serving, token);
  const countBefore = await prepared.countProperties();
  const measured = await run();
  const gained = (await settledCount(prepared)) - countBefore;
  const totals = await listTotals(serving, token);
  const moved = totals.map((total, n) => total - before[n]!);
  if (moved.some((by) => by !== gained)) {
    throw new Error(
      `bench: the database gained ${gained} properties, but the instances' list totals moved by ${moved.join(', ')}`,
    );
  }
  console.log(
    `  creates: the database gained ${gained}; the list total of ${serving.instances.length === 1 ? 'the instance' : `each of the ${serving.instances.length} instances`} moved by as many (${totals.join(', ')})`,
  );
  return { measured, check: { gained, totals } };
}

function prepareData() {
  seedUnlessPresent(seededPath, {
    properties: values.properties!,
    unitsPerProperty: values['units-per-property']!,
  });
}

async function copyToPostgres() {
  const started = performance.now();
  await recreateDatabase(templateUrl);
  const copy = Bun.spawnSync(
    [process.execPath, 'scripts/migrate-to-postgres.ts', '--from', seededPath, '--to', templateUrl],
    { cwd: root, stdio: ['ignore', 'ignore', 'inherit'] },
  );
  if (copy.exitCode !== 0) throw new Error(`migrate-to-postgres exited ${copy.exitCode}`);
  console.log(`copied to PostgreSQL in ${((performance.now() - started) / 1000).toFixed(1)} s`);
}

/** The modes of this run: SQLite first (the base of every ratio). */
function modesOfRun(): Mode[] {
  const direct = poolSizes.map((size) => postgresMode(size, { instances: 1, proxied: false }));
  if (!scaledOut) return [sqliteMode, ...direct];
  return [
    sqliteMode,
    ...direct,
    postgresMode(poolSizes[0]!, { instances: 1, proxied: true }),
    postgresMode(poolSizes[0]!, { instances: instanceCount, proxied: true }),
  ];
}

/** The req/s ratios the report shows: each mode against SQLite, and with the proxy what it and a second instance change. */
function comparisonsOf(modes: Mode[]): { label: string; over: Mode; under: Mode }[] {
  const [sqlite, ...others] = modes;
  const against = others.map((mode) => ({
    label: `${mode.name}/SQLite`,
    over: mode,
    under: sqlite!,
  }));
  if (!scaledOut) return against;
  const direct = others[0]!;
  const [oneProxied, manyProxied] = others.slice(-2);
  return [
    ...against,
    { label: 'via proxy/direct (1 instance)', over: oneProxied!, under: direct },
    { label: `×${instanceCount}/×1 (both via proxy)`, over: manyProxied!, under: oneProxied! },
  ];
}

/**
 * The creates' bodies: 1 to 30 units in turn, over as many owners as the
 * seed spread `properties` over (`ownersFor`), each with its own address and
 * city, as users send them; `--owners 1`: every create for one owner.
 */
function createBodies(properties: number): string[] {
  const owners = Number(values.owners ?? ownersFor(properties));
  if (!Number.isInteger(owners) || owners < 1) throw new Error('--owners: a whole number from 1');
  const prefixes = bodyPrefixes(properties, BODIES, owners);
  return prefixes.map((prefix, n) => {
    const units = (n % 30) + 1;
    return `${prefix}"totalUnits":${units},"rentableUnits":${Math.ceil(units / 2)}}`;
  });
}

async function main() {
  requireLoadTools();
  prepareData();
  await copyToPostgres();
  const token = await new TokenService(BENCH_SECRET).issue('bench-employee', 'employee', 6 * 3600);
  const idFile = join(workDir, 'property-ids.txt');
  const listFile = join(workDir, 'lists.txt');
  await Bun.write(listFile, `${rotatingPaths.join('\n')}\n`);
  const ids = writePropertyIds(seededPath, idFile);
  console.log(
    `bench: ${ids.count.toLocaleString('en')} properties, ${seconds} s a measurement, ${connections} connections, server${scaledOut ? `s and proxy` : ''} on CPU ${SERVER_CPU}, wrk on CPU ${LOAD_CPU}, PostgreSQL ${values['postgres-cpu'] === undefined ? 'unpinned' : `backends on CPU ${values['postgres-cpu']}`}${scaledOut ? ', Redis unpinned' : ''}`,
  );
  const allMeasurements: Measurement[] = [
    {
      name: 'GET /listings/properties/{id}, uniform',
      path: `/listings/properties/${ids.first}`,
      lines: { file: idFile, prefix: '/listings/properties/' },
    },
    { name: 'GET fixed list', path: FIXED_LIST },
    {
      name: `GET ${rotatingPaths.length} rotating lists`,
      path: rotatingPaths[0]!,
      lines: { file: listFile, prefix: '' },
    },
    { name: 'GET fixed list, keyset first page', path: FIXED_WALK },
    {
      name: 'POST /listings/properties, 1-30 units',
      path: '/listings/properties',
      method: 'POST',
      bodies: createBodies(ids.count),
    },
  ];
  const measurements = allMeasurements.filter((m) => m.name.includes(values.only ?? ''));
  const modes = modesOfRun();
  const figures = new Map<string, Measured[][]>(modes.map((mode) => [mode.name, []]));
  const checks = new Map<string, CountCheck[]>(modes.map((mode) => [mode.name, []]));
  const env = {
    JWT_SECRET: BENCH_SECRET,
    WORKERS: 'off',
    LOG_LEVEL: 'info',
    READ_CACHE: 'on',
    RATE_LIMIT_EMPLOYEE_PER_MINUTE: '1000000',
    RATE_LIMIT_EMPLOYEE_WRITES_PER_MINUTE: '100000000',
  };
  try {
    for (let round = 0; round < rounds; round++) {
      const order = round % 2 === 0 ? modes : [...modes].reverse();
      for (const mode of order) {
        const prepared = await mode.prepare(round);
        try {
          const serving = await serve(mode, { ...env, ...prepared.env });
          try {
            const measured: Measured[] = [];
            for (const m of measurements) {
              const run = () => measure(mode, serving, m, token, prepared.env.DATABASE_URL);
              if (m.method !== 'POST') {
                measured.push(await run());
                continue;
              }
              const checked = await measureCreatesChecked(run, serving, prepared, token);
              measured.push(checked.measured);
              checks.get(mode.name)!.push(checked.check);
            }
            figures.get(mode.name)!.push(measured);
          } finally {
            await stopServing(serving);
          }
        } finally {
          await prepared.cleanup();
        }
      }
    }
    await report(measurements, modes, figures, checks);
  } finally {
    rmSync(workDir, { recursive: true, force: true });
  }
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

function printTable(header: string[], rows: string[][]) {
  console.log(`| ${header.join(' | ')} |`);
  console.log(`|${header.map((_, i) => (i === 0 ? '---' : '---:')).join('|')}|`);
  for (const cells of rows) console.log(`| ${cells.join(' | ')} |`);
}

async function report(
  measurements: Measurement[],
  modes: Mode[],
  figures: Map<string, Measured[][]>,
  checks: Map<string, CountCheck[]>,
) {
  const of = (mode: Mode, n: number) => figures.get(mode.name)!.map((round) => round[n]!);
  const cpuOf = (mode: Mode, runs: Measured[]) => {
    const parts = [median(runs.map((r) => r.cpuUsPerRequest))];
    if (mode !== modes[0]) parts.push(median(runs.map((r) => r.postgresCpuUsPerRequest)));
    if (mode.proxied) parts.push(median(runs.map((r) => r.proxyCpuUsPerRequest)));
    return parts.map((us) => us.toFixed(0)).join(' + ');
  };
  console.log(
    `\n${rounds} rounds, order alternated; medians of the rounds. CPU µs/req: the server${scaledOut ? 's' : ''} + PostgreSQL${scaledOut ? ' + the proxy' : ''}\n`,
  );
  printTable(
    ['measurement', ...modes.flatMap((mode) => [`${mode.name} req/s`, 'p99 ms', 'CPU µs/req'])],
    measurements.map((m, n) => [
      m.name,
      ...modes.flatMap((mode) => {
        const runs = of(mode, n);
        return [
          median(runs.map((r) => r.requestsPerSecond)).toFixed(0),
          median(runs.map((r) => r.p99Ms)).toFixed(1),
          cpuOf(mode, runs),
        ];
      }),
    ]),
  );
  const comparisons = comparisonsOf(modes);
  console.log('\nreq/s ratios: the median round, every round in brackets\n');
  printTable(
    ['measurement', ...comparisons.map((c) => c.label)],
    measurements.map((m, n) => [
      m.name,
      ...comparisons.map(({ over, under }) => {
        const base = of(under, n);
        const ratios = of(over, n).map(
          (r, round) => r.requestsPerSecond / base[round]!.requestsPerSecond,
        );
        return `${median(ratios).toFixed(2)} (${ratios.map((x) => x.toFixed(2)).join(', ')})`;
      }),
    ]),
  );
  await Bun.write(
    values.results ?? join(root, 'bench', 'results', 'postgres-mode-latest.json'),
    JSON.stringify(
      {
        at: new Date().toISOString(),
        seconds,
        rounds,
        connections,
        instances: instanceCount,
        rows: measurements.map((m, n) => ({
          name: m.name,
          ...Object.fromEntries(modes.map((mode) => [mode.name, of(mode, n)])),
        })),
        creates: Object.fromEntries(checks),
      },
      null,
      2,
    ),
  );
}

await main();
