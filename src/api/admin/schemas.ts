import { z } from 'zod';

export const JobRun = z.object({
  startedAt: z.iso.datetime(),
  finishedAt: z.iso.datetime(),
  outcome: z.enum(['succeeded', 'failed']),
  /** Figures the job returned, or `{error}` with the failure message. */
  details: z.record(z.string(), z.unknown()),
  /** With shared leadership (REDIS_URL): the instance that ran it. */
  instance: z.string().optional(),
  /** With shared leadership: the schedule tick it ran for; absent for a run on demand. */
  tick: z.iso.datetime().optional(),
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

export const BackupEntry = z.object({
  name: z.string().describe('backup-<UTC instant>[-pre-upgrade][-n].db.gz'),
  size: z.int().describe('bytes, compressed'),
  createdAt: z.iso.datetime(),
});

export const BackupList = z.object({
  backups: z.array(BackupEntry).describe('Newest first'),
});

export const BackupParams = z.object({ name: z.string() });
