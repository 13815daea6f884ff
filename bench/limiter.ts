/**
 * Throughput of GET /api/v1/tokens/limits with the limiter on and off, in one
 * run, against real servers on 127.0.0.1 (`bun src/index.ts`, one child
 * process per setting, RATE_LIMITS=on|off). 32 concurrent keep-alive
 * connections, a bearer token on every request, a raw-socket client (so the
 * server, not the client, is the bottleneck). Rounds alternate on/off back
 * to back and the cost is the median of the paired ratios, which keeps a
 * busy machine's drift out of the figure. Server CPU time per request
 * (from /proc) is reported beside it.
 *
 * With `--redis <url>` it compares the limiter's two stores instead, both
 * with the limiter on: the in-process store against the Redis store (a
 * prefix of its own on that server), the cost of sharing the windows
 * between instances; no budget applies to that comparison.
 *
 *   bun run bench:limiter [-- --seconds 2 --rounds 9 --connections 32 --redis redis://127.0.0.1:6379]
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { type Subprocess, spawn } from 'bun';
import { TokenService } from '@/auth/tokens';
import { load } from './http-load';
import { SERVICE_COMMAND } from './service-command';

const { values } = parseArgs({
  options: {
    seconds: { type: 'string', default: '2' },
    rounds: { type: 'string', default: '9' },
    connections: { type: 'string', default: '32' },
    redis: { type: 'string' },
  },
});
const REDIS_URL = values.redis;
const SECONDS = Number(values.seconds);
const ROUNDS = Number(values.rounds);
const CONNECTIONS = Number(values.connections);
const HOST = '127.0.0.1';
const PATH = '/api/v1/tokens/limits';
const SECRET = 'bench-secret-bench-secret-bench-secret-0123';
type Setting = 'on' | 'off';
/** What each server runs: the limiter on and off, or (`--redis`) its in-process and Redis stores. */
const LABELS: Record<Setting, string> = REDIS_URL
  ? { off: 'in-process store', on: 'Redis store' }
  : { off: 'limiter off', on: 'limiter on' };

function limiterEnv(setting: Setting): Record<string, string> {
  if (!REDIS_URL) return { RATE_LIMITS: setting };
  if (setting === 'off') return { RATE_LIMITS: 'on' };
  return { RATE_LIMITS: 'on', REDIS_URL, REDIS_PREFIX: `bench-${Date.now()}:` };
}

async function startServer(port: number, limiter: Setting, dir: string) {
  const child = spawn(SERVICE_COMMAND, {
    env: {
      ...process.env,
      PORT: String(port),
      HOST,
      DATABASE_PATH: join(dir, `${limiter}.db`),
      JWT_SECRET: SECRET,
      ...limiterEnv(limiter),
      WORKERS: 'off',
      LOG_LEVEL: 'silent',
    },
    stdout: 'ignore',
    stderr: 'inherit',
  });
  for (let i = 0; i < 100; i++) {
    try {
      if ((await fetch(`http://${HOST}:${port}/health`)).ok) return child;
    } catch {}
    await Bun.sleep(100);
  }
  child.kill();
  throw new Error(`server with ${LABELS[limiter]} did not start`);
}

/** User + system CPU seconds a process has used (Linux /proc; NaN elsewhere). */
async function cpuSeconds(pid: number): Promise<number> {
  try {
    const fields = (await Bun.file(`/proc/${pid}/stat`).text()).split(') ')[1]!.split(' ');
    return (Number(fields[11]) + Number(fields[12])) / 100;
  } catch {
    return Number.NaN;
  }
}

interface Round {
  rps: number;
  /** Server CPU time per request in microseconds. */
  cpuMicros: number;
}

async function measure(server: Subprocess, port: number, token: string, seconds: number) {
  const cpuBefore = await cpuSeconds(server.pid);
  const result = await load({
    host: HOST,
    port,
    path: PATH,
    headers: { authorization: `Bearer ${token}`, accept: 'application/json' },
    connections: CONNECTIONS,
    seconds,
  });
  if (result.failed > 0) throw new Error(`${result.failed} requests did not answer 200`);
  const cpu = (await cpuSeconds(server.pid)) - cpuBefore;
  return { rps: result.ok / result.seconds, cpuMicros: (cpu / result.ok) * 1e6 };
}

const median = (xs: number[]) => {
  const sorted = [...xs].sort((a, b) => a - b);
  const middle = sorted.length >> 1;
  return sorted.length % 2 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
};

const dir = mkdtempSync(join(tmpdir(), 'bench-limiter-'));
const servers: Subprocess[] = [];
try {
  const token = await new TokenService(SECRET).issue('bench-customer', 'customer', 3600);
  const base = 39_000 + Math.floor(Math.random() * 500);
  const ports: Record<Setting, number> = { on: base, off: base + 1 };
  const procs: Record<Setting, Subprocess> = {
    on: await startServer(ports.on, 'on', dir),
    off: await startServer(ports.off, 'off', dir),
  };
  servers.push(procs.on, procs.off);
  for (const setting of ['on', 'off'] as const) {
    await measure(procs[setting], ports[setting], token, 1); // warm-up (JIT)
  }

  const rounds: Record<Setting, Round>[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    const order: Setting[] = round % 2 ? ['off', 'on'] : ['on', 'off'];
    const pair = {} as Record<Setting, Round>;
    for (const setting of order) {
      pair[setting] = await measure(procs[setting], ports[setting], token, SECONDS);
    }
    rounds.push(pair);
    const cost = (1 - pair.on.rps / pair.off.rps) * 100;
    console.log(
      `round ${round + 1}: ${LABELS.off} ${pair.off.rps.toFixed(0)} req/s (${pair.off.cpuMicros.toFixed(1)} µs CPU), ` +
        `${LABELS.on} ${pair.on.rps.toFixed(0)} req/s (${pair.on.cpuMicros.toFixed(1)} µs CPU), cost ${cost.toFixed(1)} %`,
    );
  }
  const summary = {
    path: PATH,
    connections: CONNECTIONS,
    seconds: SECONDS,
    rounds: ROUNDS,
    offRps: median(rounds.map((r) => r.off.rps)),
    onRps: median(rounds.map((r) => r.on.rps)),
    offCpuMicros: median(rounds.map((r) => r.off.cpuMicros)),
    onCpuMicros: median(rounds.map((r) => r.on.cpuMicros)),
    throughputCost: median(rounds.map((r) => (1 - r.on.rps / r.off.rps) * 100)),
    cpuCost: median(rounds.map((r) => (r.on.cpuMicros / r.off.cpuMicros - 1) * 100)),
  };
  console.log(
    `\nGET ${PATH}, ${CONNECTIONS} connections, ${ROUNDS} paired rounds of ${SECONDS} s (medians):`,
  );
  console.log(
    `  ${LABELS.off}: ${summary.offRps.toFixed(0)} req/s, ${summary.offCpuMicros.toFixed(1)} µs server CPU/request`,
  );
  console.log(
    `  ${LABELS.on}: ${summary.onRps.toFixed(0)} req/s, ${summary.onCpuMicros.toFixed(1)} µs server CPU/request`,
  );
  const budget = REDIS_URL ? '' : ' (budget: < 10 %)';
  console.log(`  throughput cost: ${summary.throughputCost.toFixed(1)} %${budget}`);
  console.log(`  server CPU cost: ${summary.cpuCost.toFixed(1)} % per request`);
  mkdirSync('bench/results', { recursive: true });
  const stamp = new Date().toISOString().replaceAll(':', '-');
  writeFileSync(
    `bench/results/limiter${REDIS_URL ? '-redis' : ''}-${stamp}.json`,
    JSON.stringify(
      { summary: { ...summary, stores: REDIS_URL ? LABELS : undefined }, rounds },
      null,
      2,
    ),
  );
  if (!REDIS_URL && summary.throughputCost >= 10) process.exitCode = 1;
} finally {
  for (const server of servers) server.kill();
  rmSync(dir, { recursive: true, force: true });
}
