/**
 * `bun run bench:read-breakdown`: where a cached point read's CPU time goes
 * in the service's own code, step by step, in-process over a seeded file
 * (20,000 properties, 1 to 30 units each, by default). Each step is the
 * production function called `--calls` times on a request a server would
 * get (an employee's bearer token, a property the cache holds): the URL and
 * path, the token's check (cut-offs included), the cache lookup with the
 * change feed's look, the answer and its headers, the `Response`, the
 * request id, the log line and the metrics; then the whole fast lane
 * (`service.fetch`) and, for scale, what a bare `Bun.serve` answering a
 * fixed body does in JavaScript (one `new Response`). The steps take turns
 * for `--rounds` rounds; the median ns a call is printed with each step's
 * share of the whole.
 *
 * Then, over HTTP (`--http-rounds`, 3 by default; 0 skips it), the same
 * reads (ids uniform over the table, 32 connections, a bearer token) against
 * the service and against a bare `Bun.serve` answering a fixed body of the
 * same size (bench/ceiling.ts), each pinned to CPU 0 with wrk on CPU 1,
 * taking turns, `--warmup` then `--seconds` measured: requests a second
 * and the server's CPU time a request, each as a ratio to the bare
 * server's. What the service spends beyond the bare server and beyond its
 * own steps above is the runtime's: the collector, the log's writes, more
 * headers and a larger body to send. `--compare DIR` adds a second service
 * run from another checkout (e.g. the build before, `git archive` of it
 * with `node_modules` linked in), measured in the same turns.
 *
 *   bun run bench:read-breakdown [-- --database FILE --calls 200000 --rounds 7
 *                                    --http-rounds 3 --seconds 5 --warmup 5 --compare DIR]
 */
import { copyFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { responseOf } from '@/api/answer';
import { propertyReadAnswer } from '@/api/listings/properties/read';
import { knownCaller } from '@/api/plugins/auth';
import { logFastRequest } from '@/api/request/log';
import { requestIdFor } from '@/api/request/meta';
import { pathOf, routesAsWritten, searchOf } from '@/api/request/url';
import { TokenService } from '@/auth/tokens';
import { readProperty } from '@/listings/properties/read-cache';
import { createLogger } from '@/logger';
import { writePropertyIds } from './fixtures';
import { inProcessService, propertyIdsOf } from './in-process';
import { cpuSeconds, requireLoadTools, type Started, startServer } from './reference-harness';
import { BENCH_SECRET, seedUnlessPresent } from './seeded-file';
import { SERVICE_COMMAND } from './service-command';
import { runWrk } from './wrk';

const { values } = parseArgs({
  args: Bun.argv.slice(2).filter((arg) => arg !== '--'),
  options: {
    database: { type: 'string' },
    properties: { type: 'string', default: '20000' },
    calls: { type: 'string', default: '200000' },
    rounds: { type: 'string', default: '7' },
    'http-rounds': { type: 'string', default: '3' },
    seconds: { type: 'string', default: '5' },
    warmup: { type: 'string', default: '5' },
    compare: { type: 'string' },
  },
});
const CALLS = Number(values.calls);
const ROUNDS = Number(values.rounds);
const path =
  values.database ?? join(import.meta.dir, 'results', `breakdown-${values.properties}.db`);
seedUnlessPresent(path, { properties: values.properties!, unitsPerProperty: '1-30' });

const service = inProcessService(path, { readCache: 'on', memoryBudget: '80' });
const { deps } = service;
const token = await new TokenService(BENCH_SECRET).issue('bench-employee', 'employee', 3600);
const id = propertyIdsOf(path)[0]!;
const url = `http://127.0.0.1:3000/listings/properties/${id}`;
const request = new Request(url, {
  headers: { authorization: `Bearer ${token}`, accept: 'application/json', host: '127.0.0.1:3000' },
});
// The first request verifies the token and fills the cache; every later one is a hit.
for (let n = 0; n < 3; n++) {
  const first = await service.fetch(request);
  if (first.status !== 200) throw new Error(`GET ${first.status}`);
}
// The log line's work up to the write: the server appends it to a buffer written once a turn.
let logged = 0;
const logger = createLogger('info', (line) => {
  logged += line.length;
});
const caller = knownCaller(request, deps.tokens);
if (typeof caller !== 'object') throw new Error('the token is not cached');
const found = propertyReadAnswer(deps, caller, id, null);
if (found instanceof Promise) throw new Error('a SQLite read answers at once');
const FIXED = '{"ok":true}';

/** Each step as the fast lane runs it, returning something so nothing is optimised away. */
const steps: [string, () => unknown][] = [
  [
    'request.url, routesAsWritten, pathOf, searchOf',
    () => {
      const u = request.url;
      return routesAsWritten(u) && pathOf(u).length + searchOf(u).length;
    },
  ],
  [
    'headers: if-none-match, origin',
    () => request.headers.get('if-none-match') ?? request.headers.has('origin'),
  ],
  ['token: knownCaller (cached check, cut-offs)', () => knownCaller(request, deps.tokens)],
  [
    'cache: readProperty (feed look, lookup, hit)',
    () => readProperty(deps.stores.listings, deps.readCache, id),
  ],
  [
    'answer: propertyReadAnswer (the above, canSee, ETag)',
    () => propertyReadAnswer(deps, caller, id, null),
  ],
  ['Response: responseOf (headers copied, ETag set)', () => responseOf(found)],
  [
    'request id: requestIdFor + headers.set',
    () => responseOf(found).headers.set('x-request-id', requestIdFor(request)),
  ],
  ['request id alone: requestIdFor', () => requestIdFor(request)],
  [
    'log line + metrics: logFastRequest',
    () =>
      logFastRequest(
        logger,
        'id',
        '/listings/properties/x',
        '/listings/properties/:id',
        200,
        performance.now(),
        deps.requests,
      ),
  ],
  ['whole fast lane: service.fetch', () => service.fetch(request)],
  [
    'bare Bun.serve body: new Response(fixed)',
    () => new Response(FIXED, { headers: { 'content-type': 'application/json' } }),
  ],
];

function time(step: () => unknown): number {
  const started = Bun.nanoseconds();
  for (let n = 0; n < CALLS; n++) step();
  return (Bun.nanoseconds() - started) / CALLS;
}

const figures = steps.map(() => [] as number[]);
for (const [, step] of steps) time(step); // warm-up: JIT
for (let round = 0; round < ROUNDS; round++) {
  for (const [n, [, step]] of steps.entries()) figures[n]!.push(time(step));
}
const median = (all: number[]) => [...all].sort((a, b) => a - b)[Math.floor(all.length / 2)]!;
const whole = median(figures[steps.length - 2]!);
console.log(
  `cached point read, ${CALLS.toLocaleString('en')} calls a step, median of ${ROUNDS} rounds (ns a call, share of the whole fast lane):`,
);
for (const [n, [name]] of steps.entries()) {
  const ns = median(figures[n]!);
  console.log(
    `| ${name} | ${ns.toFixed(0)} (${Math.min(...figures[n]!).toFixed(0)}–${Math.max(...figures[n]!).toFixed(0)}) | ${(ns / whole).toFixed(2)} |`,
  );
}
console.log(
  `(${logged > 0 ? 'log lines written' : 'no log line'}; cache hits ${deps.readCache.hits})`,
);

const httpRounds = Number(values['http-rounds']);
if (httpRounds > 0) await overHttp(httpRounds);

/** The reads over HTTP against the bare server and the service(s), taking turns. */
async function overHttp(rounds: number) {
  requireLoadTools();
  const workDir = mkdtempSync(join(tmpdir(), 'read-breakdown-'));
  const idFile = join(workDir, 'ids.txt');
  writePropertyIds(path, idFile);
  const env = {
    JWT_SECRET: BENCH_SECRET,
    LOG_LEVEL: 'info',
    WORKERS: 'off',
    READ_CACHE: 'on',
    RATE_LIMIT_EMPLOYEE_PER_MINUTE: '1000000',
  };
  const serviceOf = async (name: string, dir: string | undefined): Promise<Started> => {
    // Each service on its own copy: neither sees the other's writes (the limiter's, the jobs').
    const file = join(workDir, `${name}.db`);
    copyFileSync(path, file);
    const command = dir
      ? SERVICE_COMMAND.map((part) => (part === 'src/index.ts' ? join(dir, 'src/index.ts') : part))
      : SERVICE_COMMAND;
    return startServer({
      name,
      command,
      cpu: 0,
      env: { ...env, DATABASE_PATH: file },
      ready: '/health',
    });
  };
  const servers = [
    await startServer({
      name: 'bare Bun.serve',
      command: [process.execPath, 'bench/ceiling.ts'],
      cpu: 0,
      env: {},
      ready: '/',
    }),
    await serviceOf('service', undefined),
    ...(values.compare ? [await serviceOf('compared', values.compare)] : []),
  ];
  const figures = new Map(
    servers.map((server) => [server, [] as { rps: number; cpuUs: number; p99: number }[]]),
  );
  try {
    for (let round = 0; round < rounds; round++) {
      const order = servers.map((_, n) => servers[(n + round) % servers.length]!);
      for (const server of order) {
        const drive = (seconds: number) =>
          runWrk({
            url: `${server.base}/listings/properties/x`,
            seconds,
            connections: 32,
            headers: { authorization: `Bearer ${token}`, accept: 'application/json' },
            lines: { file: idFile, prefix: '/listings/properties/' },
            cpu: 1,
            scriptDir: workDir,
          });
        await drive(Number(values.warmup));
        const before = cpuSeconds(server.pid);
        const result = await drive(Number(values.seconds));
        const cpuUs = ((cpuSeconds(server.pid) - before) * 1e6) / Math.max(1, result.requests);
        if (result.errors > 0) throw new Error(`${server.name}: ${result.errors} errors`);
        figures.get(server)!.push({ rps: result.requestsPerSecond, cpuUs, p99: result.p99Ms });
        console.log(
          `  round ${round + 1} ${server.name}: ${result.requestsPerSecond.toFixed(0)} req/s, CPU ${cpuUs.toFixed(1)} µs/req, p99 ${result.p99Ms.toFixed(2)} ms`,
        );
      }
    }
    const bare = figures.get(servers[0]!)!;
    console.log(
      `\nover HTTP, ${rounds} rounds (each round's ratio to the bare server's, the median first):`,
    );
    for (const server of servers) {
      const runs = figures.get(server)!;
      const rps = runs.map((run, n) => run.rps / bare[n]!.rps);
      const cpu = runs.map((run, n) => bare[n]!.cpuUs / run.cpuUs);
      const each = (all: number[]) =>
        `${median(all).toFixed(2)} (${all.map((v) => v.toFixed(2)).join(', ')})`;
      console.log(
        `| ${server.name} | ${median(runs.map((run) => run.cpuUs)).toFixed(1)} µs | req/s ${each(rps)} | CPU ${each(cpu)} |`,
      );
    }
  } finally {
    for (const server of servers) server.process.kill('SIGTERM');
    await Promise.all(servers.map((server) => server.process.exited));
    rmSync(workDir, { recursive: true, force: true });
  }
}
