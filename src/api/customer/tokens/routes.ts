import { Elysia } from 'elysia';
import type { ApiDeps } from '@/api/deps';
import { responseOf } from '../../answer';
import { tokenLimitsAnswer } from '../reads';
import { commonResponses } from '../schemas';
import { TokenLimits } from './schemas';

/** GET /api/v1/tokens/limits: the caller's plan and the usage of every active window. */
export const tokenRoutes = ({ auth, limiter }: ApiDeps) =>
  new Elysia({ name: 'customer-tokens' })
    .use(auth)
    .get(
      '/tokens/limits',
      async ({ caller }) => responseOf(await tokenLimitsAnswer(limiter, caller)),
      {
        auth: 'any',
        response: { 200: TokenLimits, ...commonResponses },
        detail: {
          operationId: 'getTokenLimits',
          summary: "The token owner's plan and current rate-limit usage (does not consume quota)",
          tags: ['Customer API'],
        },
      },
    );
