import { expect, test } from 'bun:test';
import { JobList, JobRunResult } from '@/api/admin/schemas';
import { AuditPage } from '@/audit/schemas';
import { RUNS_SHOWN_PER_JOB } from '@/workers/scheduler';
import { storesUnderTest } from '../events/stores';
import { expectCustomerRefused } from '../support/auth-guards';
import { manualClock } from '../support/harness';

const START = Date.UTC(2026, 4, 1, 8, 30, 0, 250);

for (const store of storesUnderTest()) {
  store.describe('job runs on the job run store', () => {
    test('happy: POST /admin/jobs/{name}/run records the run, its audit event; GET /admin/jobs shows it', async () => {
      const clock = manualClock(START);
      const app = await store.app({ clock });
      const token = await app.tokenFor('ops', 'employee');
      const res = await app.request('POST', '/admin/jobs/audit-retention/run', { token });
      expect(res.status).toBe(200);
      const { job: _, ...run } = JobRunResult.parse(res.body);
      expect(run).toEqual({
        startedAt: new Date(START).toISOString(),
        finishedAt: new Date(START).toISOString(),
        outcome: 'succeeded',
        details: { deleted: 0, countersDeleted: 0, before: expect.any(String) },
      });
      const list = JobList.parse((await app.request('GET', '/admin/jobs', { token })).body);
      expect(list.jobs.find((job) => job.name === 'audit-retention')!.lastRuns).toEqual([run]);
      expect(list.jobs.filter((job) => job.lastRuns.length > 0)).toHaveLength(1);
      const audit = AuditPage.parse((await app.request('GET', '/admin/audit', { token })).body);
      expect(audit.events.map((event) => [event.action, event.actor, event.target])).toEqual([
        ['job.run', 'ops', 'audit-retention'],
      ]);
    });

    test(`happy: the newest ${RUNS_SHOWN_PER_JOB} runs of a job, newest first`, async () => {
      const clock = manualClock(START);
      const app = await store.app({ clock });
      const token = await app.tokenFor('ops', 'employee');
      for (let i = 0; i < RUNS_SHOWN_PER_JOB + 2; i++) {
        clock.advance(1000);
        expect((await app.request('POST', '/admin/jobs/events-prune/run', { token })).status).toBe(
          200,
        );
      }
      const list = JobList.parse((await app.request('GET', '/admin/jobs', { token })).body);
      const runs = list.jobs.find((job) => job.name === 'events-prune')!.lastRuns;
      expect(runs).toHaveLength(RUNS_SHOWN_PER_JOB);
      expect(runs[0]!.startedAt).toBe(new Date(clock()).toISOString());
      expect(runs.at(-1)!.startedAt).toBe(new Date(START + 3000).toISOString());
    });

    test('error: an unknown job is a 404; auth: a customer is a 403', async () => {
      const app = await store.app();
      const staff = await app.tokenFor('ops', 'employee');
      const unknown = await app.request('POST', '/admin/jobs/nothing/run', { token: staff });
      expect(unknown.status).toBe(404);
      await expectCustomerRefused(app, ['GET /admin/jobs']);
    });
  });
}
