import { join } from 'node:path';

const root = join(import.meta.dir, '..', '..');

/** A free TCP port on loopback (the OS picks one, released at once). */
export function freePort(): number {
  const probe = Bun.serve({ port: 0, hostname: '127.0.0.1', fetch: () => new Response() });
  const { port } = probe;
  probe.stop(true);
  return port!;
}

/**
 * The environment of a real server started by a test: 127.0.0.1:`port`,
 * SQLite at `databasePath`, a generated secret, no workers, JSON log lines
 * at info; `env` overrides any of them.
 */
export function serverEnv(port: number, databasePath: string, env: Record<string, string> = {}) {
  return {
    ...process.env,
    PORT: String(port),
    HOST: '127.0.0.1',
    DATABASE_PATH: databasePath,
    JWT_SECRET: '',
    WORKERS: 'off',
    LOG_LEVEL: 'info',
    LOG_FORMAT: 'json',
    ...env,
  };
}

/**
 * Spawns the real service (`bun src/index.ts`) on 127.0.0.1:`port` with the
 * given environment and resolves once `/health` answers 200.
 */
export async function startServer(port: number, env: Record<string, string>) {
  const server = Bun.spawn([process.execPath, 'src/index.ts'], {
    cwd: root,
    stdin: 'ignore',
    stdout: 'ignore',
    stderr: 'inherit',
    env: {
      ...process.env,
      PORT: String(port),
      HOST: '127.0.0.1',
      WORKERS: 'off',
      LOG_LEVEL: 'warn',
      ...env,
    },
  });
  const scheme = env.TLS_CERT_PATH ? 'https' : 'http';
  const deadline = Date.now() + 20_000;
  while (Date.now() < deadline) {
    try {
      const health = await fetch(`${scheme}://127.0.0.1:${port}/health`, {
        tls: { rejectUnauthorized: false },
      });
      if (health.ok) return server;
    } catch {}
    if (server.exitCode !== null) break;
    await Bun.sleep(100);
  }
  server.kill();
  throw new Error(`the service did not start on port ${port}`);
}
