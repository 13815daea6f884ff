// Runs before `npm start` / `npm test` under plain Node: installs the
// dependencies (Bun included, from the npm registry) when they are missing or
// older than the lockfile, so a fresh clone needs nothing but Node and npm.
import { execSync } from 'node:child_process';
import { existsSync, statSync } from 'node:fs';

const marker = 'node_modules/.package-lock.json';
const lock = 'package-lock.json';
const stale =
  !existsSync('node_modules/.bin/bun') ||
  !existsSync(marker) ||
  (existsSync(lock) && statSync(lock).mtimeMs > statSync(marker).mtimeMs);

if (stale) {
  // `npm install` rather than `npm ci`: the lockfile records only this
  // platform's optional binaries (Bun, Biome, esbuild), which `npm ci` rejects.
  console.error('[setup] installing dependencies (npm install)…');
  execSync('npm install --no-audit --no-fund --loglevel=error', { stdio: 'inherit' });
}
