/**
 * The service files the benches measure: seeded once by `scripts/seed.ts`
 * and kept (`--database FILE`), with tokens signed by one bench secret.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';

/** The JWT secret every bench server runs with and every bench token is signed by. */
export const BENCH_SECRET = 'bench-secret-bench-secret-bench-secret-0123456789';

const root = join(import.meta.dir, '..');

/** Seeds a service file at `path` unless one is there, and says how long it took. */
export function seedUnlessPresent(
  path: string,
  { properties, unitsPerProperty }: { properties: string; unitsPerProperty: string },
): void {
  if (existsSync(path)) return;
  const started = performance.now();
  const seed = Bun.spawnSync(
    [
      process.execPath,
      'scripts/seed.ts',
      '--properties',
      properties,
      '--units-per-property',
      unitsPerProperty,
    ],
    {
      cwd: root,
      env: { ...process.env, DATABASE_PATH: path, JWT_SECRET: BENCH_SECRET },
      stdio: ['ignore', 'inherit', 'inherit'],
    },
  );
  if (seed.exitCode !== 0) throw new Error(`seeding ${path} exited ${seed.exitCode}`);
  console.log(`seeded in ${((performance.now() - started) / 1000).toFixed(1)} s`);
}
