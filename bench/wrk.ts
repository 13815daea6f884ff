import { join } from 'node:path';

export interface WrkResult {
  requestsPerSecond: number;
  p50Ms: number;
  p99Ms: number;
  requests: number;
  errors: number;
}

export interface WrkOptions {
  url: string;
  seconds: number;
  connections: number;
  headers?: Record<string, string>;
  /** POST body; sent with Content-Type: application/json through a Lua script. */
  body?: string;
  method?: string;
  /** Bodies the requests rotate over, in order (with `method`); `body` for all when absent. */
  bodies?: string[];
  /** Paths (with query) the requests rotate over, in order; the URL's own path when absent. */
  paths?: string[];
  /**
   * A file of one path suffix a line, loaded once by the Lua script: each
   * request takes a line at random and sends `prefix` + that line (a million
   * property ids fit; LuaJIT holds them in about 60 MB). `zipf`: the line
   * of rank k (from 1) is picked with a probability proportional to 1/k
   * (Zipf, s = 1) instead of uniformly.
   */
  lines?: { file: string; prefix: string; zipf?: boolean };
  /**
   * Lua lines defining `request()` (bodies built per request); used instead
   * of `bodies`, `paths` and `lines`.
   */
  request?: string[];
  /**
   * Stop once this many responses have come back, before `seconds` (which
   * then only bounds the run): the Lua `response()` counts them and, at the
   * count, stops its thread and sends wrk its own SIGINT, which ends the
   * main thread's wait, so the time and rate wrk reports end there too.
   */
  stopAfter?: number;
  /** CPU the load generator is pinned to. */
  cpu: number;
  scriptDir: string;
}

const toMs = (value: string, unit: string) =>
  Number(value) * ({ us: 0.001, ms: 1, s: 1000, m: 60000 }[unit] ?? 1);

function parseLatency(output: string, percentile: string): number {
  const match = new RegExp(`^\\s*${percentile}%\\s+([\\d.]+)(us|ms|s|m)`, 'm').exec(output);
  return match ? toMs(match[1]!, match[2]!) : Number.NaN;
}

export function parseWrk(output: string): WrkResult {
  const rps = /Requests\/sec:\s+([\d.]+)/.exec(output);
  const total = /(\d+) requests in/.exec(output);
  const non2xx = /Non-2xx or 3xx responses:\s+(\d+)/.exec(output);
  const socket = /Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)/.exec(
    output,
  );
  const socketErrors = socket ? socket.slice(1).reduce((sum, n) => sum + Number(n), 0) : 0;
  return {
    requestsPerSecond: rps ? Number(rps[1]) : 0,
    p50Ms: parseLatency(output, '50'),
    p99Ms: parseLatency(output, '99'),
    requests: total ? Number(total[1]) : 0,
    errors: (non2xx ? Number(non2xx[1]) : 0) + socketErrors,
  };
}

/** Runs wrk pinned to one CPU (taskset) against 127.0.0.1 for a bounded time. */
export async function runWrk(options: WrkOptions): Promise<WrkResult> {
  const args = [
    'taskset',
    '-c',
    String(options.cpu),
    'wrk',
    '-t1',
    `-c${options.connections}`,
    `-d${options.seconds}s`,
    '--latency',
    '--timeout',
    '5s',
  ];
  for (const [name, value] of Object.entries(options.headers ?? {})) {
    args.push('-H', `${name}: ${value}`);
  }
  const lua: string[] = [];
  if (options.body !== undefined || options.method) {
    lua.push(
      `wrk.method = ${JSON.stringify(options.method ?? 'POST')}`,
      options.body !== undefined ? `wrk.body = ${JSON.stringify(options.body)}` : '',
      `wrk.headers["Content-Type"] = "application/json"`,
    );
  }
  if (options.request) {
    lua.push(...options.request);
  } else if (options.lines) {
    lua.push(
      'local lines = {}',
      `for line in io.lines(${JSON.stringify(options.lines.file)}) do lines[#lines + 1] = line end`,
      `local prefix = ${JSON.stringify(options.lines.prefix)}`,
      'local count = #lines',
      'math.randomseed(os.time())',
      ...(options.lines.zipf
        ? [
            // The cumulative weights 1/k, searched by bisection for each request.
            'local cumulative, total = {}, 0',
            'for k = 1, count do total = total + 1 / k; cumulative[k] = total end',
            'request = function()',
            '  local u, low, high = math.random() * total, 1, count',
            '  while low < high do',
            '    local middle = math.floor((low + high) / 2)',
            '    if cumulative[middle] < u then low = middle + 1 else high = middle end',
            '  end',
            '  return wrk.format(nil, prefix .. lines[low])',
            'end',
          ]
        : [
            'request = function()',
            '  return wrk.format(nil, prefix .. lines[math.random(count)])',
            'end',
          ]),
    );
  } else if (options.bodies && options.bodies.length > 0) {
    lua.push(
      `local bodies = { ${options.bodies.map((body) => JSON.stringify(body)).join(', ')} }`,
      'local next = 0',
      'request = function()',
      '  next = next % #bodies + 1',
      '  return wrk.format(nil, nil, nil, bodies[next])',
      'end',
    );
  } else if (options.paths && options.paths.length > 1) {
    // One wrk thread: a plain counter rotates over the paths.
    lua.push(
      `local paths = { ${options.paths.map((path) => JSON.stringify(path)).join(', ')} }`,
      'local next = 0',
      'request = function()',
      '  next = next % #paths + 1',
      '  return wrk.format(nil, paths[next])',
      'end',
    );
  }
  if (options.stopAfter !== undefined) {
    lua.push(
      'local ffi = require("ffi")',
      'ffi.cdef[[ int getpid(void); int kill(int pid, int sig); ]]',
      'local responses = 0',
      'response = function()',
      '  responses = responses + 1',
      `  if responses == ${options.stopAfter} then`,
      '    wrk.thread:stop()',
      '    ffi.C.kill(ffi.C.getpid(), 2)',
      '  end',
      'end',
    );
  }
  if (lua.length > 0) {
    const script = join(options.scriptDir, `wrk-${crypto.randomUUID()}.lua`);
    await Bun.write(script, lua.join('\n'));
    args.push('-s', script);
  }
  args.push(options.url);
  const proc = Bun.spawn(args, { stdout: 'pipe', stderr: 'pipe' });
  const [output, errorText] = await Promise.all([
    new Response(proc.stdout).text(),
    new Response(proc.stderr).text(),
  ]);
  if ((await proc.exited) !== 0) throw new Error(`wrk failed: ${errorText || output}`);
  return parseWrk(output);
}
