import type { AuditContext } from '@/audit/record';
import type { Config } from '@/config';
import { requestIdOf } from './meta';
import { clientAddressOf } from './peer';

/**
 * The facts of a request an audit event records, handed to the domain as
 * plain values: who (the caller's `sub`, null when anonymous), from where
 * (client address as the guessing protection reads it, user agent), which
 * request (its id, as logged and echoed in X-Request-Id) and when.
 */
export const auditContextOf = (
  request: Request,
  config: Pick<Config, 'trustProxy' | 'trustedProxies'>,
  at: number,
  actor: string | null = null,
): AuditContext => ({
  actor,
  ip: clientAddressOf(request, config),
  userAgent: request.headers.get('user-agent'),
  requestId: requestIdOf(request) ?? null,
  at,
});
