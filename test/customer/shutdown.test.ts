import { Database } from 'bun:sqlite';
import { expect, test } from 'bun:test';
import { join } from 'node:path';
import { TokenService } from '@/auth/tokens';
import { tempDir } from '../support/harness';

const SECRET = 'shutdown-test-secret-shutdown-test-secret';

/** Reads stdout until the server logs where it listens, then keeps draining it. */
async function listeningUrl(stdout: ReadableStream<Uint8Array>): Promise<string> {
  const reader = stdout.getReader();
  const decoder = new TextDecoder();
  let buffered = '';
  for (;;) {
    const { done, value } = await reader.read();
    if (done) throw new Error('the server never listened');
    buffered += decoder.decode(value);
    const line = buffered.split('\n').find((entry) => entry.includes('"listening"'));
    if (line) {
      void (async () => {
        while (!(await reader.read()).done) {}
      })();
      return JSON.parse(line).url;
    }
  }
}

test('SIGTERM flushes calendar-window usage before the database closes', async () => {
  const databasePath = join(tempDir(), 'app.db');
  const server = Bun.spawn([process.execPath, 'src/index.ts'], {
    env: {
      ...process.env,
      PORT: '0',
      HOST: '127.0.0.1',
      DATABASE_PATH: databasePath,
      JWT_SECRET: SECRET,
      WORKERS: 'off',
      LOG_LEVEL: 'info',
    },
    stdout: 'pipe',
    stderr: 'inherit',
  });
  try {
    const base = (await listeningUrl(server.stdout)).replace('0.0.0.0', '127.0.0.1');
    const tokens = new TokenService(SECRET);
    const admin = await tokens.issue('ops', 'employee', 600);
    const customer = await tokens.issue('c-shutdown', 'customer', 600);
    const call = (method: string, path: string, token: string, body?: unknown) =>
      fetch(`${base}${path}`, {
        method,
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
    const plan = await call('POST', '/api/v1/admin/plans', admin, {
      name: 'Daily',
      slug: 'daily',
      limits: { day: 1000 },
    });
    const { id } = (await plan.json()) as { id: number };
    await call('PUT', '/api/v1/admin/customers/c-shutdown/plan', admin, { planId: id });
    for (let i = 0; i < 3; i++) {
      expect((await call('GET', '/api/v1/c/transactions', customer)).status).toBe(200);
    }
    server.kill('SIGTERM');
    expect(await server.exited).toBe(0);
  } finally {
    server.kill();
  }
  const db = new Database(databasePath, { readonly: true });
  expect(db.query('SELECT subject, window, used FROM window_usage').all()).toEqual([
    { subject: 'c:c-shutdown', window: 'day', used: 3 },
  ]);
  db.close();
});
