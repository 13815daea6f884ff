import { z } from 'zod';
import { ReplicationHealth } from '../health/schemas';

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

const RestorePoint = z.iso.datetime().meta({ description: 'RFC 3339, whole seconds' });

export const ReplicaGeneration = z.object({
  id: z.string().meta({ description: "Litestream's generation id (16 hex digits)" }),
  start: RestorePoint.meta({ description: 'The earliest instant this generation can restore' }),
  end: RestorePoint.meta({ description: 'The latest' }),
  snapshots: z
    .array(
      z.object({
        index: z.int().meta({ description: 'The WAL index it was taken at' }),
        size: z.int().meta({ description: 'Bytes, compressed' }),
        createdAt: RestorePoint,
      }),
    )
    .meta({ description: 'Newest first' }),
});

/** GET /admin/replication: what the console's Backups page shows of the replica. */
export const ReplicationOverview = z.discriminatedUnion('enabled', [
  z.object({
    enabled: z.literal(false),
    docs: z.string().meta({ description: 'Where the docs say how to turn it on' }),
  }),
  z.object({
    enabled: z.literal(true),
    replica: z
      .string()
      .meta({ description: "The replica's URL (REPLICA_URL), without a password" }),
    status: ReplicationHealth.nullable().meta({
      description:
        "As GET /health shows it; null when the server does not run under Litestream's watch",
    }),
    history: z.discriminatedUnion('listed', [
      z.object({
        listed: z.literal(true),
        listedAt: z.iso.datetime(),
        generations: z.array(ReplicaGeneration).meta({ description: 'Newest first' }),
      }),
      z.object({
        listed: z.literal(false),
        listedAt: z.iso.datetime(),
        problem: z.string().meta({ description: 'Why Litestream could not list the replica' }),
      }),
    ]),
    restoreCommand: z.string().meta({
      description:
        'The command that restores the replica at an instant, `<T>` standing for the instant (stop the server first)',
    }),
  }),
]);
