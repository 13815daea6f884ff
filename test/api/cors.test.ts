import { describe, expect, test } from 'bun:test';
import { createTestApp } from '../support/harness';

const preflight = (ctx: ReturnType<typeof createTestApp>, origin: string) =>
  ctx.request('OPTIONS', '/listings/properties', {
    headers: {
      origin,
      'access-control-request-method': 'POST',
      'access-control-request-headers': 'authorization, content-type',
    },
  });

const simple = (ctx: ReturnType<typeof createTestApp>, origin: string) =>
  ctx.request('GET', '/health', { headers: { origin } });

const corsOf = (headers: Headers) => ({
  origin: headers.get('access-control-allow-origin'),
  credentials: headers.get('access-control-allow-credentials'),
  vary: headers.get('vary'),
});

describe('CORS_ORIGINS=*', () => {
  const ctx = createTestApp({ env: { CORS_ORIGINS: '*' } });

  test('a preflight from any origin is answered `*` without credentials', async () => {
    const res = await preflight(ctx, 'https://anywhere.test');
    expect(res.status).toBe(204);
    expect(corsOf(res.headers)).toEqual({ origin: '*', credentials: null, vary: 'Origin' });
    expect(res.headers.get('access-control-allow-methods')).toBe('GET, POST, PUT, PATCH, DELETE');
  });

  test('a simple request from any origin is answered `*` without credentials', async () => {
    const res = await simple(ctx, 'https://anywhere.test');
    expect(res.status).toBe(200);
    expect(corsOf(res.headers)).toEqual({ origin: '*', credentials: null, vary: 'Origin' });
  });

  test('a fast-lane read too', async () => {
    const res = await ctx.request('GET', '/listings/properties/unknown-id', {
      headers: { origin: 'https://anywhere.test' },
    });
    expect(res.status).toBe(404);
    expect(corsOf(res.headers)).toEqual({ origin: '*', credentials: null, vary: 'Origin' });
  });
});

describe('listed origins', () => {
  const ctx = createTestApp({ env: { CORS_ORIGINS: 'https://app.test, *' } });

  test('a listed origin is reflected with credentials (preflight and simple request)', async () => {
    const expected = { origin: 'https://app.test', credentials: 'true', vary: 'Origin' };
    const res = await preflight(ctx, 'https://app.test');
    expect(res.status).toBe(204);
    expect(corsOf(res.headers)).toEqual(expected);
    expect(corsOf((await simple(ctx, 'https://app.test')).headers)).toEqual(expected);
  });

  test('beside `*`, any other origin still gets no credentials', async () => {
    const expected = { origin: '*', credentials: null, vary: 'Origin' };
    expect(corsOf((await preflight(ctx, 'https://evil.test')).headers)).toEqual(expected);
    expect(corsOf((await simple(ctx, 'https://evil.test')).headers)).toEqual(expected);
  });

  test('without `*`, an unlisted origin gets no CORS headers at all', async () => {
    const strict = createTestApp({ env: { CORS_ORIGINS: 'https://app.test' } });
    const expected = { origin: null, credentials: null, vary: null };
    expect(corsOf((await simple(strict, 'https://evil.test')).headers)).toEqual(expected);
    const res = await preflight(strict, 'https://evil.test');
    expect(corsOf(res.headers)).toEqual(expected);
    expect(res.headers.get('access-control-allow-methods')).toBeNull();
  });
});
