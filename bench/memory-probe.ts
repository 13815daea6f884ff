/**
 * What the resident memory is made of while point reads fill the read
 * cache, in-process: RSS beside JavaScriptCore's heap (live, capacity and
 * the memory it was told of outside it) after each block of reads uniform
 * over the table, then after a full collection, with the most numerous
 * object types; then creates with 1 to 30 units, 32 in flight as wrk sends
 * them, with the RSS after each block (creates write to FILE: use a copy).
 * The service's own ids list is loaded first (about 34 MB at 200,000
 * properties, which the server does not hold).
 *
 *   bun bench/memory-probe.ts FILE [on|off READ_CACHE] [MEMORY_BUDGET_MB] [reads a block] [creates a block]
 */

import { heapStats } from 'bun:jsc';
import { BASE } from '../test/support/harness';
import { CREATE_BODY } from './fixtures';
import { inProcessService, propertyIdsOf } from './in-process';

const [path, cache = 'on', budget = '96', n = '100000', creates = '5000'] = Bun.argv.slice(2);
const mb = (x: number) => (x / 1048576).toFixed(0);
const show = (label: string) => {
  const m = process.memoryUsage();
  const h = heapStats();
  console.log(
    `${label}: rss ${mb(m.rss)} heapUsed ${mb(m.heapUsed)} heapTotal ${mb(m.heapTotal)} external ${mb(m.external)} arrayBuffers ${mb(m.arrayBuffers)} | jsc heap ${mb(h.heapSize)} cap ${mb(h.heapCapacity)} extra ${mb(h.extraMemorySize)} objects ${h.objectCount}`,
  );
};
show('start');
const ids = propertyIdsOf(path!);
show('ids loaded');
const svc = inProcessService(path!, { readCache: cache!, memoryBudget: budget! });
show('service built');
const token = await svc.deps.tokens.issue('bench-employee', 'employee', 3600);
const headers = { authorization: `Bearer ${token}` };
for (let round = 1; round <= 4; round++) {
  for (let i = 0; i < Number(n); i++) {
    const id = ids[Math.floor(Math.random() * ids.length)]!;
    const response = await svc.fetch(new Request(`${BASE}/listings/properties/${id}`, { headers }));
    await response.arrayBuffer();
  }
  show(`after ${round * Number(n)} reads (cache ${svc.deps.readCache.size})`);
}
const bodies = Array.from({ length: 30 }, (_, k) =>
  JSON.stringify({ ...CREATE_BODY, totalUnits: k + 1, rentableUnits: Math.ceil((k + 1) / 2) }),
);
const createHeaders = { ...headers, 'content-type': 'application/json' };
for (let round = 1; round <= 4; round++) {
  let sent = 0;
  const client = async () => {
    while (sent < Number(creates)) {
      const body = bodies[sent++ % bodies.length]!;
      const response = await svc.fetch(
        new Request(`${BASE}/listings/properties`, {
          method: 'POST',
          headers: createHeaders,
          body,
        }),
      );
      if (response.status !== 201) throw new Error(`create: ${response.status}`);
      await response.arrayBuffer();
    }
  };
  await Promise.all(Array.from({ length: 32 }, client));
  show(`after ${round * Number(creates)} creates`);
}
Bun.gc(true);
show('after full gc');
const types = heapStats().objectTypeCounts;
console.log(
  Object.entries(types)
    .sort((a, b) => b[1] - a[1])
    .slice(0, 15),
);
