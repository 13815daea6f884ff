import type { AuditContext } from '@/audit/record';
import type { Config } from '@/config';
import { limiterKeyOf } from '@/kernel/addresses';
import { requestIdOf } from './meta';
import { clientAddressOf } from './peer';

/**
 * The facts of a request an audit event records, handed to the domain as
 * plain values: who (the caller's `sub`, null when anonymous), from where
 * (the client's full address, the key the per-address limits count it by
 * as `limitAddressOf` derives it, user agent), which request (its id, as
 * logged and echoed in X-Request-Id) and when.
 */
export const auditContextOf = (
  request: Request,
  config: Pick<Config, 'trustProxy' | 'trustedProxies' | 'ipv6LimitPrefix'>,
  at: number,
  actor: string | null = null,
): AuditContext => {
  const ip = clientAddressOf(request, config);
  return {
    actor,
    ip,
    limitAddress: limiterKeyOf(ip, config.ipv6LimitPrefix),
    userAgent: request.headers.get('user-agent'),
    requestId: requestIdOf(request) ?? null,
    at,
  };
};
