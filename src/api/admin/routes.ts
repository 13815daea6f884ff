import { Elysia } from 'elysia';
import type { ApiDeps } from '@/api/deps';
import { unknownJob } from '@/workers/scheduler';
import { Problem } from '../problem';
import { backupRoutes } from './backups';
import { JobList, JobParams, JobRunResult } from './schemas';
import { adminUserRoutes } from './users';

/** Operator endpoints at /admin (employee only): the worker jobs, account creation and the backups. */
export const adminRoutes = (deps: ApiDeps) => {
  const { auth, jobs } = deps;
  return new Elysia({ name: 'admin', prefix: '/admin' })
    .use(auth)
    .use(adminUserRoutes(deps))
    .use(backupRoutes(deps))
    .get('/jobs', () => ({ jobs: jobs?.status() ?? [] }), {
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
      async ({ params: { name } }) => {
        if (!jobs) throw unknownJob(name);
        return { job: name, ...(await jobs.runNow(name)) };
      },
      {
        auth: 'employee',
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
