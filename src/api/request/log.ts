import type { Logger } from '@/logger';
import { requestMetaOf } from './meta';
import type { RequestMetrics } from './metrics';

/** The one log line per request, once its response is ready. */
export function logRequest(
  logger: Logger,
  request: Request,
  path: string,
  status: number,
  metrics?: RequestMetrics,
): void {
  const meta = requestMetaOf(request);
  writeRequestLine(logger, meta?.id, request.method, path, status, meta?.startedAt, metrics);
}

/** That line from its parts (the fast lane keeps them in locals). */
export function writeRequestLine(
  logger: Logger,
  requestId: string | undefined,
  method: string,
  path: string,
  status: number,
  startedAt: number | undefined,
  metrics?: RequestMetrics,
): void {
  const durationMs =
    startedAt === undefined ? undefined : Math.round((performance.now() - startedAt) * 100) / 100;
  logger.info('request', { requestId, method, path, status, durationMs });
  metrics?.observe(method, path, status, durationMs);
}
