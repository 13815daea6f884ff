/**
 * `bun bench/full-sync.ts --database FILE [--properties N]`: a full sync of
 * every property, 100 a page, as an employee over HTTP, once with page
 * numbers and once with keyset paging (`paging=keyset`), against a server
 * started on the file (seeded with `bun run seed` when it does not exist;
 * READ_CACHE=off, so every page is read from SQLite, as a sync's pages are).
 * Prints the time of the whole walk and of its first, middle and last page
 * (the median of five pages at each place),
 * and the last page's time over the first's. `bun run bench` runs it on its
 * seeded database at the end (`--full-sync off` skips it).
 */
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { TokenService } from '@/auth/tokens';
import { BENCH_SECRET, seedUnlessPresent } from './seeded-file';
import { SERVICE_COMMAND } from './service-command';

const { values } = parseArgs({
  args: Bun.argv.slice(2).filter((arg) => arg !== '--'),
  options: {
    database: { type: 'string' },
    properties: { type: 'string', default: '200000' },
    'units-per-property': { type: 'string', default: '5' },
    port: { type: 'string', default: '3917' },
  },
});

const root = join(import.meta.dir, '..');
const databasePath = values.database ?? join(root, 'data', `full-sync-${values.properties}.db`);
const PAGE = 100;

interface Walk {
  pages: number;
  items: number;
  totalMs: number;
  firstMs: number;
  middleMs: number;
  lastMs: number;
}

/** Follows `_links.next` from `path` to the end, timing each page. */
async function walk(base: string, path: string, token: string): Promise<Walk> {
  const times: number[] = [];
  let items = 0;
  let next: string | undefined = path;
  const started = performance.now();
  while (next) {
    const at = performance.now();
    const res = await fetch(`${base}${next}`, { headers: { authorization: `Bearer ${token}` } });
    if (res.status !== 200) throw new Error(`${next}: ${res.status} ${await res.text()}`);
    const body = (await res.json()) as {
      count: number;
      _links: { next?: { href: string } };
    };
    times.push(performance.now() - at);
    items += body.count;
    next = body._links.next?.href;
  }
  // Medians of five pages at each place: one request's time is noise on a shared machine.
  const median = (from: number) => {
    const five = times.slice(Math.max(0, from), Math.max(0, from) + 5).sort((a, b) => a - b);
    return five[Math.floor(five.length / 2)]!;
  };
  return {
    pages: times.length,
    items,
    totalMs: performance.now() - started,
    firstMs: median(0),
    middleMs: median(Math.floor(times.length / 2) - 2),
    lastMs: median(times.length - 5),
  };
}

async function main() {
  seedUnlessPresent(databasePath, {
    properties: values.properties!,
    unitsPerProperty: values['units-per-property']!,
  });
  const base = `http://127.0.0.1:${values.port}`;
  const server = Bun.spawn(SERVICE_COMMAND, {
    cwd: root,
    env: {
      ...process.env,
      DATABASE_PATH: databasePath,
      JWT_SECRET: BENCH_SECRET,
      PORT: values.port!,
      HOST: '127.0.0.1',
      LOG_LEVEL: 'error',
      RATE_LIMITS: 'off',
      READ_CACHE: 'off',
      WORKERS: 'off',
      METRICS: 'off',
    },
    stdout: 'ignore',
  });
  try {
    for (let i = 0; ; i++) {
      if (server.exitCode !== null) throw new Error('the server exited');
      if (
        await fetch(`${base}/health`).then(
          (r) => r.ok,
          () => false,
        )
      )
        break;
      if (i > 600) throw new Error('the server did not start');
      await Bun.sleep(100);
    }
    const token = await new TokenService(BENCH_SECRET).issue('bench-employee', 'employee', 3600);
    const list = '/listings/properties?itemsPerPage=100';
    const results = {
      pageNumbers: await walk(base, list, token),
      keyset: await walk(base, `${list}&paging=keyset`, token),
    };
    console.log(`full sync, ${PAGE} a page (${databasePath}):`);
    for (const [name, w] of Object.entries(results)) {
      console.log(
        `  ${name.padEnd(11)} ${w.items.toLocaleString('en')} properties in ${w.pages} pages: ` +
          `${(w.totalMs / 1000).toFixed(1)} s; first ${w.firstMs.toFixed(1)} ms, middle ` +
          `${w.middleMs.toFixed(1)} ms, last ${w.lastMs.toFixed(1)} ms (last/first ${(w.lastMs / w.firstMs).toFixed(2)})`,
      );
    }
    return results;
  } finally {
    server.kill();
    await server.exited;
  }
}

await main();
