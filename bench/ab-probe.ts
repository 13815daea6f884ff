/**
 * Two configurations of the service compared where the machine is shared
 * and its speed drifts by a fifth within minutes: both servers run at once
 * on FILE (pinned to CPU 0; a copy with `--creates`), and short bursts of
 * point reads (wrk on CPU 1, 32 connections, ids uniform over the table or
 * Zipf with `--zipf`) alternate between them, A then B, for `--rounds`
 * rounds after a warm-up of each. Each round's B ÷ A CPU a request is taken
 * from two bursts seconds apart, so a drift slower than that cancels out;
 * the median of the rounds is printed with each side's figures.
 *
 *   bun bench/ab-probe.ts FILE --a "READ_CACHE=off" --b "READ_CACHE=on"
 *     [--rounds 8] [--seconds 4] [--warmup 10] [--creates 20] [--zipf]
 *
 * With `--creates N`, N creates a second go to the server being measured.
 */
import { copyFileSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { TokenService } from '@/auth/tokens';
import { CREATE_BODY } from './fixtures';
import { propertyIdsOf } from './in-process';
import { cpuSeconds, residentMb, type Started, startServer } from './reference-harness';
import { BENCH_SECRET } from './seeded-file';
import { probeEnv, serviceCommandWith } from './service-command';
import { runWrk } from './wrk';

const { values, positionals } = parseArgs({
  args: Bun.argv.slice(2).filter((arg) => arg !== '--'),
  allowPositionals: true,
  options: {
    a: { type: 'string', default: '' },
    b: { type: 'string', default: '' },
    rounds: { type: 'string', default: '8' },
    seconds: { type: 'string', default: '4' },
    warmup: { type: 'string', default: '10' },
    creates: { type: 'string', default: '0' },
    zipf: { type: 'boolean', default: false },
  },
});
const [source] = positionals;
if (!source) throw new Error('usage: bun bench/ab-probe.ts FILE --a "NAME=value ..." --b "..."');
const settingsOf = (text: string) =>
  Object.fromEntries(
    text
      .split(/\s+/)
      .filter(Boolean)
      .map((pair) => pair.split('=', 2) as [string, string]),
  );
const workDir = join(tmpdir(), `ab-probe-${Date.now()}`);
mkdirSync(workDir, { recursive: true });
const createsPerSecond = Number(values.creates);
const database = createsPerSecond > 0 ? join(workDir, 'service.db') : source;
if (database !== source) copyFileSync(source, database);
const idsFile = join(workDir, 'ids.txt');
// Shuffled: with --zipf the line's rank is its popularity, so the popular ids are spread.
const ids = propertyIdsOf(database);
for (let i = ids.length - 1; i > 0; i--) {
  const j = Math.floor(Math.random() * (i + 1));
  [ids[i], ids[j]] = [ids[j]!, ids[i]!];
}
writeFileSync(idsFile, `${ids.join('\n')}\n`);

/** The service with the side's settings; one the command makes itself is replaced. */
function start(name: string, settings: Record<string, string>): Promise<Started> {
  return startServer({
    name,
    command: serviceCommandWith(settings),
    cpu: 0,
    env: { ...probeEnv(database, BENCH_SECRET), ...settings },
    ready: '/health',
  });
}

const sides = [
  { name: 'A', settings: settingsOf(values.a!) },
  { name: 'B', settings: settingsOf(values.b!) },
];
const servers = await Promise.all(sides.map((side) => start(side.name, side.settings)));
const token = await new TokenService(BENCH_SECRET).issue('bench-employee', 'employee', 3600);
const headers = { authorization: `Bearer ${token}`, accept: 'application/json' };

async function creates(base: string, stop: { now: boolean }) {
  const body = JSON.stringify({ ...CREATE_BODY, totalUnits: 15, rentableUnits: 10 });
  while (!stop.now) {
    const started = performance.now();
    const response = await fetch(`${base}/listings/properties`, {
      method: 'POST',
      headers: { ...headers, 'content-type': 'application/json' },
      body,
    });
    if (response.status !== 201) throw new Error(`create: ${response.status}`);
    await response.arrayBuffer();
    await Bun.sleep(Math.max(0, 1000 / createsPerSecond - (performance.now() - started)));
  }
}

/** One burst of reads at `server` (with its creates): CPU µs a request, req/s, p99. */
async function burst(server: Started, seconds: number) {
  const stop = { now: false };
  const background = createsPerSecond > 0 ? creates(server.base, stop) : undefined;
  const cpuBefore = cpuSeconds(server.pid);
  const result = await runWrk({
    url: `${server.base}/listings/properties/x`,
    seconds,
    connections: 32,
    headers,
    lines: { file: idsFile, prefix: '/listings/properties/', zipf: values.zipf },
    cpu: 1,
    scriptDir: workDir,
  });
  const cpu = cpuSeconds(server.pid) - cpuBefore;
  stop.now = true;
  await background;
  return {
    cpuUs: (cpu / result.requests) * 1e6,
    rps: result.requestsPerSecond,
    p99Ms: result.p99Ms,
  };
}

const median = (list: number[]) => {
  const sorted = [...list].sort((x, y) => x - y);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
};

for (const server of servers) await burst(server, Number(values.warmup));
const figures = servers.map(() => [] as Awaited<ReturnType<typeof burst>>[]);
for (let round = 0; round < Number(values.rounds); round++) {
  for (const [n, server] of servers.entries()) {
    figures[n]!.push(await burst(server, Number(values.seconds)));
  }
  const [a, b] = figures.map((list) => list[round]!);
  console.log(
    `round ${round + 1}: A ${a!.cpuUs.toFixed(1)} µs, B ${b!.cpuUs.toFixed(1)} µs, B÷A ${(b!.cpuUs / a!.cpuUs).toFixed(3)}`,
  );
}
const ratios = figures[0]!.map((a, round) => figures[1]![round]!.cpuUs / a.cpuUs);
console.log(
  JSON.stringify({
    reads: values.zipf ? 'zipf' : 'uniform',
    creates: createsPerSecond,
    sides: sides.map((side, n) => ({
      ...side,
      cpuUsPerRequest: +median(figures[n]!.map((f) => f.cpuUs)).toFixed(1),
      rps: Math.round(median(figures[n]!.map((f) => f.rps))),
      p99Ms: +median(figures[n]!.map((f) => f.p99Ms)).toFixed(2),
      peakRssMb: Math.round(residentMb(servers[n]!.pid, { peak: true })),
    })),
    cpuRatioBtoA: +median(ratios).toFixed(3),
    cpuRatioRange: [Math.min(...ratios), Math.max(...ratios)].map((r) => +r.toFixed(3)),
  }),
);
for (const server of servers) server.process.kill();
await Promise.all(servers.map((server) => server.process.exited));
rmSync(workDir, { recursive: true, force: true });
