import type { Logger } from '@/logger';
import { requestMetaOf } from './meta';

/** The one log line per request, once its response is ready. */
export function logRequest(logger: Logger, request: Request, path: string, status: number): void {
  const meta = requestMetaOf(request);
  writeRequestLine(logger, meta?.id, request.method, path, status, meta?.startedAt);
}

/** That line from its parts (the fast lane keeps them in locals). */
export function writeRequestLine(
  logger: Logger,
  requestId: string | undefined,
  method: string,
  path: string,
  status: number,
  startedAt: number | undefined,
): void {
  const durationMs =
    startedAt === undefined ? undefined : Math.round((performance.now() - startedAt) * 100) / 100;
  logger.info('request', { requestId, method, path, status, durationMs });
}
