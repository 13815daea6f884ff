export const securityHeaders = {
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
  'x-frame-options': 'DENY',
  'cross-origin-opener-policy': 'same-origin',
};

export function corsHeaders(origin: string | null, allowed: readonly string[]) {
  if (!origin || !(allowed.includes(origin) || allowed.includes('*'))) return undefined;
  return {
    'access-control-allow-origin': origin,
    'access-control-allow-credentials': 'true',
    'access-control-expose-headers':
      'Location, ETag, Retry-After, RateLimit, RateLimit-Policy, X-Request-Id',
    vary: 'Origin',
  };
}
