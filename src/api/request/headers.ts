export const securityHeaders = {
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
  'x-frame-options': 'DENY',
  'cross-origin-opener-policy': 'same-origin',
};

/**
 * A listed origin may send credentials (cookie, Authorization); with `*` any
 * other origin is answered `*` without credentials, so a page elsewhere
 * cannot act with the visitor's session.
 */
export function corsHeaders(origin: string | null, allowed: readonly string[]) {
  if (!origin) return undefined;
  const listed = allowed.includes(origin);
  if (!listed && !allowed.includes('*')) return undefined;
  return {
    'access-control-allow-origin': listed ? origin : '*',
    ...(listed ? { 'access-control-allow-credentials': 'true' } : {}),
    'access-control-expose-headers':
      'Location, ETag, Retry-After, RateLimit, RateLimit-Policy, X-Request-Id',
    vary: 'Origin',
  };
}
