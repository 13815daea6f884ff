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
 * - POST /listings/properties, the bodies rotating over 1 to 30 units.
 *
 * Prints each measurement's median round for both modes: req/s, p99, the
 * CPU time a request cost (the server's, and PostgreSQL's for the measured
 * database), and the ratio PostgreSQL/SQLite of req/s with every round's
 * beside it. The machine may be shared: compare the ratios and the CPU
 * times, which one sitting keeps comparable (docs/scaling-out.md). The copy
 * PostgreSQL runs start from is the database `--postgres-url` names
 * (`listings_pg_mode` by default), dropped and made again each run.
 *
 *   bun run bench:postgres [-- --properties 20000 --seconds 4 --warmup 2 --rounds 3
 *                              --pool-sizes 10 --database /tmp/pg-mode.db]
 *
 * `--pool-sizes 4,10,20` measures PostgreSQL once per pool size
 * (`POSTGRES_POOL_SIZE`) in every round. `--only POST` keeps the
 * measurements whose name holds that text (here the creates).
 * `--postgres-cpu 1` pins the measured database's backends to that CPU
 * after each warm-up (wrk's CPU on two cores), the server keeping CPU 0.
 */
import { copyFileSync, mkdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { SQL } from 'bun';
import { TokenService } from '@/auth/tokens';
import { CITY_IDS } from '@/listings/cities';
import { PROPERTY_TYPES } from '@/listings/properties/schemas';
import { CREATE_BODY, writePropertyIds } from './fixtures';
import { pinDatabaseBackends, postgresCpuSeconds, recreateDatabase } from './postgres';
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
    'postgres-url': {
      type: 'string',
      default: 'postgres://postgres@127.0.0.1:5432/listings_pg_mode',
    },
    database: { type: 'string' },
    results: { type: 'string' },
    only: { type: 'string' },
    'postgres-cpu': { type: 'string' },
  },
});

const seconds = Number(values.seconds);
const warmupSeconds = Number(values.warmup);
const rounds = Number(values.rounds);
const connections = Number(values.connections);
const poolSizes = values['pool-sizes']!.split(',').map(Number);
const root = join(import.meta.dir, '..');
const workDir = join(tmpdir(), `listings-pg-mode-${Date.now()}`);
mkdirSync(workDir, { recursive: true });
const seededPath = values.database ?? join(workDir, 'seeded.db');
const templateUrl = values['postgres-url']!;
const SERVER_CPU = 0;
const LOAD_CPU = 1;

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

/** CPU µs a request: the server's, and PostgreSQL's for the measured database (0 on SQLite). */
type Measured = WrkResult & { cpuUsPerRequest: number; postgresCpuUsPerRequest: number };

/** A mode the bench runs: how its server starts on a fresh copy of the data, and how that copy goes. */
interface Mode {
  name: string;
  prepare(round: number): Promise<{ env: Record<string, string>; cleanup(): Promise<void> }>;
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
  async prepare(round) {
    const path = join(workDir, `sqlite-${round}.db`);
    copyFileSync(seededPath, path);
    return {
      env: { DATABASE_PATH: path },
      async cleanup() {
        for (const suffix of ['', '-wal', '-shm']) rmSync(`${path}${suffix}`, { force: true });
      },
    };
  },
};

const postgresMode = (poolSize: number): Mode => ({
  name: poolSizes.length > 1 ? `PostgreSQL pool ${poolSize}` : 'PostgreSQL',
  async prepare(round) {
    const name = `${templateName}_r${round}_p${poolSize}`;
    await adminRun(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    await adminRun(`CREATE DATABASE ${name} TEMPLATE ${templateName}`);
    return {
      env: {
        DATABASE_URL: databaseUrlNamed(name),
        POSTGRES_POOL_SIZE: String(poolSize),
      },
      cleanup: () => adminRun(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`),
    };
  },
});

async function measure(
  server: Started,
  m: Measurement,
  token: string,
  databaseUrl: string | undefined,
): Promise<Measured> {
  const drive = wrkDriver(server, m, token, { connections, cpu: LOAD_CPU, scriptDir: workDir });
  if (warmupSeconds > 0) await drive(warmupSeconds);
  if (databaseUrl && values['postgres-cpu'] !== undefined) {
    pinDatabaseBackends(databaseUrl, Number(values['postgres-cpu']));
  }
  const postgresCpu = () => (databaseUrl ? postgresCpuSeconds(databaseUrl, CLOCK_TICKS) : 0);
  const cpuBefore = cpuSeconds(server.pid);
  const postgresBefore = postgresCpu();
  const result = await drive(seconds);
  const perRequest = (cpu: number) => (cpu * 1e6) / Math.max(1, result.requests);
  const cpuUsPerRequest = perRequest(cpuSeconds(server.pid) - cpuBefore);
  const postgresCpuUsPerRequest = perRequest(postgresCpu() - postgresBefore);
  console.log(
    `  ${server.name} ${m.name}: ${result.requestsPerSecond.toFixed(0)} req/s, p99 ${result.p99Ms.toFixed(2)} ms, CPU ${cpuUsPerRequest.toFixed(1)} µs/req${databaseUrl ? ` + PostgreSQL ${postgresCpuUsPerRequest.toFixed(1)}` : ''}, errors ${result.errors}`,
  );
  return { ...result, cpuUsPerRequest, postgresCpuUsPerRequest };
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
    `bench: ${ids.count.toLocaleString('en')} properties, ${seconds} s a measurement, ${connections} connections, server on CPU ${SERVER_CPU}, wrk on CPU ${LOAD_CPU}, PostgreSQL ${values['postgres-cpu'] === undefined ? 'unpinned' : `backends on CPU ${values['postgres-cpu']}`}`,
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
      bodies: Array.from({ length: 30 }, (_, n) =>
        JSON.stringify({
          ...CREATE_BODY,
          totalUnits: n + 1,
          rentableUnits: Math.ceil((n + 1) / 2),
        }),
      ),
    },
  ];
  const measurements = allMeasurements.filter((m) => m.name.includes(values.only ?? ''));
  const modes = [sqliteMode, ...poolSizes.map(postgresMode)];
  const figures = new Map<string, Measured[][]>(modes.map((mode) => [mode.name, []]));
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
        const server = await startServer({
          name: mode.name,
          command: SERVICE_COMMAND,
          cpu: SERVER_CPU,
          env: { ...env, ...prepared.env },
          ready: '/health',
        });
        try {
          const measured: Measured[] = [];
          for (const m of measurements) {
            measured.push(await measure(server, m, token, prepared.env.DATABASE_URL));
          }
          figures.get(mode.name)!.push(measured);
        } finally {
          server.process.kill('SIGTERM');
          await server.process.exited;
          await prepared.cleanup();
        }
      }
    }
    await report(measurements, modes, figures);
  } finally {
    rmSync(workDir, { recursive: true, force: true });
  }
}

async function report(
  measurements: Measurement[],
  modes: Mode[],
  figures: Map<string, Measured[][]>,
) {
  const [sqlite, ...postgres] = modes;
  const base = figures.get(sqlite!.name)!;
  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
  console.log(
    `\n${rounds} rounds, order alternated; medians of the rounds, every round's ratio in brackets\n`,
  );
  const header = ['measurement', 'SQLite req/s', 'p99 ms', 'CPU µs/req'];
  for (const mode of postgres) {
    header.push(
      `${mode.name} req/s`,
      'p99 ms',
      'CPU µs/req (server + PostgreSQL)',
      'req/s PG/SQLite',
    );
  }
  console.log(`| ${header.join(' | ')} |`);
  console.log(`|${header.map((_, i) => (i === 0 ? '---' : '---:')).join('|')}|`);
  const rows = measurements.map((m, n) => {
    const sqliteRps = base.map((round) => round[n]!.requestsPerSecond);
    const cells = [
      m.name,
      median(sqliteRps).toFixed(0),
      median(base.map((round) => round[n]!.p99Ms)).toFixed(1),
      median(base.map((round) => round[n]!.cpuUsPerRequest)).toFixed(0),
    ];
    const row: Record<string, unknown> = { name: m.name, sqlite: base.map((r) => r[n]) };
    for (const mode of postgres) {
      const runs = figures.get(mode.name)!;
      const ratios = runs.map((round, r) => round[n]!.requestsPerSecond / sqliteRps[r]!);
      cells.push(
        median(runs.map((round) => round[n]!.requestsPerSecond)).toFixed(0),
        median(runs.map((round) => round[n]!.p99Ms)).toFixed(1),
        `${median(runs.map((round) => round[n]!.cpuUsPerRequest)).toFixed(0)} + ${median(runs.map((round) => round[n]!.postgresCpuUsPerRequest)).toFixed(0)}`,
        `${median(ratios).toFixed(2)} (${ratios.map((x) => x.toFixed(2)).join(', ')})`,
      );
      row[mode.name] = runs.map((r) => r[n]);
    }
    console.log(`| ${cells.join(' | ')} |`);
    return row;
  });
  await Bun.write(
    values.results ?? join(root, 'bench', 'results', 'postgres-mode-latest.json'),
    JSON.stringify({ at: new Date().toISOString(), seconds, rounds, connections, rows }, null, 2),
  );
}

await main();
