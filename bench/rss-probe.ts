/**
 * The server's resident memory through phases of traffic as they follow one
 * another in a benchmark run: the server (bench/service-command.ts) on FILE
 * (use a copy: the creates write to it) pinned to CPU 0, wrk on CPU 1, 32
 * connections, 8 s each of point reads uniform over the table, creates with
 * 1 to 30 units, reads, creates, reads, tokens/limits, reads; after each
 * phase req/s, p99, CPU a request, RSS and peak RSS (VmHWM), and at the end
 * the anonymous and file-backed parts. `ENV` adds variables to the server's
 * environment (comma-separated NAME=value).
 *
 *   bun bench/rss-probe.ts FILE [ENV]
 */
import { TokenService } from '@/auth/tokens';
import { CREATE_BODY, writePropertyIds } from './fixtures';
import { cpuSeconds, residentMb, startServer } from './reference-harness';
import { SERVICE_COMMAND } from './service-command';
import { runWrk } from './wrk';

const [path, env = ''] = Bun.argv.slice(2);
const secret = 'bench-secret-bench-secret-bench-secret-0123456789';
const token = await new TokenService(secret).issue('bench-employee', 'employee', 3600);
const server = await startServer({
  name: 'service',
  command: SERVICE_COMMAND,
  cpu: 0,
  env: {
    JWT_SECRET: secret,
    LOG_LEVEL: 'info',
    RATE_LIMIT_EMPLOYEE_PER_MINUTE: '1000000',
    RATE_LIMIT_EMPLOYEE_WRITES_PER_MINUTE: '100000000',
    DATABASE_PATH: path!,
    WORKERS: 'off',
    ...Object.fromEntries(
      env
        .split(',')
        .filter(Boolean)
        .map((kv) => kv.split('=')),
    ),
  },
  ready: '/health',
});
const ids = writePropertyIds(path!, '/tmp/rss-ids.txt');
const headers = { authorization: `Bearer ${token}`, accept: 'application/json' };
const bodies = Array.from({ length: 30 }, (_, n) =>
  JSON.stringify({ ...CREATE_BODY, totalUnits: n + 1, rentableUnits: Math.ceil((n + 1) / 2) }),
);
for (const phase of ['read', 'post', 'read', 'post', 'read', 'limits', 'read']) {
  const c0 = cpuSeconds(server.pid);
  const r = await runWrk({
    url:
      phase === 'post'
        ? `${server.base}/listings/properties`
        : phase === 'limits'
          ? `${server.base}/api/v1/tokens/limits`
          : `${server.base}/listings/properties/${ids.first}`,
    seconds: 8,
    connections: 32,
    headers,
    cpu: 1,
    scriptDir: '/tmp',
    ...(phase === 'post'
      ? { method: 'POST', bodies }
      : phase === 'read'
        ? { lines: { file: '/tmp/rss-ids.txt', prefix: '/listings/properties/' } }
        : {}),
  });
  const cpu = cpuSeconds(server.pid) - c0;
  console.log(
    `${phase} ${r.requestsPerSecond.toFixed(0)} req/s p99 ${r.p99Ms.toFixed(1)} CPU ${((cpu * 1e6) / (r.requestsPerSecond * 8)).toFixed(0)} µs RSS ${residentMb(server.pid).toFixed(0)} peak ${residentMb(server.pid, { peak: true }).toFixed(0)}`,
  );
}
const status = require('node:fs').readFileSync(`/proc/${server.pid}/status`, 'utf8');
console.log(
  status
    .split('\n')
    .filter((l: string) => /Rss|VmHWM|Threads/.test(l))
    .join(' | '),
);
server.process.kill('SIGTERM');
await server.process.exited;
