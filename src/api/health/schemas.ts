import { z } from 'zod';

/**
 * GET /health once every backend answers: the database (SQLite, or
 * PostgreSQL with DATABASE_URL), and Redis when REDIS_URL is set.
 */
export const Health = z.object({
  status: z.literal('ok'),
  database: z.literal('ok'),
  backends: z.object({
    sqlite: z.literal('ok').optional(),
    postgresql: z.literal('ok').optional(),
    redis: z.literal('ok').optional(),
  }),
  uptimeSeconds: z.number(),
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
