import { describe, expect, test } from 'bun:test';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

const root = join(import.meta.dir, '..');

interface Manifest {
  allowScripts?: Record<string, boolean>;
}
interface Lockfile {
  packages: Record<string, { version?: string; hasInstallScript?: boolean }>;
}

/** `name@version` of every package in a lockfile that has an install script. */
function withInstallScripts(lock: Lockfile): string[] {
  return Object.entries(lock.packages)
    .filter(([, entry]) => entry.hasInstallScript)
    .map(
      ([path, entry]) => `${path.slice(path.lastIndexOf('node_modules/') + 13)}@${entry.version}`,
    );
}

/** The part of `name@version` before the version (a scope's `@` is kept). */
const nameOf = (pinned: string) => pinned.slice(0, pinned.lastIndexOf('@'));

// npm 11 runs a dependency's install script only with a notice unless the
// project's `allowScripts` names it, and refuses to install under
// `strict-allow-scripts`. Bun's postinstall puts the binary in place, so an
// unlisted Bun is a broken `npm start` once npm blocks by default.
describe.each([
  ['the service', ''],
  ['the benchmark reference', 'bench/reference'],
])('allowScripts of %s', (_, dir) => {
  const manifest: Manifest = JSON.parse(readFileSync(join(root, dir, 'package.json'), 'utf8'));
  const lock: Lockfile = JSON.parse(readFileSync(join(root, dir, 'package-lock.json'), 'utf8'));
  const decided = manifest.allowScripts ?? {};

  test('decides every locked package with an install script, and nothing else', () => {
    const scripted = [...new Set(withInstallScripts(lock).map(nameOf))].sort();
    expect(Object.keys(decided).sort()).toEqual(scripted);
  });

  test('allows what is needed and denies the rest', () => {
    const expected: Record<string, Record<string, boolean>> = {
      // Bun links its binary; esbuild (drizzle-kit, tsx) checks its own.
      // Scarf only reports the install to a third party (swagger-ui-dist's).
      '': { bun: true, esbuild: true, '@scarf/scarf': false },
      // better-sqlite3 compiles its native module.
      'bench/reference': { 'better-sqlite3': true },
    };
    expect(decided).toEqual(expected[dir]!);
  });
});
