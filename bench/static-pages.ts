/**
 * Requests per second of `GET /content/static-pages/{slug}` with the
 * in-process cache on and off, measured in one run against the real server
 * (`bun src/index.ts`) on a temporary database on 127.0.0.1, beside a bare
 * `Bun.serve` answering the same JSON as a ceiling.
 *
 *   bun run bench:pages [-- --seconds 5 --connections 32 --rounds 1 --path /content/static-pages/about]
 *
 * With several rounds the three servers take turns and each figure is the
 * median round (the machine may be shared).
 * The load generator is a loop of concurrent keep-alive fetches in this
 * process; each server runs in its own process.
 */
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { preparePage } from '@/content/cache';
import { importStaticPages } from '@/content/import';
import { findPublishedVariants, sqliteContentStore } from '@/content/sqlite-store';
import { migrateDatabase, openDatabase } from '@/db/sqlite/client';
import { tempDir } from '../test/support/harness';

const { values } = parseArgs({
  args: Bun.argv.slice(2).filter((arg) => arg !== '--'),
  options: {
    seconds: { type: 'string', default: '5' },
    connections: { type: 'string', default: '32' },
    rounds: { type: 'string', default: '1' },
    path: { type: 'string', default: '/content/static-pages/about' },
  },
});
const seconds = Number(values.seconds);
const connections = Number(values.connections);
const rounds = Math.max(1, Number(values.rounds));
const path = values.path;
const root = join(import.meta.dir, '..');

function freePort(): number {
  const probe = Bun.serve({ port: 0, hostname: '127.0.0.1', fetch: () => new Response() });
  const { port } = probe;
  probe.stop(true);
  return port!;
}

async function waitUntilUp(url: string, child: Bun.Subprocess) {
  for (let attempt = 0; attempt < 200; attempt++) {
    if (child.exitCode !== null) throw new Error(`server exited with ${child.exitCode}`);
    try {
      if ((await fetch(url)).ok) return;
    } catch {}
    await Bun.sleep(50);
  }
  throw new Error(`${url} never answered`);
}

interface Figures {
  requests: number;
  rps: number;
  p50: number;
  p99: number;
  errors: number;
}

/** `connections` loops, each fetching `url` back to back for `ms`. */
async function load(url: string, ms: number, record: boolean): Promise<Figures> {
  const latencies: number[] = [];
  let errors = 0;
  const until = performance.now() + ms;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: connections }, async () => {
      while (performance.now() < until) {
        const t0 = performance.now();
        const res = await fetch(url);
        await res.arrayBuffer();
        if (res.status !== 200) errors++;
        if (record) latencies.push(performance.now() - t0);
      }
    }),
  );
  const elapsed = (performance.now() - started) / 1000;
  latencies.sort((a, b) => a - b);
  const at = (q: number) =>
    latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))] ?? 0;
  return {
    requests: latencies.length,
    rps: Math.round(latencies.length / elapsed),
    p50: at(0.5),
    p99: at(0.99),
    errors,
  };
}

async function measure(command: string[], env: Record<string, string>): Promise<Figures> {
  const port = freePort();
  const child = Bun.spawn(command, {
    cwd: root,
    env: { ...process.env, ...env, PORT: String(port), HOST: '127.0.0.1' },
    stdout: 'ignore',
    stderr: 'inherit',
  });
  try {
    const url = `http://127.0.0.1:${port}${path}`;
    await waitUntilUp(url, child);
    await load(url, 1000, false); // warm-up: JIT, connections, cache fill
    return await load(url, seconds * 1000, true);
  } finally {
    child.kill('SIGTERM');
    await child.exited;
  }
}

const dir = tempDir('bench-pages-');
const databasePath = join(dir, 'app.db');
const db = openDatabase(databasePath);
migrateDatabase(db);
await importStaticPages(sqliteContentStore(db), join(root, 'content'), Date.now());
const slug = path.split('/').pop() ?? '';
const page = findPublishedVariants(db, slug)[0];
db.$client.close();
if (!page) throw new Error(`no published page for ${path} in content/`);

const serverEnv = {
  DATABASE_PATH: databasePath,
  JWT_SECRET: 'bench-secret-bench-secret-bench-secret',
  WORKERS: 'off',
  // One log line per request would measure stdout, not the cache.
  LOG_LEVEL: 'warn',
};
// The ceiling: Bun.serve answering the same body, no routing, no hooks.
const bare = `
const body = process.env.BENCH_BODY;
const headers = { 'content-type': 'application/json' };
Bun.serve({ port: Number(process.env.PORT), hostname: '127.0.0.1', fetch: () => new Response(body, { headers }) });
`;

const servers: [string, string[], Record<string, string>][] = [
  [
    'bare Bun.serve, fixed JSON',
    [process.execPath, '-e', bare],
    { BENCH_BODY: new TextDecoder().decode(preparePage(page).response.body) },
  ],
  [
    'service, cache on',
    [process.execPath, 'src/index.ts'],
    { ...serverEnv, STATIC_PAGES_CACHE: 'on' },
  ],
  [
    'service, cache off',
    [process.execPath, 'src/index.ts'],
    { ...serverEnv, STATIC_PAGES_CACHE: 'off' },
  ],
];

console.log(
  `GET ${path}: ${connections} connections, ${seconds} s per server, ${rounds} round(s), load from one Bun process\n`,
);
const runs = servers.map(() => [] as Figures[]);
for (let round = 0; round < rounds; round++) {
  for (const [index, [, command, env]] of servers.entries()) {
    runs[index]!.push(await measure(command, env));
  }
}
const median = (figures: Figures[]) =>
  [...figures].sort((a, b) => a.rps - b.rps)[Math.floor(figures.length / 2)]!;
const results = servers.map(([name], index) => ({ name, ...median(runs[index]!) }));

const ceiling = results[0]!.rps;
console.log('| server | req/s | vs bare | p50 ms | p99 ms | non-200 |');
console.log('|---|---:|---:|---:|---:|---:|');
for (const r of results) {
  const share = `${Math.round((r.rps / ceiling) * 100)} %`;
  console.log(
    `| ${r.name} | ${r.rps} | ${share} | ${r.p50.toFixed(2)} | ${r.p99.toFixed(2)} | ${r.errors} |`,
  );
}
