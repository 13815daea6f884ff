/**
 * `bun run bench:reference -- --creates`: creates the way users' traffic
 * brings them. Each server starts on an empty database (the service's file
 * migrated by the server itself, the reference's with its tables and
 * cities), pinned to CPU 0; wrk on CPU 1 keeps 32 keep-alive connections
 * POSTing /listings/properties, each body with 1 to 30 units (uniform, a
 * fresh draw per request) and one of 1,000 addresses, owners and cities,
 * until `--until` properties exist (20,000 by default; 200,000 for the
 * large figure). Throughput is the responses over the time to the last one,
 * p99 the latency of all of them, CPU the server's time per create.
 *
 * `--rounds` rounds (2 by default), the service first in odd rounds and the
 * reference first in even ones, each run on fresh files. Prints each run,
 * then the round with the median ratio and every round's ratio; a copy goes
 * to bench/results/reference-creates-latest.json (or `--results FILE`).
 */
import { Database } from 'bun:sqlite';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { CITY_IDS } from '@/listings/cities';
import { CITIES, ownerIdOf, ownersFor, random, STREETS } from '../scripts/seed';
import { emptyReference, REFERENCE_DIR } from './reference-data';
import { cpuSeconds, residentMb, type Started, startServer } from './reference-harness';
import { SERVICE_COMMAND } from './service-command';
import { runWrk, type WrkResult } from './wrk';

export interface CreatesOptions {
  /** Properties each run creates (the run stops at the response that reaches it). */
  until: number;
  rounds: number;
  connections: number;
  token: string;
  /** Environment both servers get (JWT secret, limits out of reach, log level). */
  env: Record<string, string>;
  workDir: string;
  serverCpu: number;
  loadCpu: number;
  results: string;
}

/** Units a create carries: 1 to this many, uniformly. */
const MAX_UNITS = 30;
/** Distinct addresses (owner, city, street) the bodies take. */
const ADDRESSES = 1000;
/** The longest a run may take (wrk's `-d`): far above 200,000 creates at the slowest rate seen. */
const RUN_BOUND_SECONDS = 1800;

/**
 * Every body up to its unit counts, with a trailing comma: the Lua request
 * adds `"totalUnits":u,"rentableUnits":r}` with u uniform in 1..30 and r in 1..u.
 * The owners go round `owners` of them (by default as many as the seed spreads `until` over).
 */
export function bodyPrefixes(
  until: number,
  count = ADDRESSES,
  owners = ownersFor(until),
): string[] {
  const next = random(50);
  return Array.from({ length: count }, (_, n) => {
    const cityId = CITY_IDS[Math.floor(next() * CITY_IDS.length)]!;
    const city = CITIES.get(cityId)!;
    const body = {
      type: 'apartment',
      ownerId: ownerIdOf(n % owners),
      location: {
        addressLine1: `${STREETS[Math.floor(next() * STREETS.length)]} ${1 + Math.floor(next() * 250)}`,
        city: city.name,
        cityId,
        postalCode: String(10000 + Math.floor(next() * 89999)),
        latitude: Math.round(city.latitude * 1e6) / 1e6,
        longitude: Math.round(city.longitude * 1e6) / 1e6,
      },
      yearOfConstruction: 1900 + Math.floor(next() * 125),
      isVisitable: next() < 0.5,
    };
    return `${JSON.stringify(body).slice(0, -1)},`;
  });
}

/** The Lua `request()` wrk sends the creates with. */
export function createRequestScript(prefixes: readonly string[]): string[] {
  return [
    `local prefixes = { ${prefixes.map((prefix) => JSON.stringify(prefix)).join(', ')} }`,
    'math.randomseed(os.time())',
    'request = function()',
    `  local units = math.random(${MAX_UNITS})`,
    '  local body = prefixes[math.random(#prefixes)] .. \'"totalUnits":\' .. units .. \',"rentableUnits":\' .. math.random(units) .. "}"',
    '  return wrk.format(nil, nil, nil, body)',
    'end',
  ];
}

interface CreatesRun extends WrkResult {
  seconds: number;
  properties: number;
  units: number;
  cpuUsPerCreate: number;
  peakRssMb: number;
}

type Side = 'service' | 'reference';

/** Rows in the run's file once its server has stopped (creates still in flight then committed or not). */
function countRows(path: string, side: Side) {
  const db = new Database(path, { readonly: true });
  try {
    const count = (sql: string) => db.query<{ n: number }, []>(sql).get()!.n;
    const properties = count('SELECT count(*) AS n FROM properties');
    const units = count('SELECT count(*) AS n FROM units');
    if (side === 'service') {
      const events = count("SELECT count(*) AS n FROM events WHERE type = 'property.created'");
      if (events !== properties) {
        throw new Error(`service: ${properties} properties but ${events} property.created events`);
      }
    }
    return { properties, units };
  } finally {
    db.close();
  }
}

async function runOnce(side: Side, round: number, options: CreatesOptions): Promise<CreatesRun> {
  const dir = join(options.workDir, `creates-${round}-${side}`);
  mkdirSync(dir, { recursive: true });
  const path = join(dir, `${side}.db`);
  if (side === 'reference') emptyReference(path);
  const server: Started = await startServer(
    side === 'service'
      ? {
          name: 'service',
          command: SERVICE_COMMAND,
          cpu: options.serverCpu,
          env: { ...options.env, DATABASE_PATH: path, WORKERS: 'off', READ_CACHE: 'on' },
          ready: '/health',
        }
      : {
          name: 'reference',
          command: ['node', join(REFERENCE_DIR, 'server.mjs')],
          cpu: options.serverCpu,
          env: { ...options.env, DATABASE_PATH: path },
          ready: '/api/v1/tokens/limits',
          token: options.token,
        },
  );
  let measured: Omit<CreatesRun, 'properties' | 'units'>;
  try {
    const cpuBefore = cpuSeconds(server.pid);
    const started = performance.now();
    const result = await runWrk({
      url: `${server.base}/listings/properties`,
      method: 'POST',
      seconds: RUN_BOUND_SECONDS,
      connections: options.connections,
      headers: { authorization: `Bearer ${options.token}`, accept: 'application/json' },
      request: createRequestScript(bodyPrefixes(options.until)),
      stopAfter: options.until,
      cpu: options.loadCpu,
      scriptDir: options.workDir,
    });
    measured = {
      ...result,
      seconds: (performance.now() - started) / 1000,
      cpuUsPerCreate: ((cpuSeconds(server.pid) - cpuBefore) * 1e6) / Math.max(1, result.requests),
      peakRssMb: residentMb(server.pid, { peak: true }),
    };
  } finally {
    server.process.kill('SIGTERM');
    await server.process.exited;
  }
  const run = { ...measured, ...countRows(path, side) };
  console.log(
    `  round ${round + 1} ${side}: ${run.properties.toLocaleString('en')} properties (${run.units.toLocaleString('en')} units) in ${run.seconds.toFixed(1)} s, ${run.requestsPerSecond.toFixed(0)} creates/s, p50 ${run.p50Ms.toFixed(2)} ms, p99 ${run.p99Ms.toFixed(2)} ms, CPU ${run.cpuUsPerCreate.toFixed(0)} µs/create, peak RSS ${run.peakRssMb.toFixed(0)} MB, errors ${run.errors}`,
  );
  return run;
}

/** Runs the rounds, prints the table and writes the results file; answers the failed requests. */
export async function runCreates(options: CreatesOptions): Promise<number> {
  console.log(
    `bench --creates: until ${options.until.toLocaleString('en')} properties, 1-${MAX_UNITS} units each, ${options.connections} connections, ${options.rounds} rounds, order alternated`,
  );
  const rounds: Record<Side, CreatesRun>[] = [];
  for (let round = 0; round < options.rounds; round++) {
    const order: Side[] = round % 2 === 0 ? ['service', 'reference'] : ['reference', 'service'];
    const runs = {} as Record<Side, CreatesRun>;
    for (const side of order) runs[side] = await runOnce(side, round, options);
    rounds.push(runs);
  }
  const ratioOf = (run: Record<Side, CreatesRun>) =>
    run.service.requestsPerSecond / run.reference.requestsPerSecond;
  const sorted = [...rounds].sort((a, b) => ratioOf(a) - ratioOf(b));
  const median = sorted[Math.floor((sorted.length - 1) / 2)]!;
  const every = rounds.map((run) => ratioOf(run).toFixed(2)).join(', ');
  const cpuRatios = rounds
    .map((run) => (run.reference.cpuUsPerCreate / run.service.cpuUsPerCreate).toFixed(2))
    .join(', ');
  console.log(
    `\n| creates until ${options.until.toLocaleString('en')} | service | reference | ratio |\n|---|---:|---:|---:|`,
  );
  console.log(
    `| creates/s | ${median.service.requestsPerSecond.toFixed(0)} | ${median.reference.requestsPerSecond.toFixed(0)} | ${ratioOf(median).toFixed(2)} (${every}) |`,
  );
  console.log(
    `| p99 ms | ${median.service.p99Ms.toFixed(1)} | ${median.reference.p99Ms.toFixed(1)} | ${rounds.map((run) => `${run.service.p99Ms.toFixed(1)} / ${run.reference.p99Ms.toFixed(1)}`).join(', ')} |`,
  );
  console.log(
    `| CPU µs a create | ${median.service.cpuUsPerCreate.toFixed(0)} | ${median.reference.cpuUsPerCreate.toFixed(0)} | reference ÷ service ${cpuRatios} |`,
  );
  await Bun.write(
    options.results,
    JSON.stringify(
      {
        at: new Date().toISOString(),
        until: options.until,
        connections: options.connections,
        rounds,
      },
      null,
      2,
    ),
  );
  return rounds.reduce((sum, run) => sum + run.service.errors + run.reference.errors, 0);
}
