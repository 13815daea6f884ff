/**
 * `bun run bench:replication` (also run at the end of `bun run bench`): what
 * replicating the SQLite file with Litestream costs the writes, and whether
 * the WAL stays bounded under a long write load (docs/performance.md,
 * Replication).
 *
 * 1. Throughput: the real server (`SERVICE_COMMAND`) starts on a new file,
 *    once with replication off and once with `REPLICA_URL=file://` a
 *    temporary folder (so under `litestream replicate -exec`, Litestream on
 *    the server's CPU too), each pinned to CPU 0. The same load runs
 *    against each from two wrk processes pinned to CPU 1, for `--seconds`
 *    after `--warmup` seconds of creates: `--connections` connections send
 *    creates (200 bodies rotating, owners, cities and types spread) and
 *    `--read-connections` read properties the warm-up created, at random.
 *    Prints creates/s, reads/s, p99 and the CPU time a create cost the
 *    server's process group (launcher, Litestream, server) for both, and on
 *    ÷ off (the CPU ratio is the figure other work on the machine barely
 *    moves).
 * 2. WAL over time: replication on again, a new file, a paced load of
 *    `--wal-rate` creates/s (and the reads beside them) for `--wal-seconds`
 *    (300 by default); every `--sample-every` seconds the WAL's size, the
 *    replica folder's, Litestream's shadow WAL folder's and the lag /health
 *    shows. Prints the largest and the last WAL size and whether it stays
 *    bounded: below 64 MiB, the second half's largest within a quarter of
 *    the first half's.
 *
 *   bun run bench:replication [-- --seconds 10 --connections 16 --read-connections 4
 *                                --wal-seconds 300 --wal-rate 100 --sample-every 5
 *                                --results bench/results/replication.json]
 */
import { existsSync, lstatSync, mkdirSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { TokenService } from '@/auth/tokens';
import { CITY_IDS } from '@/listings/cities';
import { PROPERTY_TYPES } from '@/listings/properties/schemas';
import { findLitestream } from '@/replication';
import { CREATE_BODY, writePropertyIds } from './fixtures';
import { CLOCK_TICKS, freePort, type Started, startServer } from './reference-harness';
import { BENCH_SECRET } from './seeded-file';
import { probeEnv, SERVICE_COMMAND } from './service-command';
import { runWrk } from './wrk';

const { values } = parseArgs({
  args: Bun.argv.slice(2).filter((arg) => arg !== '--'),
  options: {
    seconds: { type: 'string', default: '10' },
    warmup: { type: 'string', default: '2' },
    connections: { type: 'string', default: '16' },
    'read-connections': { type: 'string', default: '4' },
    'read-every': { type: 'string', default: '4' },
    'wal-seconds': { type: 'string', default: '300' },
    'wal-rate': { type: 'string', default: '100' },
    'sample-every': { type: 'string', default: '5' },
    results: { type: 'string', default: join(import.meta.dir, 'results', 'replication.json') },
  },
});

const SERVER_CPU = 0;
const LOAD_CPU = 1;
/** Owners the creates are spread over. */
const OWNERS = 50;
const MIB = 1024 * 1024;
/**
 * The WAL is bounded when it never reaches the size SQLite cuts it back to
 * after a reset (`journal_size_limit`, 64 MiB) and the second half of the
 * run's peak is within a quarter of the first half's (no steady growth).
 */
const JOURNAL_LIMIT_MB = 64;

const workDir = join(tmpdir(), `listings-bench-replication-${Date.now()}`);

export interface ThroughputFigures {
  replication: 'off' | 'on';
  seconds: number;
  creates: number;
  reads: number;
  createsPerSecond: number;
  readsPerSecond: number;
  /** The creates' latency. */
  p50Ms: number;
  p99Ms: number;
  readP99Ms: number;
  errors: number;
  /** CPU time of the server's process group (launcher, Litestream, server) per create, the reads' included. */
  cpuUsPerCreate: number;
  /** The WAL's size when the load ended. */
  walMb: number;
}

export interface WalSample {
  atSeconds: number;
  walMb: number;
  replicaMb: number;
  /** Litestream's own copy of the WAL beside the database (`.<name>-litestream`). */
  shadowMb: number;
  lagBytes: number | null;
  /** How old the oldest write waiting to be shipped is, as /health shows it. */
  lagSeconds: number | null;
  lastSyncAgeSeconds: number | null;
}

export interface ReplicationBenchResult {
  at: string;
  throughput: { off: ThroughputFigures; on: ThroughputFigures; ratio: number; cpuRatio: number };
  wal: {
    seconds: number;
    ratePerSecond: number;
    creates: number;
    errors: number;
    samples: WalSample[];
    maxWalMb: number;
    finalWalMb: number;
    /** The largest WAL of the run's first half and of its second. */
    firstHalfMaxWalMb: number;
    secondHalfMaxWalMb: number;
    bounded: boolean;
    replicaMbPerMinute: number;
    /** The largest replication lag /health showed, in seconds. */
    maxLagSeconds: number;
  };
}

/** Bytes under `path`, the files of every folder in it. */
function bytesUnder(path: string): number {
  if (!existsSync(path)) return 0;
  const stat = lstatSync(path);
  if (!stat.isDirectory()) return stat.size;
  return readdirSync(path).reduce((total, name) => total + bytesUnder(join(path, name)), 0);
}

/** `pid` and every process below it (the launcher, Litestream, the server under it). */
function processTree(pid: number): number[] {
  try {
    const children = readdirSync(`/proc/${pid}/task`).flatMap((task) =>
      readFileSync(`/proc/${pid}/task/${task}/children`, 'utf8').trim().split(/\s+/),
    );
    return [pid, ...children.filter(Boolean).flatMap((child) => processTree(Number(child)))];
  } catch {
    return [];
  }
}

/** CPU seconds of the whole tree; a process gone meanwhile counts nothing. */
function treeCpuSeconds(pid: number): number {
  return processTree(pid).reduce((total, child) => {
    try {
      const stat = readFileSync(`/proc/${child}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      return total + (Number(fields[11]) + Number(fields[12])) / CLOCK_TICKS;
    } catch {
      return total;
    }
  }, 0);
}

const ownerId = (n: number) => `00000000-0000-7000-8000-${String(n).padStart(12, '0')}`;
const pick = <T>(items: readonly T[]): T => items[Math.floor(Math.random() * items.length)]!;

/** A create body with its owner, city and type spread, so the writes touch many index pages. */
function createBody(n: number): string {
  return JSON.stringify({
    ...CREATE_BODY,
    ownerId: ownerId(n % OWNERS),
    type: pick(PROPERTY_TYPES),
    location: { ...CREATE_BODY.location, cityId: pick(CITY_IDS), addressLine1: `Bench ${n}` },
  });
}

/** The creates and reads one load sends, and what came back. */
class LoadCounts {
  creates = 0;
  reads = 0;
  errors = 0;
  readonly ids: string[] = [];
  #sent = 0;

  constructor(
    private readonly base: string,
    private readonly headers: Record<string, string>,
    private readonly readEvery: number,
  ) {}

  /** One request: a read of a created property every `readEvery`th, a create otherwise. */
  async send(): Promise<void> {
    const n = this.#sent++;
    const read = this.ids.length > 0 && n % this.readEvery === this.readEvery - 1;
    try {
      const response = read
        ? await fetch(`${this.base}/listings/properties/${pick(this.ids)}`, {
            headers: this.headers,
          })
        : await fetch(`${this.base}/listings/properties`, {
            method: 'POST',
            headers: { ...this.headers, 'content-type': 'application/json' },
            body: createBody(n),
          });
      await response.arrayBuffer();
      if (read && response.status === 200) this.reads++;
      else if (!read && response.status === 201) {
        this.creates++;
        this.ids.push(response.headers.get('location')!.split('/').pop()!);
      } else this.errors++;
    } catch {
      this.errors++;
    }
  }
}

interface RunningServer {
  started: Started;
  databasePath: string;
  replicaDir?: string;
  stop(): Promise<void>;
}

/** The service on a new file in a folder of its own, pinned to the server's CPU; replicated to a file:// replica when `replicated`. */
async function startService(name: string, replicated: boolean): Promise<RunningServer> {
  const folder = join(workDir, name);
  mkdirSync(folder, { recursive: true });
  const databasePath = join(folder, 'data', 'app.db');
  const replicaDir = replicated ? join(folder, 'replica') : undefined;
  const started = await startServer({
    name,
    command: SERVICE_COMMAND,
    cpu: SERVER_CPU,
    env: {
      ...probeEnv(databasePath, BENCH_SECRET),
      LOG_LEVEL: 'warn',
      ...(replicaDir
        ? { REPLICA_URL: `file://${replicaDir}`, REPLICA_METRICS_PORT: String(freePort()) }
        : {}),
    },
    ready: '/health',
    stderrFile: join(folder, 'stderr.log'),
  });
  return {
    started,
    databasePath,
    replicaDir,
    async stop() {
      started.process.kill('SIGTERM');
      await started.process.exited;
    },
  };
}

/** The create bodies wrk rotates over: owners, cities and types spread. */
const CREATE_BODIES = Array.from({ length: 200 }, (_, n) => createBody(n));

async function measureThroughput(
  replication: 'off' | 'on',
  headers: Record<string, string>,
): Promise<ThroughputFigures> {
  const server = await startService(`throughput-${replication}`, replication === 'on');
  try {
    const url = `${server.started.base}/listings/properties`;
    const creates = {
      url,
      method: 'POST',
      bodies: CREATE_BODIES,
      headers,
      connections: Number(values.connections),
      cpu: LOAD_CPU,
      scriptDir: workDir,
    };
    // The warm-up's creates are what the reads pick from.
    await runWrk({ ...creates, seconds: Number(values.warmup) });
    const idsFile = join(workDir, `ids-${replication}.txt`);
    writePropertyIds(server.databasePath, idsFile);
    const seconds = Number(values.seconds);
    const cpuBefore = treeCpuSeconds(server.started.pid);
    const [written, read] = await Promise.all([
      runWrk({ ...creates, seconds }),
      runWrk({
        url,
        headers,
        lines: { file: idsFile, prefix: '/listings/properties/' },
        connections: Number(values['read-connections']),
        cpu: LOAD_CPU,
        scriptDir: workDir,
        seconds,
      }),
    ]);
    const cpu = treeCpuSeconds(server.started.pid) - cpuBefore;
    const figures: ThroughputFigures = {
      replication,
      seconds,
      creates: written.requests,
      reads: read.requests,
      createsPerSecond: written.requestsPerSecond,
      readsPerSecond: read.requestsPerSecond,
      p50Ms: written.p50Ms,
      p99Ms: written.p99Ms,
      readP99Ms: read.p99Ms,
      errors: written.errors + read.errors,
      cpuUsPerCreate: (cpu * 1e6) / Math.max(1, written.requests),
      walMb: bytesUnder(`${server.databasePath}-wal`) / MIB,
    };
    console.log(
      `  replication ${replication}: ${figures.createsPerSecond.toFixed(0)} creates/s (p50 ${figures.p50Ms.toFixed(2)} ms, p99 ${figures.p99Ms.toFixed(2)} ms) and ${figures.readsPerSecond.toFixed(0)} reads/s (p99 ${figures.readP99Ms.toFixed(2)} ms) over ${seconds} s, errors ${figures.errors}, CPU ${figures.cpuUsPerCreate.toFixed(0)} µs a create (the server's process group, reads included), WAL ${figures.walMb.toFixed(1)} MiB at the end`,
    );
    return figures;
  } finally {
    await server.stop();
  }
}

async function replicationOf(base: string) {
  try {
    const response = await fetch(`${base}/health`);
    const body = (await response.json()) as {
      replication?: {
        lagBytes: number | null;
        lagSeconds: number | null;
        lastSyncAgeSeconds: number;
      };
    };
    return body.replication;
  } catch {
    return undefined;
  }
}

async function measureWal(headers: Record<string, string>) {
  const seconds = Number(values['wal-seconds']);
  const rate = Number(values['wal-rate']);
  const sampleEvery = Number(values['sample-every']) * 1000;
  const server = await startService('wal', true);
  const { base } = server.started;
  const databaseFolder = join(server.databasePath, '..');
  const counts = new LoadCounts(base, headers, Number(values['read-every']));
  const samples: WalSample[] = [];
  const started = performance.now();
  const sample = async () => {
    const replication = await replicationOf(base);
    const entry: WalSample = {
      atSeconds: (performance.now() - started) / 1000,
      walMb: bytesUnder(`${server.databasePath}-wal`) / MIB,
      replicaMb: bytesUnder(server.replicaDir!) / MIB,
      shadowMb: bytesUnder(join(databaseFolder, '.app.db-litestream')) / MIB,
      lagBytes: replication?.lagBytes ?? null,
      lagSeconds: replication?.lagSeconds ?? null,
      lastSyncAgeSeconds: replication?.lastSyncAgeSeconds ?? null,
    };
    samples.push(entry);
    console.log(
      `  ${entry.atSeconds.toFixed(0).padStart(4)} s: WAL ${entry.walMb.toFixed(1)} MiB, replica ${entry.replicaMb.toFixed(1)} MiB, shadow WAL ${entry.shadowMb.toFixed(1)} MiB, lag ${entry.lagBytes === null ? '?' : `${(entry.lagBytes / 1024).toFixed(0)} KiB`} (${entry.lagSeconds?.toFixed(1) ?? '?'} s), last sync ${entry.lastSyncAgeSeconds?.toFixed(0) ?? '?'} s ago`,
    );
  };
  // Paced: the n-th request leaves at n / (rate × (1 + reads per create)) seconds, not waiting for answers.
  const readEvery = Number(values['read-every']);
  const requestsPerSecond = rate * (readEvery / (readEvery - 1));
  const total = Math.floor(requestsPerSecond * seconds);
  const inFlight = new Set<Promise<void>>();
  let sent = 0;
  let nextSample = 0;
  try {
    while (sent < total) {
      const elapsed = performance.now() - started;
      if (elapsed >= nextSample) {
        nextSample += sampleEvery;
        await sample();
      }
      const due = Math.min(total, Math.floor((elapsed / 1000) * requestsPerSecond));
      while (sent < due) {
        sent++;
        const request = counts.send().finally(() => inFlight.delete(request));
        inFlight.add(request);
      }
      await Bun.sleep(5);
    }
    await Promise.all(inFlight);
    await sample();
  } finally {
    await server.stop();
  }
  const walOf = (part: WalSample[]) => Math.max(0, ...part.map((s) => s.walMb));
  const half = seconds / 2;
  const firstHalfMaxWalMb = walOf(samples.filter((s) => s.atSeconds < half));
  const secondHalfMaxWalMb = walOf(samples.filter((s) => s.atSeconds >= half));
  const last = samples.at(-1)!;
  const maxWalMb = walOf(samples);
  const wal = {
    seconds,
    ratePerSecond: counts.creates / ((performance.now() - started) / 1000),
    creates: counts.creates,
    errors: counts.errors,
    samples,
    maxWalMb,
    finalWalMb: last.walMb,
    firstHalfMaxWalMb,
    secondHalfMaxWalMb,
    bounded: maxWalMb < JOURNAL_LIMIT_MB && secondHalfMaxWalMb <= firstHalfMaxWalMb * 1.25,
    replicaMbPerMinute: (last.replicaMb / Math.max(1, last.atSeconds)) * 60,
    maxLagSeconds: Math.max(0, ...samples.map((s) => s.lagSeconds ?? 0)),
  };
  console.log(
    `  WAL over ${seconds} s at ${rate} creates/s (${wal.creates} creates, errors ${wal.errors}): at most ${wal.maxWalMb.toFixed(1)} MiB, ${wal.finalWalMb.toFixed(1)} MiB at the end; largest in the first half ${firstHalfMaxWalMb.toFixed(1)} MiB, in the second ${secondHalfMaxWalMb.toFixed(1)} MiB: ${wal.bounded ? 'bounded' : 'NOT bounded'}; the replica grew ${wal.replicaMbPerMinute.toFixed(1)} MiB a minute; replication lag at most ${wal.maxLagSeconds.toFixed(1)} s in the samples`,
  );
  return wal;
}

/** taskset, two CPUs and the litestream binary: otherwise one line saying what is missing. */
function requireTools() {
  const missing = [
    Bun.which('taskset') ? '' : 'taskset (util-linux)',
    Bun.which('wrk') ? '' : 'wrk (sudo apt-get install wrk)',
    navigator.hardwareConcurrency >= 2 ? '' : 'a second CPU (server on CPU 0, load on CPU 1)',
    findLitestream() ? '' : 'the litestream binary (`npm install` brings it)',
  ].filter(Boolean);
  if (missing.length > 0) {
    console.error(`bench:replication: needs ${missing.join(', ')}`);
    process.exit(1);
  }
}

async function main() {
  requireTools();
  // The load runs here: on its own CPU, away from the server and Litestream.
  Bun.spawnSync(['taskset', '-cp', String(LOAD_CPU), String(process.pid)], {
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  mkdirSync(workDir, { recursive: true });
  const token = await new TokenService(BENCH_SECRET).issue('bench-employee', 'employee', 6 * 3600);
  const headers = { authorization: `Bearer ${token}`, accept: 'application/json' };
  try {
    console.log(
      `bench:replication: ${values.seconds} s per run after ${values.warmup} s of warm-up, ${values.connections} connections creating and ${values['read-connections']} reading; server on CPU ${SERVER_CPU}, wrk on CPU ${LOAD_CPU}`,
    );
    const off = await measureThroughput('off', headers);
    const on = await measureThroughput('on', headers);
    const throughput = {
      off,
      on,
      ratio: on.createsPerSecond / off.createsPerSecond,
      cpuRatio: on.cpuUsPerCreate / off.cpuUsPerCreate,
    };
    console.log(
      `  replication on ÷ off: ${throughput.ratio.toFixed(3)}× the creates/s, ${throughput.cpuRatio.toFixed(3)}× the CPU a create`,
    );
    const wal = await measureWal(headers);
    const result: ReplicationBenchResult = { at: new Date().toISOString(), throughput, wal };
    mkdirSync(join(values.results, '..'), { recursive: true });
    await Bun.write(values.results, JSON.stringify(result, null, 2));
  } finally {
    rmSync(workDir, { recursive: true, force: true });
  }
}

if (import.meta.main) await main();
