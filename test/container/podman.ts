import { expect } from 'bun:test';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * Podman as an operator drives it, for the container suite. Storage and
 * settings come from CONTAINERS_CONF and CONTAINERS_STORAGE_CONF, which
 * scripts/test-container.sh points at a folder of its own.
 */
export const root = join(import.meta.dir, '..', '..');

export interface Ran {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs a command to its end; `input` goes to its standard input. */
export async function run(cmd: string[], options: { input?: string; cwd?: string } = {}) {
  const child = Bun.spawn(cmd, {
    cwd: options.cwd ?? root,
    stdin: options.input === undefined ? 'ignore' : new TextEncoder().encode(options.input),
    stdout: 'pipe',
    stderr: 'pipe',
  });
  const [stdout, stderr, code] = await Promise.all([
    new Response(child.stdout).text(),
    new Response(child.stderr).text(),
    child.exited,
  ]);
  return { code, stdout, stderr } satisfies Ran;
}

export const podman = (args: string[], options: { input?: string; cwd?: string } = {}) =>
  run(['podman', ...args], options);

/** A command that must succeed: its output, or a failed expectation naming it and its stderr. */
export async function ok(cmd: string[], options: { input?: string; cwd?: string } = {}) {
  const ran = await run(cmd, options);
  if (ran.code !== 0) {
    expect({ cmd: cmd.join(' '), code: ran.code, stderr: ran.stderr.slice(-2000) }).toEqual({
      cmd: cmd.join(' '),
      code: 0,
      stderr: '',
    });
  }
  return ran.stdout;
}

/** Seconds since `started` (performance.now()), one decimal: a figure for the report. */
export const secondsSince = (started: number) =>
  Math.round((performance.now() - started) / 100) / 10;

/**
 * Polls GET /health on the published port until it answers 200; the seconds
 * it took, or undefined when the container exited or 600 polls (a minute at
 * least) went by.
 */
export async function untilHealthy(base: string, container: string) {
  const started = performance.now();
  for (let attempt = 0; attempt < 600; attempt++) {
    const status = await fetch(`${base}/health`).then(
      (res) => res.status,
      () => 0,
    );
    if (status === 200) return secondsSince(started);
    const state = await podman(['inspect', '--format', '{{.State.Status}}', container]);
    if (state.stdout.trim() === 'exited') return undefined;
    await Bun.sleep(100);
  }
  return undefined;
}

/** The container's state.health as podman records it after `podman healthcheck run`. */
export async function healthStatus(container: string) {
  const ran = await podman(['inspect', '--format', '{{.State.Health.Status}}', container]);
  return ran.stdout.trim();
}

/** The image's size in MB (10^6 bytes), as `podman images` shows it. */
export async function imageMegabytes(image: string) {
  const bytes = Number(
    (await ok(['podman', 'image', 'inspect', '--format', '{{.Size}}', image])).trim(),
  );
  return Math.round(bytes / 1e6);
}

/** Build flags that let Bun's install inside a build trust the host's CA bundle, where there is one. */
export function buildFlags(workDir: string): string[] {
  const bundle = '/etc/ssl/certs/ca-certificates.crt';
  const flags = ['--format', 'docker'];
  if (!Bun.file(bundle).size) return flags;
  const bunfig = join(workDir, 'bunfig.toml');
  writeFileSync(bunfig, '[install]\ncafile = "/etc/ssl/host-ca.pem"\n');
  return [
    ...flags,
    '-v',
    `${bundle}:/etc/ssl/host-ca.pem:ro`,
    '-v',
    `${bunfig}:/root/.bunfig.toml:ro`,
  ];
}
