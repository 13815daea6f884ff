import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { join } from 'node:path';
import { HSTS } from '@/api/security-policy';
import { tempDir } from '../support/harness';
import { freePort, startServer } from './server-process';

describe('HTTPS with TLS_CERT_PATH / TLS_KEY_PATH', () => {
  const dir = tempDir('listings-tls-');
  const port = freePort();
  const origin = `https://localhost:${port}`;
  let server: Awaited<ReturnType<typeof startServer>>;

  beforeAll(async () => {
    const openssl = Bun.spawnSync(
      [
        'openssl',
        'req',
        '-x509',
        '-newkey',
        'ec',
        '-pkeyopt',
        'ec_paramgen_curve:prime256v1',
        '-nodes',
        '-days',
        '1',
        '-subj',
        '/CN=localhost',
        '-addext',
        'subjectAltName=DNS:localhost,IP:127.0.0.1',
        '-keyout',
        join(dir, 'key.pem'),
        '-out',
        join(dir, 'cert.pem'),
      ],
      { stderr: 'pipe' },
    );
    if (openssl.exitCode !== 0) throw new Error(openssl.stderr.toString());
    server = await startServer(port, {
      DATABASE_PATH: join(dir, 'app.db'),
      PUBLIC_ORIGIN: origin,
      TLS_CERT_PATH: join(dir, 'cert.pem'),
      TLS_KEY_PATH: join(dir, 'key.pem'),
    });
  });

  afterAll(() => {
    server?.kill();
  });

  const call = (path: string, init: RequestInit = {}) =>
    fetch(`${origin}${path}`, { ...init, tls: { rejectUnauthorized: false } });

  test('serves HTTPS; passkey options are available and the session cookie is Secure', async () => {
    const health = await call('/health');
    expect(health.status).toBe(200);
    expect(await health.json()).toMatchObject({ status: 'ok' });
    expect(health.headers.get('strict-transport-security')).toBe(HSTS);

    const options = await call('/auth/passkey/authenticate/options', {
      method: 'POST',
      headers: { 'content-type': 'application/json', origin },
      body: '{}',
    });
    expect(options.status).toBe(200);
    expect(await options.json()).toMatchObject({ rpId: 'localhost', allowCredentials: [] });

    const credentials = JSON.stringify({ email: 'tls@example.com', password: 'long enough' });
    const headers = { 'content-type': 'application/json', origin };
    expect(
      (await call('/auth/sign-up', { method: 'POST', headers, body: credentials })).status,
    ).toBe(202);
    const signIn = await call('/auth/sign-in', { method: 'POST', headers, body: credentials });
    expect(signIn.status).toBe(200);
    expect(signIn.headers.get('set-cookie')).toMatch(/; HttpOnly; SameSite=Lax; .*; Secure$/);
  });
});
