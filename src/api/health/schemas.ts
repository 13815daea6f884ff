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
