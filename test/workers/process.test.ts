import { describe, expect, test } from 'bun:test';
import { join } from 'node:path';
import { TokenService } from '@/auth/tokens';
import { tempDir } from '../support/harness';

const SECRET = 'w'.repeat(48);
const root = join(import.meta.dir, '..', '..');

interface JobView {
  name: string;
  nextRunAt: string | null;
  lastRuns: { outcome: string }[];
}

/** Starts `bun src/index.ts` on a free port and reads the URL from its first log line. */
async function startService(env: Record<string, string>) {
  const proc = Bun.spawn([process.execPath, 'src/index.ts'], {
    cwd: root,
    env: {
      ...process.env,
      PORT: '0',
      HOST: '127.0.0.1',
      JWT_SECRET: SECRET,
      DATABASE_PATH: join(tempDir(), 'app.db'),
      LOG_LEVEL: 'info',
      ...env,
    },
    stdout: 'pipe',
    stderr: 'pipe',
  });
  const reader = proc.stdout.getReader();
  const decoder = new TextDecoder();
  let output = '';
  while (!/"msg":"listening"[^\n]*\n/.test(output)) {
    const { value, done } = await reader.read();
    if (done) throw new Error(`service exited: ${output}${await new Response(proc.stderr).text()}`);
    output += decoder.decode(value);
  }
  const url = /"url":"([^"]+)"/.exec(output)![1]!;
  const token = await new TokenService(SECRET).issue('ops', 'employee', 600);
  const jobs = async () => {
    const res = await fetch(`${url}/admin/jobs`, { headers: { authorization: `Bearer ${token}` } });
    return ((await res.json()) as { jobs: JobView[] }).jobs;
  };
  const rest = async () => {
    for (;;) {
      const { value, done } = await reader.read();
      if (done) return output;
      output += decoder.decode(value);
    }
  };
  return { proc, jobs, rest };
}

describe('the service process', () => {
  test('schedules the workers, runs the cache warm at start, and SIGTERM waits for them and exits 0', async () => {
    const service = await startService({});
    let jobs = await service.jobs();
    for (let i = 0; i < 50 && jobs[2]!.lastRuns.length === 0; i++) {
      await Bun.sleep(10);
      jobs = await service.jobs();
    }
    expect(jobs.map((job) => job.nextRunAt === null)).toEqual([false, false, false, false, false]);
    expect(jobs.map((job) => job.lastRuns.length)).toEqual([0, 0, 1, 0, 0]);
    service.proc.kill('SIGTERM');
    expect(await service.proc.exited).toBe(0);
    expect(await service.rest()).toContain('"msg":"stopped"');
  });

  test('WORKERS=off schedules nothing and runs nothing at start', async () => {
    const service = await startService({ WORKERS: 'off' });
    const jobs = await service.jobs();
    expect(jobs.map((job) => [job.nextRunAt, job.lastRuns.length])).toEqual([
      [null, 0],
      [null, 0],
      [null, 0],
      [null, 0],
      [null, 0],
    ]);
    service.proc.kill('SIGTERM');
    expect(await service.proc.exited).toBe(0);
  });

  test('a bad JOB_*_CRON stops start-up with one line naming the variable', async () => {
    const proc = Bun.spawn([process.execPath, 'src/index.ts'], {
      cwd: root,
      env: { ...process.env, DATABASE_PATH: ':memory:', JOB_UNIT_COUNTER_RECONCILE_CRON: 'soon' },
      stdout: 'pipe',
      stderr: 'pipe',
    });
    expect(await proc.exited).toBe(1);
    expect(await new Response(proc.stderr).text()).toBe(
      'Invalid configuration: JOB_UNIT_COUNTER_RECONCILE_CRON: not a valid cron pattern (e.g. "*/5 * * * *") (got "soon")\n',
    );
  });
});
