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
 * share of the whole. What the socket costs (parsing the request, writing
 * the answer) is the same for the read and the bare server and is not
 * here: `npm run bench -- --only uniform` gives both over HTTP.
 *
 *   bun run bench:read-breakdown [-- --database FILE --calls 200000 --rounds 7]
 */
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { responseOf } from '@/api/answer';
import { propertyReadAnswer } from '@/api/listings/properties/read';
import { knownCaller } from '@/api/plugins/auth';
import { logFastRequest } from '@/api/request/log';
import { requestIdFor } from '@/api/request/meta';
import { pathOf, routesAsWritten, searchOf } from '@/api/request/url';
import { TokenService } from '@/auth/tokens';
import { createLogger } from '@/logger';
import { readProperty } from '@/listings/properties/read-cache';
import { inProcessService, propertyIdsOf } from './in-process';
import { BENCH_SECRET, seedUnlessPresent } from './seeded-file';

const { values } = parseArgs({
  args: Bun.argv.slice(2).filter((arg) => arg !== '--'),
  options: {
    database: { type: 'string' },
    properties: { type: 'string', default: '20000' },
    calls: { type: 'string', default: '200000' },
    rounds: { type: 'string', default: '7' },
  },
});
const CALLS = Number(values.calls);
const ROUNDS = Number(values.rounds);
const path = values.database ?? join(import.meta.dir, 'results', `breakdown-${values.properties}.db`);
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
  ['request.url, routesAsWritten, pathOf, searchOf', () => {
    const u = request.url;
    return routesAsWritten(u) && pathOf(u).length + searchOf(u).length;
  }],
  ['headers: if-none-match, origin', () => request.headers.get('if-none-match') ?? request.headers.has('origin')],
  ['token: knownCaller (cached check, cut-offs)', () => knownCaller(request, deps.tokens)],
  ['cache: readProperty (feed look, lookup, hit)', () => readProperty(deps.stores.listings, deps.readCache, id)],
  ['answer: propertyReadAnswer (the above, canSee, ETag)', () => propertyReadAnswer(deps, caller, id, null)],
  ['Response: responseOf (headers copied, ETag set)', () => responseOf(found)],
  ['request id: requestIdFor + headers.set', () => responseOf(found).headers.set('x-request-id', requestIdFor(request))],
  ['request id alone: requestIdFor', () => requestIdFor(request)],
  ['log line + metrics: logFastRequest', () => logFastRequest(logger, 'id', '/listings/properties/x', '/listings/properties/:id', 200, performance.now(), deps.requests)],
  ['whole fast lane: service.fetch', () => service.fetch(request)],
  ['bare Bun.serve body: new Response(fixed)', () => new Response(FIXED, { headers: { 'content-type': 'application/json' } })],
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
  console.log(`| ${name} | ${ns.toFixed(0)} (${Math.min(...figures[n]!).toFixed(0)}–${Math.max(...figures[n]!).toFixed(0)}) | ${(ns / whole).toFixed(2)} |`);
}
console.log(`(${logged > 0 ? 'log lines written' : 'no log line'}; cache hits ${deps.readCache.hits})`);

