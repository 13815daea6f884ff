import { Elysia } from 'elysia';
import type { z } from 'zod';
import type { ApiDeps } from '@/api/deps';
import { fail } from '@/kernel/errors';
import { Problem } from '../problem';
import { Health } from './schemas';

const startedAt = performance.now();

/** Liveness and readiness: 200 once every backend answers, 503 naming those that do not. */
export const healthRoutes = ({ databaseHealth, redis }: ApiDeps) =>
  new Elysia({ name: 'health' }).get(
    '/health',
    async () => {
      const down: string[] = [];
      if (!(await databaseHealth.isHealthy())) down.push(databaseHealth.name);
      if (redis && !(await redis.ping())) down.push('redis');
      if (down.length > 0) {
        throw fail('service.unavailable', { detail: `Backend unavailable: ${down.join(', ')}` });
      }
      const backends: z.infer<typeof Health>['backends'] = { [databaseHealth.name]: 'ok' };
      if (redis) backends.redis = 'ok';
      return {
        status: 'ok' as const,
        database: 'ok' as const,
        backends,
        uptimeSeconds: Math.round((performance.now() - startedAt) / 1000),
      };
    },
    {
      response: { 200: Health, 503: Problem },
      detail: { operationId: 'getHealth', summary: 'Liveness and readiness', tags: ['Operations'] },
    },
  );
