import { describe, expect, test } from 'bun:test';
import { exportSPKI, generateKeyPair, SignJWT } from 'jose';
import { createTestApp, problemOf } from '../support/harness';

/**
 * The token attacks test/auth/tokens.test.ts leaves out: HS/RS
 * algorithm confusion and the edges of the tolerated clock skew.
 */
const ctx = createTestApp();
const now = () => Math.floor(ctx.clock() / 1000);
const claims = (extra: Record<string, unknown> = {}) => ({
  sub: 'employee-1',
  aud: 'employee',
  exp: now() + 3600,
  ...extra,
});
const hs256 = (payload: Record<string, unknown>, secret: Uint8Array) =>
  new SignJWT(payload).setProtectedHeader({ alg: 'HS256' }).sign(secret);
const secret = new TextEncoder().encode(ctx.config.jwtSecret);

const list = (token: string) => ctx.request('GET', '/listings/properties', { token });

describe('algorithm confusion → 401', () => {
  test('RS256 and ES256 tokens signed with the attacker’s own key', async () => {
    for (const alg of ['RS256', 'ES256', 'PS256', 'EdDSA'] as const) {
      const { privateKey } = await generateKeyPair(alg);
      const token = await new SignJWT(claims()).setProtectedHeader({ alg }).sign(privateKey);
      const res = await list(token);
      expect([alg, res.status]).toEqual([alg, 401]);
      expect(res.body).toEqual(problemOf(401));
    }
  });

  test('HS256 keyed with a public key, its header claiming RS256', async () => {
    // The classic confusion: an RSA public key (known to anyone) used as the HMAC secret.
    const { publicKey } = await generateKeyPair('RS256', { extractable: true });
    const pem = new TextEncoder().encode(await exportSPKI(publicKey));
    const asHs = await hs256(claims(), pem);
    const [, payload, signature] = asHs.split('.');
    const header = Buffer.from(JSON.stringify({ alg: 'RS256', typ: 'JWT' })).toString('base64url');
    for (const token of [asHs, `${header}.${payload}.${signature}`]) {
      expect((await list(token)).status).toBe(401);
    }
  });

  test('the same claims signed with the service secret pass (control)', async () => {
    expect((await list(await hs256(claims(), secret))).status).toBe(200);
  });
});

describe('clock skew: 30 s either way, no more', () => {
  test('exp 20 s ago passes, 40 s ago is 401', async () => {
    expect((await list(await hs256(claims({ exp: now() - 20 }), secret))).status).toBe(200);
    expect((await list(await hs256(claims({ exp: now() - 40 }), secret))).status).toBe(401);
  });

  test('nbf 20 s ahead passes, 40 s ahead is 401', async () => {
    expect((await list(await hs256(claims({ nbf: now() + 20 }), secret))).status).toBe(200);
    expect((await list(await hs256(claims({ nbf: now() + 40 }), secret))).status).toBe(401);
  });

  test('no sub, an empty sub or an audience list without ours → 401', async () => {
    for (const payload of [
      claims({ sub: undefined }),
      claims({ sub: '' }),
      claims({ aud: ['admin', 'root'] }),
    ]) {
      expect((await list(await hs256(payload, secret))).status).toBe(401);
    }
  });
});
