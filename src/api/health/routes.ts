import { Elysia } from 'elysia';
import type { ApiDeps } from '@/api/deps';
import { isDatabaseHealthy } from '@/db/client';
import { fail } from '@/kernel/errors';
import { Problem } from '../problem';
import { Health } from './schemas';

const startedAt = performance.now();

/** Liveness and readiness: 200 once the database answers, 503 otherwise. */
export const healthRoutes = ({ db }: ApiDeps) =>
  new Elysia({ name: 'health' }).get(
    '/health',
    () => {
      if (!isDatabaseHealthy(db)) throw fail('service.unavailable');
      return {
        status: 'ok' as const,
        database: 'ok' as const,
        uptimeSeconds: Math.round((performance.now() - startedAt) / 1000),
      };
    },
    {
      response: { 200: Health, 503: Problem },
      detail: { operationId: 'getHealth', summary: 'Liveness and readiness', tags: ['Operations'] },
    },
  );
