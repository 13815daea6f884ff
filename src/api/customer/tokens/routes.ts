import { Elysia } from 'elysia';
import { z } from 'zod';
import type { ApiDeps } from '@/api/deps';
import { AUDIENCES } from '@/auth/tokens';
import { jsonResponse } from '../../json-response';
import { bearer, commonResponses, WindowRecord } from '../schemas';

export const TokenLimits = z.object({
  message: z.string(),
  rate_limits: z.object({
    audience: z.enum(AUDIENCES),
    plan: z.object({ id: z.int(), name: z.string(), slug: z.string() }),
    limits: z.array(WindowRecord),
  }),
});

export const TOKEN_LIMITS_MESSAGE = 'Rate limits retrieved successfully.';

/** GET /api/v1/tokens/limits: the caller's plan and the usage of every active window. */
export const tokenRoutes = ({ auth, limiter }: ApiDeps) =>
  new Elysia({ name: 'customer-tokens' }).use(auth).get(
    '/tokens/limits',
    async ({ identity }) =>
      jsonResponse({
        message: TOKEN_LIMITS_MESSAGE,
        rate_limits: await limiter.report(identity),
      }),
    {
      auth: 'any',
      response: { 200: TokenLimits, ...commonResponses },
      detail: {
        summary: "The token owner's plan and current rate-limit usage (does not consume quota)",
        tags: ['Customer API'],
        security: bearer,
      },
    },
  );
