import { describe, expect, test } from 'bun:test';
import { Elysia } from 'elysia';
import { SignJWT } from 'jose';
import { z } from 'zod';
import { parseDuration } from '@/auth/tokens';
import { createTestApp, problemOf } from '../support/harness';

const ctx = createTestApp({
  extraRoutes: ({ auth }) =>
    new Elysia()
      .use(auth)
      .get('/listings/probe/any', ({ caller }) => caller, { auth: 'any' })
      .get('/listings/probe/employee', ({ caller }) => caller, { auth: 'employee' })
      .get('/listings/probe/optional', ({ caller }) => ({ caller }), { optionalAuth: true }),
});

const key = (secret: string) => new TextEncoder().encode(secret);
const now = () => Math.floor(ctx.clock() / 1000);

async function sign(
  claims: Record<string, unknown>,
  options: { secret?: string; alg?: string } = {},
): Promise<string> {
  return new SignJWT(claims)
    .setProtectedHeader({ alg: options.alg ?? 'HS256' })
    .sign(key(options.secret ?? ctx.config.jwtSecret));
}

const base64url = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');

describe('bearer tokens (HS256 JWT with sub, aud, exp)', () => {
  test('a valid customer token resolves the caller', async () => {
    const res = await ctx.request('GET', '/listings/probe/any', {
      token: await ctx.tokenFor('owner-1', 'customer'),
    });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ sub: 'owner-1', aud: 'customer', via: 'bearer' });
  });

  const attacks: [string, () => Promise<Record<string, string>>][] = [
    ['missing', async () => ({})],
    ['not a bearer header', async () => ({ authorization: 'Basic abc' })],
    ['malformed', async () => ({ authorization: 'Bearer not.a.jwt' })],
    [
      'expired',
      async () => ({
        authorization: `Bearer ${await sign({ sub: 'u', aud: 'customer', exp: now() - 3600 })}`,
      }),
    ],
    [
      'wrong secret',
      async () => ({
        authorization: `Bearer ${await sign(
          { sub: 'u', aud: 'customer', exp: now() + 3600 },
          { secret: 'another-secret-another-secret-another' },
        )}`,
      }),
    ],
    [
      'alg none',
      async () => ({
        authorization: `Bearer ${base64url({ alg: 'none', typ: 'JWT' })}.${base64url({
          sub: 'u',
          aud: 'employee',
          exp: now() + 3600,
        })}.`,
      }),
    ],
    [
      'HS512 instead of the pinned HS256',
      async () => ({
        authorization: `Bearer ${await sign({ sub: 'u', aud: 'customer', exp: now() + 3600 }, { alg: 'HS512' })}`,
      }),
    ],
    [
      'wrong audience',
      async () => ({
        authorization: `Bearer ${await sign({ sub: 'u', aud: 'admin', exp: now() + 3600 })}`,
      }),
    ],
    [
      'no exp',
      async () => ({ authorization: `Bearer ${await sign({ sub: 'u', aud: 'customer' })}` }),
    ],
    [
      'not yet valid (nbf in the future)',
      async () => ({
        authorization: `Bearer ${await sign({ sub: 'u', aud: 'customer', exp: now() + 7200, nbf: now() + 3600 })}`,
      }),
    ],
    [
      'tampered payload',
      async () => {
        const [header, , signature] = (await ctx.tokenFor('u', 'customer')).split('.');
        const forged = base64url({ sub: 'u', aud: 'employee', exp: now() + 3600 });
        return { authorization: `Bearer ${header}.${forged}.${signature}` };
      },
    ],
  ];

  test.each(attacks)('%s → 401 with the fixed problem body', async (_name, headers) => {
    const res = await ctx.request('GET', '/listings/probe/any', { headers: await headers() });
    expect(res.status).toBe(401);
    expect(res.body).toEqual(problemOf(401));
    expect(problemOf(401)).toEqual({
      type: 'http://www.w3.org/Protocols/rfc2616/rfc2616-sec10.html',
      title: 'Unauthorized',
      status: 401,
      detail: 'Unauthorized user',
    });
  });

  test('a customer on an employee route → 403', async () => {
    const res = await ctx.request('GET', '/listings/probe/employee', {
      token: await ctx.tokenFor('u', 'customer'),
    });
    expect(res.status).toBe(403);
    expect(res.body).toEqual(problemOf(403));
  });

  test('optional auth: anonymous passes, an invalid token is still 401', async () => {
    const anonymous = await ctx.request('GET', '/listings/probe/optional');
    expect(anonymous.status).toBe(200);
    expect(anonymous.body).toEqual({ caller: null });
    const invalid = await ctx.request('GET', '/listings/probe/optional', { token: 'a.b.c' });
    expect(invalid.status).toBe(401);
  });

  test('a session cookie that is not valid percent-encoding is no credential, not a 500', async () => {
    // Found by the fuzzer (test/slow/fuzz.slow.ts): decodeURIComponent threw.
    const res = await ctx.request('GET', '/listings/probe/any', {
      headers: { cookie: 'session=%zz; other=1' },
    });
    expect(res.status).toBe(401);
    expect(res.body).toEqual(problemOf(401));
  });

  test('a token expires with the injected clock', async () => {
    const token = await ctx.tokenFor('u', 'customer', 60);
    expect((await ctx.request('GET', '/listings/probe/any', { token })).status).toBe(200);
    ctx.clock.advance(60_000 + 31_000);
    expect((await ctx.request('GET', '/listings/probe/any', { token })).status).toBe(401);
  });
});

test('parseDuration', () => {
  expect(parseDuration('90')).toBe(90);
  expect(parseDuration('15m')).toBe(900);
  expect(parseDuration('1h')).toBe(3600);
  expect(parseDuration('7d')).toBe(604800);
  expect(parseDuration('0')).toBeNull();
  expect(parseDuration('soon')).toBeNull();
});

test('credentials are checked before the body: 401/403 come before 400', async () => {
  const local = createTestApp({
    extraRoutes: ({ auth }) =>
      new Elysia().use(auth).post('/listings/probe/strict', ({ body }) => body, {
        auth: 'employee',
        body: z.object({ name: z.string() }),
      }),
  });
  const bad = { body: { name: 7 } };
  expect((await local.request('POST', '/listings/probe/strict', bad)).status).toBe(401);
  const customer = await local.tokenFor('c', 'customer');
  expect(
    (await local.request('POST', '/listings/probe/strict', { ...bad, token: customer })).status,
  ).toBe(403);
  const employee = await local.tokenFor('e', 'employee');
  expect(
    (await local.request('POST', '/listings/probe/strict', { ...bad, token: employee })).status,
  ).toBe(400);
});
