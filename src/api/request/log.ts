import type { Logger } from '@/logger';
import { requestMetaOf } from './meta';
import type { RequestMetrics } from './metrics';

const durationSince = (startedAt: number) =>
  Math.round((performance.now() - startedAt) * 100) / 100;

/** The one log line per request, once its response is ready. */
export function logRequest(
  logger: Logger,
  request: Request,
  path: string,
  status: number,
  metrics?: RequestMetrics,
): void {
  const meta = requestMetaOf(request);
  const durationMs = meta?.startedAt === undefined ? undefined : durationSince(meta.startedAt);
  const { method } = request;
  logger.info('request', { requestId: meta?.id, method, path, status, durationMs });
  metrics?.observe(method, path, status, durationMs);
}

/**
 * That line for a GET the fast lane answered, from the parts it keeps in
 * locals; `routePath` (`FastRoute.routePath`) stands for its route in the
 * metrics, else the path itself is resolved.
 */
export function logFastRequest(
  logger: Logger,
  requestId: string,
  path: string,
  routePath: string | undefined,
  status: number,
  startedAt: number,
  metrics?: RequestMetrics,
): void {
  const durationMs = durationSince(startedAt);
  logger.info('request', { requestId, method: 'GET', path, status, durationMs });
  if (routePath === undefined) metrics?.observe('GET', path, status, durationMs);
  else metrics?.observeRoute('GET', routePath, status, durationMs);
}
