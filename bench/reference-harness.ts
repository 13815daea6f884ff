/**
 * What `bun run bench:reference` needs around its measurements: the load
 * tools, servers started pinned to a core on a free port, their CPU time and
 * resident memory from /proc.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { runWrk } from './wrk';

const root = join(import.meta.dir, '..');

/** wrk (installed with apt-get when missing and possible), taskset, and two CPUs. */
export function requireLoadTools() {
  if (!Bun.which('wrk') && process.getuid?.() === 0 && Bun.which('apt-get')) {
    console.log('bench: wrk is missing; installing it with apt-get (Debian package "wrk")');
    Bun.spawnSync(['apt-get', 'install', '-y', '--no-install-recommends', 'wrk'], {
      stdio: ['ignore', 'inherit', 'inherit'],
    });
  }
  const missing = [
    Bun.which('wrk') ? '' : 'wrk (sudo apt-get install wrk)',
    Bun.which('taskset') ? '' : 'taskset (util-linux)',
    Bun.which('node') ? '' : 'node (the reference runs on Node)',
    navigator.hardwareConcurrency >= 2 ? '' : 'a second CPU (servers on CPU 0, wrk on CPU 1)',
  ].filter(Boolean);
  if (missing.length > 0) {
    console.error(`bench: needs ${missing.join(', ')}`);
    process.exit(1);
  }
}

/**
 * A port nothing listens on right now. Fixed ports let a server left over
 * from another run answer in place of the one the bench started, and the
 * figures then measure that process instead.
 */
export function freePort(): number {
  const probe = Bun.serve({ port: 0, hostname: '127.0.0.1', fetch: () => new Response() });
  const { port } = probe;
  probe.stop(true);
  if (port === undefined) throw new Error('bench: no free port');
  return port;
}

export interface Started {
  name: string;
  base: string;
  pid: number;
  process: ReturnType<typeof Bun.spawn>;
}

/** Starts `command` pinned to `cpu` with HOST/PORT set, and waits until `ready` answers 200. */
export async function startServer(options: {
  name: string;
  command: string[];
  cpu: number;
  env: Record<string, string>;
  ready: string;
  token?: string;
  /** A file for the server's stderr (the terminal's otherwise). */
  stderrFile?: string;
}): Promise<Started> {
  const port = freePort();
  const child = Bun.spawn(['taskset', '-c', String(options.cpu), ...options.command], {
    cwd: root,
    env: { ...process.env, ...options.env, HOST: '127.0.0.1', PORT: String(port) },
    stdout: 'ignore',
    stderr: options.stderrFile ? Bun.file(options.stderrFile) : 'inherit',
  });
  const base = `http://127.0.0.1:${port}`;
  const headers: Record<string, string> = options.token
    ? { authorization: `Bearer ${options.token}` }
    : {};
  for (let attempt = 0; attempt < 600; attempt++) {
    if (child.exitCode !== null) break;
    const ok = await fetch(`${base}${options.ready}`, { headers }).then(
      (response) => response.ok,
      () => false,
    );
    if (ok) return { name: options.name, base, pid: child.pid, process: child };
    await Bun.sleep(50);
  }
  child.kill();
  throw new Error(`bench: the ${options.name} server never answered ${options.ready}`);
}

/** Clock ticks per second of /proc/<pid>/stat's CPU times. */
export const CLOCK_TICKS =
  Number(Bun.spawnSync(['getconf', 'CLK_TCK']).stdout.toString().trim()) || 100;

/** The fields of /proc/<pid>/stat after the command name, from the state (field 3) on. */
function statFieldsOf(pid: number): string[] {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  return stat.slice(stat.lastIndexOf(')') + 2).split(' ');
}

/**
 * CPU seconds (user + system) process `pid` has used, all its threads.
 * Unlike requests per second, the CPU time a request costs barely moves
 * when other work shares the machine, so it is the figure to compare builds
 * with on a busy host.
 */
export function cpuSeconds(pid: number): number {
  const fields = statFieldsOf(pid);
  return (Number(fields[11]) + Number(fields[12])) / CLOCK_TICKS;
}

/**
 * Seconds the main thread of process `pid` (its event loop) has spent
 * runnable but waiting for a CPU (`/proc/<pid>/schedstat`): on a shared
 * host, time other processes held the core the server is pinned to, which
 * shows in its latency but in none of its own figures.
 */
export function runQueueSeconds(pid: number): number {
  return Number(readFileSync(`/proc/${pid}/schedstat`, 'utf8').split(' ')[1]) / 1e9;
}

/**
 * Disk reads of process `pid` so far: the bytes its threads made the disk
 * read, and the seconds its main thread (the one that runs JavaScript and
 * SQLite's reads) waited on block I/O, which the kernel counts only while
 * `kernel.task_delayacct` is 1 (0 otherwise).
 */
export function diskReadsOf(pid: number): { bytes: number; waitSeconds: number } {
  const io = readFileSync(`/proc/${pid}/io`, 'utf8');
  const fields = statFieldsOf(pid);
  return {
    bytes: Number(/read_bytes:\s+(\d+)/.exec(io)?.[1] ?? 0),
    // Field 42, delayacct_blkio_ticks.
    waitSeconds: Number(fields[39]) / CLOCK_TICKS,
  };
}

/** Resident memory of `pid` in MB: now, or (`peak`) the most it has held since it started. */
export function residentMb(pid: number, { peak = false } = {}): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const field = peak ? /VmHWM:\s+(\d+) kB/ : /VmRSS:\s+(\d+) kB/;
  return Number(field.exec(status)?.[1] ?? 0) / 1024;
}

/** One request mix wrk sends: a path, with a method and bodies or a file of lines where it writes. */
export interface Measurement {
  name: string;
  path: string;
  method?: string;
  bodies?: string[];
  lines?: { file: string; prefix: string };
}

/**
 * wrk sending `m` to `server` with `token`, from the load generator's CPU:
 * a function of the seconds to run, so a bench warms up and measures with
 * the same call.
 */
export const wrkDriver =
  (
    server: Started,
    m: Measurement,
    token: string,
    options: { connections: number; cpu: number; scriptDir: string },
  ) =>
  (seconds: number) =>
    runWrk({
      url: `${server.base}${m.path}`,
      seconds,
      connections: options.connections,
      headers: { authorization: `Bearer ${token}`, accept: 'application/json' },
      method: m.method,
      bodies: m.bodies,
      lines: m.lines,
      cpu: options.cpu,
      scriptDir: options.scriptDir,
    });
