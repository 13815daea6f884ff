import { z } from 'zod';

export const JobRun = z.object({
  startedAt: z.iso.datetime(),
  finishedAt: z.iso.datetime(),
  outcome: z.enum(['succeeded', 'failed']),
  /** Figures the job returned, or `{error}` with the failure message. */
  details: z.record(z.string(), z.unknown()),
});

export const JobStatus = z.object({
  name: z.string(),
  schedule: z.string(),
  nextRunAt: z.iso.datetime().nullable(),
  lastRuns: z.array(JobRun),
});

export const JobList = z.object({ jobs: z.array(JobStatus) });

export const JobRunResult = JobRun.extend({ job: z.string() });

export const JobParams = z.object({ name: z.string() });
