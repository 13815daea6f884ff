/**
 * What the JavaScript collector costs the server under point reads uniform
 * over the table: starts the service (bench/service-command.ts, pinned to
 * CPU 0) on FILE with JSC's GC log on, warms it with 10 s of reads, then
 * measures `--seconds` of reads (wrk on CPU 1, 32 connections; with
 * `--creates N`, N creates a second beside them, on a copy of FILE) and
 * prints req/s, p99, CPU a request, the eden and full collections of the
 * measured window with their summed durations, peak RSS, and the disk:
 * MB read a second and the ms a second the server's main thread waited on
 * it (counted only with `sysctl kernel.task_delayacct=1`).
 *
 *   bun bench/gc-probe.ts FILE [--read-cache on|off] [--seconds 10] [--creates 0] [NAME=value ...]
 *
 * NAME=value pairs go to the server's environment, except:
 * one the command sets itself (BUN_JSC_forceRAMSize=N, say) replaces it, SMOL=off drops
 * `--smol`, PROFILE_DIR=dir writes a CPU profile (markdown) there, and
 * KEEP_LOG=file keeps the GC log.
 */
import { copyFileSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { TokenService } from '@/auth/tokens';
import { CREATE_BODY } from './fixtures';
import { propertyIdsOf } from './in-process';
import { cpuSeconds, diskReadsOf, residentMb, startServer } from './reference-harness';
import { BENCH_SECRET } from './seeded-file';
import { probeEnv, serviceCommandWith } from './service-command';
import { runWrk } from './wrk';

const { values, positionals } = parseArgs({
  args: Bun.argv.slice(2).filter((arg) => arg !== '--'),
  allowPositionals: true,
  options: {
    'read-cache': { type: 'string', default: 'on' },
    seconds: { type: 'string', default: '10' },
    creates: { type: 'string', default: '0' },
  },
});
const [source, ...assignments] = positionals;
if (!source) throw new Error('usage: bun bench/gc-probe.ts FILE [ENV=value ...]');
const extraEnv = Object.fromEntries(assignments.map((a) => a.split('=', 2) as [string, string]));
const seconds = Number(values.seconds);
const workDir = join(tmpdir(), `gc-probe-${Date.now()}`);
mkdirSync(workDir, { recursive: true });
// Reads only: the file itself; with creates, a copy.
const database = Number(values.creates) > 0 ? join(workDir, 'service.db') : source;
if (database !== source) copyFileSync(source, database);
const idsFile = join(workDir, 'ids.txt');
writeFileSync(idsFile, `${propertyIdsOf(database).join('\n')}\n`);
const gcLog = join(workDir, 'gc.log');

// A setting among the assignments that the command makes itself replaces it.
const command = serviceCommandWith(extraEnv)
  .filter((part) => !(part === '--smol' && extraEnv.SMOL === 'off'))
  .flatMap((part) =>
    part === '--smol' && extraEnv.PROFILE_DIR
      ? [part, '--cpu-prof-md', `--cpu-prof-dir=${extraEnv.PROFILE_DIR}`]
      : [part],
  );
const server = await startServer({
  name: 'service',
  command,
  cpu: 0,
  env: {
    ...probeEnv(database, BENCH_SECRET),
    READ_CACHE: values['read-cache']!,
    BUN_JSC_logGC: '1',
    ...extraEnv,
  },
  ready: '/health',
  stderrFile: gcLog,
});
const { base, pid } = server;
const token = await new TokenService(BENCH_SECRET).issue('bench-employee', 'employee', 3600);
const headers = { authorization: `Bearer ${token}`, accept: 'application/json' };

const read = (s: number) =>
  runWrk({
    url: `${base}/listings/properties/x`,
    seconds: s,
    connections: 32,
    headers,
    lines: { file: idsFile, prefix: '/listings/properties/' },
    cpu: 1,
    scriptDir: workDir,
  });

let stopCreates = false;
async function creates(perSecond: number) {
  const body = JSON.stringify({ ...CREATE_BODY, totalUnits: 15, rentableUnits: 10 });
  while (!stopCreates) {
    const started = performance.now();
    await fetch(`${base}/listings/properties`, {
      method: 'POST',
      headers: { ...headers, 'content-type': 'application/json' },
      body,
    }).then((r) => {
      if (r.status !== 201) throw new Error(`create: ${r.status}`);
      return r.arrayBuffer();
    });
    await Bun.sleep(Math.max(0, 1000 / perSecond - (performance.now() - started)));
  }
}

await read(Math.min(10, seconds));
const logOffset = readFileSync(gcLog, 'utf8').length;
const createsPerSecond = Number(values.creates);
const background = createsPerSecond > 0 ? creates(createsPerSecond) : undefined;
const cpuBefore = cpuSeconds(pid);
const diskBefore = diskReadsOf(pid);
const result = await read(seconds);
const cpuSpent = cpuSeconds(pid) - cpuBefore;
const diskAfter = diskReadsOf(pid);
stopCreates = true;
await background;
const window = readFileSync(gcLog, 'utf8').slice(logOffset);
const cycles = [...window.matchAll(/=> (Eden|Full)Collection[\s\S]*?cycle ([\d.]+)ms END/g)];
const sumOf = (kind: string) =>
  cycles.filter((c) => c[1] === kind).reduce((sum, c) => sum + Number(c[2]), 0);
const countOf = (kind: string) => cycles.filter((c) => c[1] === kind).length;
console.log(
  JSON.stringify({
    readCache: values['read-cache'],
    env: extraEnv,
    rps: Math.round(result.requestsPerSecond),
    p99Ms: result.p99Ms,
    cpuUsPerRequest: +((cpuSpent / result.requests) * 1e6).toFixed(1),
    eden: countOf('Eden'),
    edenMs: +sumOf('Eden').toFixed(0),
    full: countOf('Full'),
    fullMs: +sumOf('Full').toFixed(0),
    peakRssMb: Math.round(residentMb(pid, { peak: true })),
    diskReadMbPerSecond: +((diskAfter.bytes - diskBefore.bytes) / 1e6 / seconds).toFixed(1),
    ioWaitMsPerSecond: +(
      ((diskAfter.waitSeconds - diskBefore.waitSeconds) * 1000) /
      seconds
    ).toFixed(0),
  }),
);
server.process.kill();
await server.process.exited;
if (extraEnv.KEEP_LOG) copyFileSync(gcLog, extraEnv.KEEP_LOG);
rmSync(workDir, { recursive: true, force: true });
