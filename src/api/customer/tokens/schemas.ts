import { z } from 'zod';
import { AUDIENCES } from '@/auth/tokens';
import { WindowRecord } from '../schemas';

/** GET /api/v1/tokens/limits: the caller's plan and the usage of every active window. */
export const TokenLimits = z.object({
  message: z.string(),
  rate_limits: z.object({
    audience: z.enum(AUDIENCES),
    plan: z.object({ id: z.int(), name: z.string(), slug: z.string() }),
    limits: z.array(WindowRecord),
  }),
});
export type TokenLimits = z.infer<typeof TokenLimits>;
