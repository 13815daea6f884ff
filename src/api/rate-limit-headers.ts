import type { Quota } from '@/rate-limit/records';

const NONE: Readonly<Record<string, string>> = Object.freeze({});

/**
 * The rate-limit headers of a count (draft-ietf-httpapi-ratelimit-headers):
 * RateLimit-Policy lists every window; RateLimit and X-RateLimit-* describe
 * the window closest to refusing. None for a request nothing counted.
 */
export function rateLimitHeaders(quota: Quota | undefined): Readonly<Record<string, string>> {
  if (!quota) return NONE;
  const { policy, limit, remaining } = quota;
  let windows = `${policy[0]!.limit};w=${policy[0]!.seconds}`;
  for (let i = 1; i < policy.length; i++)
    windows += `, ${policy[i]!.limit};w=${policy[i]!.seconds}`;
  return {
    'ratelimit-policy': windows,
    ratelimit: `limit=${limit}, remaining=${remaining}, reset=${quota.resetInSeconds}`,
    'x-ratelimit-limit': String(limit),
    'x-ratelimit-remaining': String(remaining),
    'x-ratelimit-reset': String(quota.resetAt),
  };
}
