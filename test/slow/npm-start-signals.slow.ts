/**
 * `npm start` stopped by the pid an operator sees: npm's. npm hands the
 * signal to the script's process only, so the script line `exec`s Bun in
 * place of the shell: without it the shell died and Bun, orphaned, kept
 * serving. Spawns npm (about 2 s a start), hence a slow suite.
 */
import { describe, expect, test } from 'bun:test';
import { join } from 'node:path';
import { freePort, serverEnv } from '../accounts/server-process';
import { tempDir } from '../support/harness';
import { accepting } from './support';

const root = join(import.meta.dir, '..', '..');
const npm = Bun.which('npm');

/** Whether process `pid` is still there (signal 0 only checks). */
function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

describe.skipIf(!npm)('npm start: a signal to npm stops the server', () => {
  for (const signal of ['SIGTERM', 'SIGINT'] as const) {
    test(`${signal} to npm's pid: the server stops, the port is free, no process is left`, async () => {
      const port = freePort();
      const proc = Bun.spawn([npm!, 'start'], {
        cwd: root,
        stdin: 'ignore',
        stdout: 'pipe',
        stderr: 'inherit',
        env: serverEnv(port, join(tempDir(), 'app.db')),
      });
      let output = '';
      const reading = (async () => {
        const decoder = new TextDecoder();
        for await (const chunk of proc.stdout) output += decoder.decode(chunk);
      })();
      // npm's own lines come first; the server's JSON lines after them.
      const serverPid = () => {
        const line = output.split('\n').find((entry) => entry.includes('"msg":"listening"'));
        return line ? (JSON.parse(line) as { pid: number }).pid : undefined;
      };
      let pid: number | undefined;
      for (let poll = 0; poll < 300 && pid === undefined && proc.exitCode === null; poll++) {
        pid = serverPid();
        if (pid === undefined) await Bun.sleep(100);
      }
      expect(pid).toBeNumber();
      expect(pid).not.toBe(proc.pid);
      expect((await fetch(`http://127.0.0.1:${port}/health`)).status).toBe(200);

      proc.kill(signal);
      // 50 polls of 100 ms: the 5 s a stop may take.
      let stopped = false;
      for (let poll = 0; poll < 50 && !stopped; poll++) {
        stopped = !alive(pid!) && !(await accepting(port));
        if (!stopped) await Bun.sleep(100);
      }
      if (!stopped && pid !== undefined) process.kill(pid, 'SIGKILL');
      expect(stopped).toBe(true);
      await proc.exited;
      await reading;
      expect(output).toContain(`"msg":"shutting down","signal":"${signal}"`);
      expect(output).toContain('"msg":"stopped"');
    }, 60_000);
  }
});
