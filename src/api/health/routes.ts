import { Elysia } from 'elysia';
import { z } from 'zod';
import { isDatabaseHealthy } from '@/db/client';
import type { AppDeps } from '@/deps';
import { ServiceUnavailable } from '../errors';

export const Health = z.object({
  status: z.literal('ok'),
  database: z.literal('ok'),
  uptimeSeconds: z.number(),
});

const startedAt = performance.now();

/** Liveness and readiness: 200 once the database answers, 503 otherwise. */
export const healthRoutes = ({ db }: AppDeps) =>
  new Elysia({ name: 'health' }).get(
    '/health',
    () => {
      if (!isDatabaseHealthy(db)) throw new ServiceUnavailable();
      return {
        status: 'ok' as const,
        database: 'ok' as const,
        uptimeSeconds: Math.round((performance.now() - startedAt) / 1000),
      };
    },
    {
      response: { 200: Health },
      detail: { summary: 'Liveness and readiness', tags: ['Operations'] },
    },
  );
