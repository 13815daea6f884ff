import { join } from 'node:path';
import { tempDir } from './harness';

const root = join(import.meta.dir, '..', '..');

/**
 * Spawns `bun src/index.ts` on a free loopback port (a temp database unless
 * DATABASE_PATH is given) and resolves with its URL, read from the
 * `listening` log line. The log is read on (so it never fills the pipe):
 * `logged(text)` resolves once it holds `text`, `rest()` with all of it once
 * the process ends.
 */
export async function spawnService(env: Record<string, string>) {
  const proc = Bun.spawn([process.execPath, 'src/index.ts'], {
    cwd: root,
    env: {
      ...process.env,
      PORT: '0',
      HOST: '127.0.0.1',
      DATABASE_PATH: join(tempDir(), 'app.db'),
      LOG_LEVEL: 'info',
      ...env,
    },
    stdout: 'pipe',
    stderr: 'pipe',
  });
  const reader = proc.stdout.getReader();
  const decoder = new TextDecoder();
  let output = '';
  while (!/"msg":"listening"[^\n]*\n/.test(output)) {
    const { value, done } = await reader.read();
    if (done) throw new Error(`service exited: ${output}${await new Response(proc.stderr).text()}`);
    output += decoder.decode(value);
  }
  const url = /"url":"([^"]+)"/.exec(output)![1]!;
  const watchers: { text: string; resolve: () => void }[] = [];
  const ended = (async () => {
    for (;;) {
      const { value, done } = await reader.read();
      if (done) return output;
      output += decoder.decode(value);
      for (const watcher of watchers.filter((w) => output.includes(w.text))) {
        watchers.splice(watchers.indexOf(watcher), 1);
        watcher.resolve();
      }
    }
  })();
  const logged = (text: string) =>
    output.includes(text)
      ? Promise.resolve()
      : new Promise<void>((resolve) => watchers.push({ text, resolve }));
  return { proc, url, logged, rest: () => ended };
}

/**
 * Starts `bun src/index.ts` with `env` (an in-memory database, no workers)
 * and resolves once it ends with its exit code, its stderr lines and all
 * it wrote (stdout and stderr), for start-ups that must fail.
 */
export async function startFails(env: Record<string, string>) {
  const proc = Bun.spawn([process.execPath, 'src/index.ts'], {
    cwd: root,
    env: { ...process.env, DATABASE_PATH: ':memory:', PORT: '0', WORKERS: 'off', ...env },
    stdout: 'pipe',
    stderr: 'pipe',
  });
  const [code, stdout, stderr] = await Promise.all([
    proc.exited,
    new Response(proc.stdout).text(),
    new Response(proc.stderr).text(),
  ]);
  return { code, lines: stderr.trim().split('\n'), output: stdout + stderr };
}
