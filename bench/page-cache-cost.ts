/**
 * What SQLite's page cache buys a point read: GET /listings/properties/{id}
 * through one service per `MEMORY_BUDGET_MB` (a fifth of it the page cache),
 * all over one seeded file with READ_CACHE=off by default, ids uniform over
 * the table, the services taking turns (the order flips every round). Each
 * figure is the median round's CPU time per request through `fetch`.
 *
 *   bun bench/page-cache-cost.ts FILE [budgets 40,80,160,320] [requests 20000] [rounds 5] [on|off READ_CACHE]
 */
import { BASE } from '../test/support/harness';
import { inProcessService, propertyIdsOf } from './in-process';

const [path, budgets = '40,80,160,320', n = '20000', rounds = '5', cache = 'off'] =
  Bun.argv.slice(2);
const ids = propertyIdsOf(path!);
const services = budgets.split(',').map((budget) => ({
  budget,
  ...inProcessService(path!, { readCache: cache, memoryBudget: budget }),
}));
const token = await services[0]!.deps.tokens.issue('bench-employee', 'employee', 3600);
const headers = { authorization: `Bearer ${token}` };
async function timed(fetch: (r: Request) => Response | Promise<Response>) {
  const started = process.cpuUsage();
  for (let i = 0; i < Number(n); i++) {
    const id = ids[Math.floor(Math.random() * ids.length)]!;
    const response = await fetch(new Request(`${BASE}/listings/properties/${id}`, { headers }));
    await response.arrayBuffer();
  }
  const used = process.cpuUsage(started);
  return (used.user + used.system) / Number(n);
}
const results = new Map<string, number[]>();
for (const s of services) await timed(s.fetch);
for (let r = 0; r < Number(rounds); r++) {
  const order = r % 2 ? [...services].reverse() : services;
  for (const s of order) {
    const list = results.get(s.budget) ?? [];
    list.push(await timed(s.fetch));
    results.set(s.budget, list);
  }
}
for (const [budget, xs] of results) {
  const sorted = [...xs].sort((a, b) => a - b);
  console.log(
    `budget ${budget} (page cache ${(Number(budget) / 5).toFixed(0)} MiB): median ${sorted[sorted.length >> 1]!.toFixed(1)} µs/read  [${xs.map((x) => x.toFixed(0)).join(' ')}]`,
  );
}
