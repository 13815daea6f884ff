import { describe, expect, test } from 'bun:test';
import { join } from 'node:path';
import { createUser } from '@/accounts/users';
import { migrateDatabase, openDatabase } from '@/db/client';
import { freePort } from '../accounts/server-process';
import { tempDir } from '../support/harness';

const root = join(import.meta.dir, '..', '..');

/** Starts `bun src/index.ts` on `databasePath`, waits for /health, stops it; answers its log lines. */
async function startAndStop(databasePath: string, env: Record<string, string> = {}) {
  const port = freePort();
  const server = Bun.spawn([process.execPath, 'src/index.ts'], {
    cwd: root,
    stdin: 'ignore',
    stdout: 'pipe',
    stderr: 'inherit',
    env: {
      ...process.env,
      PORT: String(port),
      HOST: '127.0.0.1',
      DATABASE_PATH: databasePath,
      JWT_SECRET: '',
      WORKERS: 'off',
      LOG_LEVEL: 'info',
      LOG_FORMAT: 'json',
      ...env,
    },
  });
  const deadline = Date.now() + 20_000;
  let up = false;
  while (!up && Date.now() < deadline && server.exitCode === null) {
    up = await fetch(`http://127.0.0.1:${port}/health`).then(
      (res) => res.ok,
      () => false,
    );
    if (!up) await Bun.sleep(100);
  }
  server.kill('SIGTERM');
  await server.exited;
  expect(up).toBe(true);
  const text = await new Response(server.stdout).text();
  return text
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line) as { level: string; msg: string });
}

describe('start-up without any account', () => {
  test('one info line says how to create the first employee or load the demo', async () => {
    const databasePath = join(tempDir(), 'app.db');
    const hints = (await startAndStop(databasePath)).filter((line) =>
      line.msg.startsWith('no account yet'),
    );
    expect(hints).toHaveLength(1);
    expect(hints[0]!.level).toBe('info');
    expect(hints[0]!.msg).toContain('bun run user:create -- --email');
    expect(hints[0]!.msg).toContain('--role employee');
    expect(hints[0]!.msg).toContain('bun run demo');
  });

  test('with an account, no such line', async () => {
    const databasePath = join(tempDir(), 'app.db');
    const db = openDatabase(databasePath);
    migrateDatabase(db);
    await createUser(db, { email: 'ops@example.com', password: 'long enough', role: 'employee' });
    db.$client.close();
    const lines = await startAndStop(databasePath);
    expect(lines.some((line) => line.msg === 'listening')).toBe(true);
    expect(lines.filter((line) => line.msg.startsWith('no account yet'))).toEqual([]);
  });
});
