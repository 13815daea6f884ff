import { describe, expect, test } from 'bun:test';
import { join } from 'node:path';
import { TokenService } from '@/auth/tokens';
import { spawnService } from '../support/service-process';

const SECRET = 'w'.repeat(48);
const root = join(import.meta.dir, '..', '..');

interface JobView {
  name: string;
  nextRunAt: string | null;
  lastRuns: { outcome: string }[];
}

/** The service process with this file's secret, and its job list. */
async function startService(env: Record<string, string>) {
  const service = await spawnService({ JWT_SECRET: SECRET, ...env });
  const token = await new TokenService(SECRET).issue('ops', 'employee', 600);
  const jobs = async () => {
    const res = await fetch(`${service.url}/admin/jobs`, {
      headers: { authorization: `Bearer ${token}` },
    });
    return ((await res.json()) as { jobs: JobView[] }).jobs;
  };
  return { ...service, jobs };
}

describe('the service process', () => {
  test('schedules the workers, runs the cache warm and the mail delivery at start, and SIGTERM waits for them and exits 0', async () => {
    // The every-10-seconds delivery jobs could run during the test: moved to once a year.
    const service = await startService({
      JOB_WEBHOOK_DELIVERY_CRON: '0 0 1 1 *',
      JOB_MAIL_DELIVERY_CRON: '0 0 1 1 *',
    });
    let jobs = await service.jobs();
    const startRuns = () => jobs[2]!.lastRuns.length + jobs[5]!.lastRuns.length;
    for (let i = 0; i < 50 && startRuns() < 2; i++) {
      await Bun.sleep(10);
      jobs = await service.jobs();
    }
    expect(jobs.map((job) => job.nextRunAt === null)).toEqual(Array(8).fill(false));
    expect(jobs.map((job) => job.lastRuns.length)).toEqual([0, 0, 1, 0, 0, 1, 0, 0]);
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
