/**
 * Authorization header values a careful server refuses: no scheme, other
 * schemes, `alg: none`, another key, RS/HS confusion, a tampered payload,
 * expired or not yet valid, missing or odd claims, oversized.
 */
import { createHmac } from 'node:crypto';

const b64 = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');

/** HS256 by hand: a JOSE library refuses to sign the odd headers and claims tried here. */
function signed(
  secret: string,
  claims: Record<string, unknown>,
  header: Record<string, unknown> = {},
) {
  const input = `${b64({ alg: 'HS256', typ: 'JWT', ...header })}.${b64(claims)}`;
  return `${input}.${createHmac('sha256', secret).update(input).digest('base64url')}`;
}

export interface ForgeOptions {
  /** A valid token (employee), to tamper with. */
  valid: string;
  /** The service's HS256 secret, to sign tokens whose claims are wrong. */
  secret: string;
  /** Seconds since the epoch on the service's clock. */
  nowSeconds: number;
}

export function forgeAuthorizations({ valid, secret, nowSeconds }: ForgeOptions): string[] {
  const [header, payload] = valid.split('.') as [string, string, string];
  const claims = JSON.parse(Buffer.from(payload, 'base64url').toString()) as Record<
    string,
    unknown
  >;
  const base = {
    sub: String(claims.sub),
    aud: 'employee',
    iat: nowSeconds,
    exp: nowSeconds + 3600,
  };
  const tokens = [
    `${b64({ alg: 'none', typ: 'JWT' })}.${b64(base)}.`,
    `${b64({ alg: 'None' })}.${b64(base)}.`,
    `${b64({ alg: 'RS256', typ: 'JWT' })}.${payload}.${valid.split('.')[2]}`,
    `${header}.${b64({ ...claims, aud: 'employee', sub: 'someone-else' })}.${valid.split('.')[2]}`,
    signed('another-secret-another-secret-another!', base),
    signed(secret, { ...base, exp: nowSeconds - 3600 }),
    signed(secret, { ...base, nbf: nowSeconds + 3600 }),
    signed(secret, { sub: base.sub, aud: 'employee', iat: nowSeconds }),
    signed(secret, { ...base, aud: 'admin' }),
    signed(secret, { ...base, aud: ['customer', 'employee'] }),
    signed(secret, { ...base, sub: '' }),
    signed(secret, { ...base, sub: 12345 }),
    signed(secret, { ...base, exp: 'tomorrow' }),
    signed(secret, { ...base, exp: 1e308 }),
    signed(secret, { ...base, sub: 'x'.repeat(5000) }),
    signed(secret, base, { alg: 'HS256', kid: '../../../../dev/null', crit: ['exp'] }),
    'a.b.c',
    '....',
    'eyJhbGciOiJIUzI1NiJ9.e30.',
    'x'.repeat(10_000),
  ];
  return [
    ...tokens.map((token) => `Bearer ${token}`),
    'Bearer',
    'Bearer ',
    `Bearer ${valid} extra`,
    `Bearer ${valid}.`,
    `Token ${valid}`,
    `Basic ${Buffer.from('admin:admin').toString('base64')}`,
    valid,
    '',
  ];
}
