import { join } from 'node:path';

const root = join(import.meta.dir, '..', '..');

/**
 * Runs `bun scripts/<script> …args` from the repository root with `env`
 * (and `stdin` piped in); answers its exit code and trimmed output.
 */
export async function runScript(
  script: string,
  args: readonly string[],
  env: Record<string, string | undefined>,
  stdin = '',
) {
  const proc = Bun.spawn([process.execPath, join('scripts', script), ...args], {
    cwd: root,
    env,
    stdin: new TextEncoder().encode(stdin),
    stdout: 'pipe',
    stderr: 'pipe',
  });
  const code = await proc.exited;
  return {
    code,
    stdout: (await new Response(proc.stdout).text()).trim(),
    stderr: (await new Response(proc.stderr).text()).trim(),
  };
}
