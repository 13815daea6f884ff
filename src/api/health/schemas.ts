import { z } from 'zod';

/** GET /health once the database answers. */
export const Health = z.object({
  status: z.literal('ok'),
  database: z.literal('ok'),
  uptimeSeconds: z.number(),
});
