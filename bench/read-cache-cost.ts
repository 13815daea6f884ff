/**
 * What the read cache costs or saves on a point read, measured in-process:
 * GET /listings/properties/{id} through two services over one seeded
 * database, one with READ_CACHE=on and one with READ_CACHE=off, taking
 * turns (the order flips every round), ids uniform over the table or
 * Zipf-distributed (s = 1). Each figure is the median round's CPU time per
 * request through `fetch` (the whole pipeline without the socket).
 *
 *   bun bench/read-cache-cost.ts --database FILE [--requests 20000 --rounds 5 --memory-budget 96]
 */
import { parseArgs } from 'node:util';
import { BASE } from '../test/support/harness';
import { inProcessService, propertyIdsOf } from './in-process';

const { values } = parseArgs({
  args: Bun.argv.slice(2).filter((arg) => arg !== '--'),
  options: {
    database: { type: 'string' },
    requests: { type: 'string', default: '20000' },
    rounds: { type: 'string', default: '5' },
    'memory-budget': { type: 'string', default: '96' },
  },
});
if (!values.database) throw new Error('--database FILE: a seeded database (bun run seed)');
const path = values.database;
const requests = Number(values.requests);
const rounds = Number(values.rounds);

const serviceWith = (readCache: 'on' | 'off') =>
  inProcessService(path, { readCache, memoryBudget: values['memory-budget']! });
const ids = propertyIdsOf(path);
const cumulative = new Float64Array(ids.length);
for (let k = 0, total = 0; k < ids.length; k++) cumulative[k] = total += 1 / (k + 1);
const zipfIndex = () => {
  const u = Math.random() * cumulative[cumulative.length - 1]!;
  let low = 0;
  let high = cumulative.length - 1;
  while (low < high) {
    const middle = (low + high) >> 1;
    if (cumulative[middle]! < u) low = middle + 1;
    else high = middle;
  }
  // Rank k is a fixed id spread over the table, not the k-th oldest.
  return Math.imul(low + 1, 2654435761) >>> 0;
};
const pickers = {
  uniform: () => ids[Math.floor(Math.random() * ids.length)]!,
  zipf: () => ids[zipfIndex() % ids.length]!,
};

const on = serviceWith('on');
const off = serviceWith('off');
const token = await on.deps.tokens.issue('bench-employee', 'employee', 3600);
const headers = { authorization: `Bearer ${token}` };

async function timed(fetch: (r: Request) => Response | Promise<Response>, pick: () => string) {
  const started = process.cpuUsage();
  for (let i = 0; i < requests; i++) {
    const response = await fetch(new Request(`${BASE}/listings/properties/${pick()}`, { headers }));
    if (response.status !== 200) throw new Error(`${response.status}`);
    await response.arrayBuffer();
  }
  const used = process.cpuUsage(started);
  return (used.user + used.system) / requests;
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
console.log(
  `${ids.length.toLocaleString('en')} properties, ${requests} requests × ${rounds} rounds a side\n`,
);
console.log(
  '| keys | µs/request cached | µs/request READ_CACHE=off | cached ÷ off | hits | held |',
);
console.log('|---|---:|---:|---:|---:|---:|');
for (const [name, pick] of Object.entries(pickers)) {
  await timed(on.fetch, pick);
  await timed(off.fetch, pick);
  const cache = on.deps.readCache;
  const before = { hits: cache.hits, misses: cache.misses };
  const cached: number[] = [];
  const uncached: number[] = [];
  for (let round = 0; round < rounds; round++) {
    for (const service of round % 2 === 0 ? [on, off] : [off, on]) {
      (service === on ? cached : uncached).push(await timed(service.fetch, pick));
    }
  }
  const hits = cache.hits - before.hits;
  const share = hits / (hits + cache.misses - before.misses);
  const [a, b] = [median(cached), median(uncached)];
  console.log(
    `| ${name} | ${a.toFixed(1)} | ${b.toFixed(1)} | ${(a / b).toFixed(3)} | ${(share * 100).toFixed(0)} % | ${cache.size} |`,
  );
}
on.db.$client.close();
off.db.$client.close();
