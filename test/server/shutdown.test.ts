import { expect, test } from 'bun:test';
import { join } from 'node:path';
import { TokenService } from '@/auth/tokens';
import { freePort } from '../accounts/server-process';
import { tempDir } from '../support/harness';

const secret = 'shutdown-test-secret-shutdown-test-secret-0123';

async function startServer(env: Record<string, string> = {}) {
  const dir = tempDir();
  const port = freePort();
  const proc = Bun.spawn([process.execPath, 'src/index.ts'], {
    env: {
      ...process.env,
      PORT: String(port),
      HOST: '127.0.0.1',
      DATABASE_PATH: join(dir, 'app.db'),
      WORKERS: 'off',
      LOG_LEVEL: 'info',
      ...env,
    },
    stdout: 'pipe',
    stderr: 'pipe',
  });
  // Bounded by attempts, not a clock; a busy machine may take a while to start a process.
  for (let attempt = 0; attempt < 1200 && proc.exitCode === null; attempt++) {
    const ok = await fetch(`http://127.0.0.1:${port}/health`).then(
      (r) => r.ok,
      () => false,
    );
    if (ok) return { proc, port };
    await Bun.sleep(25);
  }
  proc.kill('SIGKILL');
  const stderr = await new Response(proc.stderr).text();
  throw new Error(`server did not start (exit ${proc.exitCode}): ${stderr.slice(-2000)}`);
}

test('SIGTERM lets a slow request in flight finish, then exits 0', async () => {
  const { proc, port } = await startServer({ JWT_SECRET: secret });
  // A route that takes a body and a valid credential: only then is the body
  // read (an anonymous one is refused before it, a body-less route never reads it).
  const token = await new TokenService(secret).issue('ops', 'employee', 600);
  const body = '{"slow": true}';
  let response = '';
  const socket = await Bun.connect({
    hostname: '127.0.0.1',
    port,
    socket: {
      data(_socket, data) {
        response += new TextDecoder().decode(data);
      },
    },
  });
  // Headers and half the body now; the rest only after the signal.
  socket.write(
    `POST /listings/properties HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${token}\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\nConnection: close\r\n\r\n${body.slice(0, 5)}`,
  );
  await Bun.sleep(100);
  proc.kill('SIGTERM');
  await Bun.sleep(300);
  expect(proc.exitCode).toBeNull();
  socket.write(body.slice(5));
  const exitCode = await proc.exited;
  for (let i = 0; i < 40 && !response.includes('\r\n\r\n'); i++) await Bun.sleep(25);
  socket.end();
  // The whole body was read and judged: a property needs more than this.
  expect(response).toMatch(/^HTTP\/1\.1 422 /);
  expect(exitCode).toBe(0);
  const log = await new Response(proc.stdout).text();
  expect(log).toContain('"msg":"stopped"');
  const refused = await fetch(`http://127.0.0.1:${port}/health`).then(
    () => false,
    () => true,
  );
  expect(refused).toBe(true);
}, 30_000);

test('SIGTERM answers a long poll of the change feed at once instead of waiting out its 30 s', async () => {
  const { proc, port } = await startServer({ JWT_SECRET: secret });
  const token = await new TokenService(secret).issue('ops', 'employee', 600);
  const started = performance.now();
  const poll = fetch(`http://127.0.0.1:${port}/listings/events?wait=30`, {
    headers: { authorization: `Bearer ${token}` },
  });
  await Bun.sleep(200);
  proc.kill('SIGTERM');
  const res = await poll;
  expect(res.status).toBe(200);
  expect(await res.json()).toEqual({ data: [], next_cursor: null, has_more: false });
  expect(await proc.exited).toBe(0);
  expect(performance.now() - started).toBeLessThan(10_000);
});
