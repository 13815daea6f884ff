import { Elysia } from 'elysia';
import { adminUserRoutes } from '@/api/accounts/admin-routes';
import { auditRoutes } from '@/api/audit/routes';
import { backupRoutes } from '@/api/backups/routes';
import type { ApiDeps } from '@/api/deps';
import { mailOutboxRoutes } from '@/api/mail/routes';
import { replicationRoutes } from '@/api/replication/routes';
import { auditContextOf } from '@/api/request/audit';
import { webhookSummaryRoutes } from '@/api/webhooks/summary-routes';
import { whenReady } from '@/kernel/maybe-promise';
import { unknownJob } from '@/workers/scheduler';
import { Problem } from '../problem';
import { JobList, JobParams, JobRunResult } from './schemas';

/** Operator endpoints at /admin (employee only): the worker jobs, account creation and the backups. */
export const adminRoutes = (deps: ApiDeps) => {
  const {
    auth,
    writes,
    jobs,
    stores: { audit },
    clock,
    config,
  } = deps;
  return new Elysia({ name: 'admin', prefix: '/admin' })
    .use(auth)
    .use(writes)
    .use(adminUserRoutes(deps))
    .use(backupRoutes(deps))
    .use(replicationRoutes(deps))
    .use(auditRoutes(deps))
    .use(webhookSummaryRoutes(deps))
    .use(mailOutboxRoutes(deps))
    .get('/jobs', () => whenReady(jobs?.status() ?? [], (list) => ({ jobs: list })), {
      auth: 'employee',
      response: { 200: JobList },
      detail: {
        operationId: 'listJobs',
        summary: "Worker jobs: each one's schedule, next run and last 20 runs",
        tags: ['Admin'],
      },
    })
    .post(
      '/jobs/:name/run',
      async ({ params: { name }, caller, request }) => {
        if (!jobs) throw unknownJob(name);
        const run = await jobs.runNow(name);
        // Recorded once the run has finished (a run the scheduler refused records nothing).
        const context = auditContextOf(request, config, clock(), caller.sub);
        const details = { outcome: run.outcome, startedAt: run.startedAt };
        await audit.record(context, { action: 'job.run', target: name, details });
        return { job: name, ...run };
      },
      {
        auth: 'employee',
        writes: 1,
        params: JobParams,
        response: { 200: JobRunResult, 404: Problem, 409: Problem, 503: Problem },
        detail: {
          operationId: 'runJob',
          summary: 'Run a job now and answer its run record once it has finished',
          description:
            '404 for an unknown job, 409 while the job is running (scheduled or manual), 503 during shutdown. A job that fails still answers 200 with outcome "failed".',
          tags: ['Admin'],
        },
      },
    );
};
