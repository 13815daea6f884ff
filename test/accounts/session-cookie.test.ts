import { describe, expect, test } from 'bun:test';
import { type AccountsTestApp, sqliteUnderTest } from './stores';
import { cookieOf, PASSWORD } from './support';

const HTTPS_ORIGIN = 'https://listings.example';

/** A password sign-in of a fresh account, with the headers the client chose. */
async function signInWith(ctx: AccountsTestApp, headers: Record<string, string>): Promise<string> {
  const user = await ctx.createAccount();
  const res = await ctx.request('POST', '/auth/sign-in', {
    body: { email: user.email, password: PASSWORD },
    headers,
  });
  expect(res.status).toBe(200);
  return res.headers.get('set-cookie') ?? '';
}

describe('the session cookie follows configuration, never the request', () => {
  test('https PUBLIC_ORIGIN: Secure even when the request names an http page', async () => {
    const ctx = await sqliteUnderTest.app({ env: { PUBLIC_ORIGIN: HTTPS_ORIGIN } });
    for (const origin of ['http://listings.example', 'http://localhost:3000', 'null']) {
      const cookie = await signInWith(ctx, { origin });
      expect(cookie).toStartWith('__Host-session=');
      expect(cookie).toEndWith('; Secure');
      expect(cookie).not.toContain('Domain=');
      // Signing out clears it with the same attributes.
      const out = await ctx.request('POST', '/auth/sign-out', {
        headers: { cookie: cookieOf(cookie), origin: HTTPS_ORIGIN },
      });
      expect(out.status).toBe(204);
      expect(out.headers.get('set-cookie')).toEndWith('; Max-Age=0; Secure');
    }
  });

  test('https among several origins: Secure for every page', async () => {
    const ctx = await sqliteUnderTest.app({
      env: { PUBLIC_ORIGIN: `http://localhost:3000,${HTTPS_ORIGIN}` },
    });
    expect(await signInWith(ctx, { origin: 'http://localhost:3000' })).toEndWith('; Secure');
  });

  test('http PUBLIC_ORIGIN: no Secure, whatever Origin or X-Forwarded-Proto say', async () => {
    const ctx = await sqliteUnderTest.app({ env: { TRUST_PROXY: 'true' } });
    const forged: Record<string, string>[] = [
      { origin: HTTPS_ORIGIN },
      { 'x-forwarded-proto': 'https' },
      { origin: HTTPS_ORIGIN, 'x-forwarded-proto': 'https' },
    ];
    for (const headers of forged) {
      const cookie = await signInWith(ctx, headers);
      expect(cookie).toStartWith('session=');
      expect(cookie).toEndWith('; HttpOnly; SameSite=Lax; Max-Age=604800');
    }
  });
});

describe('the __Host- name follows configuration too', () => {
  test('https PUBLIC_ORIGIN: the __Host- cookie signs the browser in; a plain `session` cookie with the same value does not', async () => {
    const ctx = await sqliteUnderTest.app({ env: { PUBLIC_ORIGIN: HTTPS_ORIGIN } });
    const cookie = await signInWith(ctx, { origin: HTTPS_ORIGIN });
    expect(cookie).toMatch(
      /^__Host-session=[^;]+; Path=\/; HttpOnly; SameSite=Lax; Max-Age=\d+; Secure$/,
    );
    const value = cookieOf(cookie).split('=').slice(1).join('=');
    const me = await ctx.request('GET', '/auth/me', {
      headers: { cookie: `__Host-session=${value}` },
    });
    expect(me.status).toBe(200);
    const plain = await ctx.request('GET', '/auth/me', { headers: { cookie: `session=${value}` } });
    expect(plain.status).toBe(401);
  });

  test('http PUBLIC_ORIGIN: the plain name, and a __Host- cookie is not read', async () => {
    const ctx = await sqliteUnderTest.app();
    const cookie = await signInWith(ctx, {});
    expect(cookie).toStartWith('session=');
    const value = cookieOf(cookie).split('=').slice(1).join('=');
    const host = await ctx.request('GET', '/auth/me', {
      headers: { cookie: `__Host-session=${value}` },
    });
    expect(host.status).toBe(401);
  });
});
