/**
 * `bun scripts/check-layers.ts [root]`: fails when code outside the
 * transport reaches into it. Domains, the kernel, the database layer,
 * workers and scripts must not import `src/api` (by `@/api/…` or a relative
 * path) nor Elysia: HTTP stays in `src/api`, `src/web`, `src/app.ts` and
 * `src/index.ts` (docs/architecture.md). Prints each offending
 * `file:line: import` and exits 1 when there is any.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';

/** Files and folders (relative to the root) that may import the transport. */
const TRANSPORT = ['src/api', 'src/web', 'src/app.ts', 'src/index.ts'];
const CHECKED = ['src', 'scripts'];
const HTTP_PACKAGES = /^(elysia|@elysiajs\/)/;
const IMPORT =
  /(?:^|\s)(?:import|export)\b[^'"]*?from\s*['"]([^'"]+)['"]|import\(\s*['"]([^'"]+)['"]\s*\)/g;

export interface LayerFinding {
  file: string;
  line: number;
  specifier: string;
}

function filesUnder(path: string): string[] {
  if (!statSync(path, { throwIfNoEntry: false })) return [];
  if (statSync(path).isFile()) return /\.m?ts$/.test(path) ? [path] : [];
  return readdirSync(path).flatMap((name) => filesUnder(join(path, name)));
}

const inTransport = (root: string, path: string) =>
  TRANSPORT.some((entry) => {
    const rel = relative(root, path);
    return rel === entry || rel.startsWith(`${entry}/`) || rel === `${entry}.ts`;
  });

/** Where an import specifier points inside the root, or undefined for a package. */
function targetOf(root: string, file: string, specifier: string): string | undefined {
  if (specifier.startsWith('@/')) return join(root, 'src', specifier.slice(2));
  if (specifier.startsWith('.')) return resolve(dirname(file), specifier);
  return undefined;
}

export function checkLayers(root: string): LayerFinding[] {
  const findings: LayerFinding[] = [];
  for (const file of CHECKED.flatMap((dir) => filesUnder(join(root, dir)))) {
    if (inTransport(root, file)) continue;
    const lines = readFileSync(file, 'utf8').split('\n');
    lines.forEach((text, index) => {
      for (const match of text.matchAll(IMPORT)) {
        const specifier = match[1] ?? match[2] ?? '';
        const target = targetOf(root, file, specifier);
        const leaks = target ? inTransport(root, target) : HTTP_PACKAGES.test(specifier);
        if (leaks) findings.push({ file: relative(root, file), line: index + 1, specifier });
      }
    });
  }
  return findings.sort((a, b) => a.file.localeCompare(b.file) || a.line - b.line);
}

if (import.meta.main) {
  const root = resolve(Bun.argv[2] ?? join(import.meta.dir, '..'));
  const findings = checkLayers(root);
  for (const { file, line, specifier } of findings) console.error(`${file}:${line}: ${specifier}`);
  if (findings.length > 0) {
    console.error(`${findings.length} import(s) reach into the transport from outside it`);
    process.exit(1);
  }
}
