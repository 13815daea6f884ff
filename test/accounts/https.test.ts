import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { join } from 'node:path';
import { tempDir } from '../support/harness';

const root = join(import.meta.dir, '..', '..');

/** A free TCP port on loopback (the OS picks one, we release it at once). */
function freePort(): number {
  const probe = Bun.serve({ port: 0, hostname: '127.0.0.1', fetch: () => new Response() });
  const { port } = probe;
  probe.stop(true);
  return port!;
}

async function waitForLine(stream: ReadableStream<Uint8Array>, pattern: RegExp, ms: number) {
  const reader = stream.getReader();
  const decoder = new TextDecoder();
  let seen = '';
  const deadline = Date.now() + ms;
  while (Date.now() < deadline) {
    const { value, done } = await reader.read();
    if (done) break;
    seen += decoder.decode(value);
    if (pattern.test(seen)) {
      reader.releaseLock();
      return;
    }
  }
  throw new Error(`server did not start:\n${seen}`);
}

describe('HTTPS with TLS_CERT_PATH / TLS_KEY_PATH', () => {
  const dir = tempDir('listings-tls-');
  const port = freePort();
  const origin = `https://localhost:${port}`;
  let server: ReturnType<typeof Bun.spawn<'ignore', 'pipe', 'pipe'>>;

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
    server = Bun.spawn([process.execPath, 'src/index.ts'], {
      cwd: root,
      stdin: 'ignore',
      stdout: 'pipe',
      stderr: 'pipe',
      env: {
        ...process.env,
        PORT: String(port),
        HOST: '127.0.0.1',
        DATABASE_PATH: join(dir, 'app.db'),
        PUBLIC_ORIGIN: origin,
        TLS_CERT_PATH: join(dir, 'cert.pem'),
        TLS_KEY_PATH: join(dir, 'key.pem'),
        WORKERS: 'off',
        LOG_LEVEL: 'info',
      },
    });
    await waitForLine(server.stdout, /"msg":"listening"/, 15_000);
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
    ).toBe(201);
    const signIn = await call('/auth/sign-in', { method: 'POST', headers, body: credentials });
    expect(signIn.status).toBe(200);
    expect(signIn.headers.get('set-cookie')).toMatch(/; HttpOnly; SameSite=Lax; .*; Secure$/);
  });
});
