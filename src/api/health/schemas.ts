import { z } from 'zod';

/** The replication of the SQLite file by Litestream, as its last figures showed it. */
export const ReplicationHealth = z
  .object({
    replica: z
      .string()
      .meta({ description: "The replica's URL (REPLICA_URL), without a password" }),
    state: z.enum(['ok', 'degraded']).meta({
      description:
        '`degraded`: no sync for REPLICA_MAX_LAG while writes wait to be shipped, or no figures from Litestream for as long',
    }),
    lastSyncAt: z.iso.datetime().nullable().meta({
      description:
        'When the replica last advanced or was seen caught up with the local WAL; null: not yet since the server started',
    }),
    lastSyncAgeSeconds: z.number().meta({
      description: 'Seconds since `lastSyncAt`, or since the server started when it is null',
    }),
    lagBytes: z.int().nullable().meta({
      description:
        'WAL bytes Litestream has copied aside and not yet shipped; null until its figures were read',
    }),
    lagSeconds: z.number().nullable().meta({
      description:
        'How long ago the oldest write waiting to be shipped was copied aside, to about a second; 0 when nothing waits; null until its figures were read',
    }),
    syncErrors: z
      .int()
      .meta({ description: "Litestream's failed syncs of the database since it started" }),
    lastError: z.string().nullable().meta({ description: 'The last problem seen, or null' }),
  })
  .meta({ description: 'Present only when the server runs under Litestream (REPLICA_URL)' });

const VolumeName = z.enum(['database', 'backups', 'replica']).meta({
  description:
    'The file system of the SQLite file (and its WAL), of BACKUP_DIR, or of a `file://` REPLICA_URL',
});

/** One watched file system as the last reading (every 2 s) found it. */
const VolumeHealth = z.object({
  name: VolumeName,
  freeBytes: z.int().nullable().meta({ description: 'Bytes free; null when unreadable' }),
  totalBytes: z.int().nullable(),
  writable: z.boolean().meta({ description: 'False when the file system is read-only' }),
});

/** The disks the service writes to: free space, and writes refused for want of it. */
export const DiskHealth = z
  .object({
    state: z.enum(['ok', 'low']).meta({
      description: '`low`: a watched file system has less free space than DISK_FREE_THRESHOLD_MB',
    }),
    thresholdBytes: z.int(),
    volumes: z.array(VolumeHealth).meta({
      description:
        'None on PostgreSQL: its storage is the server’s, and its disk-full errors still answer 507',
    }),
    refusedWrites: z.int().meta({
      description: 'Writes answered 507 (storage full or read-only) since the server started',
    }),
    lastRefusalAt: z.iso.datetime().nullable(),
  })
  .meta({
    description: 'While writes are refused, /health answers 503 instead (docs/operations.md)',
  });

/**
 * GET /health once every backend answers: the database (SQLite, or
 * PostgreSQL with DATABASE_URL), and Redis when REDIS_URL is set. A lagging
 * replica makes it `degraded`, still 200: the instance serves, and a
 * container's health check must not restart it for a replica target that is down.
 */
export const Health = z.object({
  status: z.enum(['ok', 'degraded']).meta({
    description:
      '`degraded`: the instance serves, but the replication is degraded (`replication`) or free disk space is under the threshold (`disk`)',
  }),
  database: z.literal('ok'),
  backends: z.object({
    sqlite: z.literal('ok').optional(),
    postgresql: z.literal('ok').optional(),
    redis: z.literal('ok').optional(),
  }),
  uptimeSeconds: z.number(),
  replication: ReplicationHealth.optional(),
  disk: DiskHealth,
});

/** GET /admin/status: what the console's Overview shows beside its plots. */
export const ServiceStatus = z.object({
  backends: z.array(
    z.object({
      name: z.enum(['sqlite', 'postgresql', 'redis']),
      state: z.enum(['ok', 'down']),
    }),
  ),
  database: z.object({
    sizeBytes: z
      .int()
      .nullable()
      .meta({ description: 'The SQLite file, or the PostgreSQL database; null when unreadable' }),
    walSizeBytes: z.int().nullable().meta({
      description: "The SQLite write-ahead log; null on PostgreSQL (its WAL is the server's)",
    }),
  }),
  disk: z.object({
    state: z.enum(['ok', 'low', 'refusing']).meta({
      description:
        '`refusing`: the database refuses writes (storage full or read-only; they answer 507)',
    }),
    thresholdBytes: z.int(),
    volumes: z.array(VolumeHealth.extend({ path: z.string() })),
    refusedWrites: z.int(),
    lastRefusal: z
      .object({ at: z.iso.datetime(), reason: z.enum(['full', 'read-only']) })
      .nullable(),
    lastSkip: z
      .object({ job: z.string(), at: z.iso.datetime(), reason: z.string() })
      .nullable()
      .meta({
        description: 'The last time a job of the service skipped a write to keep the disk free',
      }),
  }),
  instance: z.string().meta({ description: 'The name of the instance that answered' }),
  instances: z.object({
    live: z.int().meta({
      description:
        'Instances sharing Redis at the last heartbeat (scale-out mode); 1 without Redis',
    }),
    seen: z.array(z.string()).meta({
      description: 'Instances that wrote usage figures in the last `seenMinutes`, by name',
    }),
    seenMinutes: z.int(),
  }),
});
