import { z } from 'zod';

/** GET /health once every backend answers: SQLite, and Redis when REDIS_URL is set. */
export const Health = z.object({
  status: z.literal('ok'),
  database: z.literal('ok'),
  backends: z.object({ sqlite: z.literal('ok'), redis: z.literal('ok').optional() }),
  uptimeSeconds: z.number(),
});
