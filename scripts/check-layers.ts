/**
 * `bun scripts/check-layers.ts [root]`: fails when a file imports what its
 * folder may not. The rules are the folder map of docs/architecture.md, read
 * from that page, so the page and the check cannot drift: every file of
 * `src/` and `scripts/` belongs to one row, and each import of the project
 * (by `@/…` or a relative path) must land in its own row or in one its
 * "may import" cell names; Elysia counts as the project's `elysia`. Prints
 * each offending `file:line: import` with the rule it breaks and exits 1
 * when there is any.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';

const CHECKED = ['src', 'scripts'];
const TABLE_PAGE = 'docs/architecture.md';
const HTTP_PACKAGES = /^(elysia|@elysiajs\/)/;
const ELYSIA = 'elysia';
/**
 * `import … from`, `export … from` (named, `*`, `* as`), a side-effect
 * `import '…'` and a dynamic `import('…')`: each loads the module it names.
 */
const IMPORT =
  /(?:^|\s)(?:import|export)\b[^'"]*?from\s*['"]([^'"]+)['"]|(?:^|\s)import\s*['"]([^'"]+)['"]|import\(\s*['"]([^'"]+)['"]\s*\)/g;
/** A backticked folder or file of the project (`src/db/`, `src/app.ts`, `scripts/`) or `elysia`. */
const TOKEN = /`((?:src\/|scripts\/|client\/)[^`]*|elysia)`/g;

/** One row of the folder map: the folders and files it covers, what they may import. */
export interface LayerRule {
  units: string[];
  /** `everything` less `except`, or only `allowed`. */
  mayImport: { everything: true; except: string[] } | { everything: false; allowed: string[] };
  /** The cell as written, for messages. */
  text: string;
}

export interface LayerFinding {
  file: string;
  line: number;
  specifier: string;
  /** The rule broken, in the words of the folder map. */
  rule: string;
}

const unitName = (token: string) => token.replace(/\/$/, '');
const tokensOf = (cell: string) => [...cell.matchAll(TOKEN)].map((m) => unitName(m[1] ?? ''));

/** The rows of the folder map in `markdown` (the table under "## Folder map"). */
export function parseLayerTable(markdown: string): LayerRule[] {
  const section = markdown.split(/^## /m).find((part) => part.startsWith('Folder map'));
  if (!section) throw new Error(`${TABLE_PAGE} has no "## Folder map" section`);
  const rows = section
    .split('\n')
    .filter((line) => line.startsWith('|'))
    .slice(2) // the header and its separator
    .map((line) => line.split('|').slice(1, -1));
  const rules = rows.map((cells): LayerRule => {
    const units = tokensOf(cells[0] ?? '');
    const text = (cells.at(-1) ?? '').trim();
    if (units.length === 0) throw new Error(`a row of the folder map names no folder: ${cells[0]}`);
    return /^everything\b/.test(text)
      ? { units, mayImport: { everything: true, except: tokensOf(text) }, text }
      : { units, mayImport: { everything: false, allowed: tokensOf(text) }, text };
  });
  const known = new Set([ELYSIA, ...rules.flatMap((rule) => rule.units)]);
  for (const rule of rules) {
    for (const token of tokensOf(rule.text)) {
      if (!known.has(token))
        throw new Error(`the folder map's "${rule.text}" names ${token}, not a row`);
    }
  }
  return rules;
}

function filesUnder(path: string): string[] {
  if (!statSync(path, { throwIfNoEntry: false })) return [];
  if (statSync(path).isFile()) return /\.m?ts$/.test(path) ? [path] : [];
  return readdirSync(path).flatMap((name) => filesUnder(join(path, name)));
}

/** The unit (row entry) a root-relative path belongs to: the longest that covers it. */
function unitOf(rules: readonly LayerRule[], path: string): string | undefined {
  const covers = (unit: string) =>
    path === unit || path === unit.replace(/\.ts$/, '') || path.startsWith(`${unit}/`);
  return rules
    .flatMap((rule) => rule.units)
    .filter(covers)
    .sort((a, b) => b.length - a.length)[0];
}

/** Where an import specifier points (root-relative), `elysia`, or undefined for another package. */
function targetOf(root: string, file: string, specifier: string): string | undefined {
  if (specifier.startsWith('@/')) return join('src', specifier.slice(2));
  if (specifier.startsWith('.'))
    return relative(root, resolve(dirname(join(root, file)), specifier));
  return HTTP_PACKAGES.test(specifier) ? ELYSIA : undefined;
}

const permits = (rule: LayerRule, unit: string) =>
  rule.mayImport.everything
    ? !rule.mayImport.except.includes(unit)
    : rule.mayImport.allowed.includes(unit);

/** The findings of `sources` (root-relative path → text) against the folder map's `rules`. */
export function checkImports(
  root: string,
  rules: readonly LayerRule[],
  sources: ReadonlyMap<string, string>,
): LayerFinding[] {
  const findings: LayerFinding[] = [];
  for (const [file, text] of sources) {
    const from = unitOf(rules, file);
    const rule = rules.find((candidate) => from !== undefined && candidate.units.includes(from));
    if (!from || !rule) {
      findings.push({
        file,
        line: 1,
        specifier: '',
        rule: `${file} is in no row of the folder map`,
      });
      continue;
    }
    // The whole text, not line by line: an import's `from` may sit lines below its `import`.
    for (const match of text.matchAll(IMPORT)) {
      const specifier = match[1] ?? match[2] ?? match[3] ?? '';
      const target = targetOf(root, file, specifier);
      const to = target === ELYSIA ? ELYSIA : target && unitOf(rules, target);
      if (!to || to === from || rule.units.includes(to) || permits(rule, to)) continue;
      const end = (match.index ?? 0) + match[0].length;
      const line = text.slice(0, end).split('\n').length;
      const reason = `${from} may not import ${to} (${from} may import: ${rule.text})`;
      findings.push({ file, line, specifier, rule: reason });
    }
  }
  return findings.sort((a, b) => a.file.localeCompare(b.file) || a.line - b.line);
}

/** Checks the files of `root` against the folder map of `tablePage` (the root's own by default). */
export function checkLayers(root: string, tablePage = join(root, TABLE_PAGE)): LayerFinding[] {
  const rules = parseLayerTable(readFileSync(tablePage, 'utf8'));
  const files = CHECKED.flatMap((dir) => filesUnder(join(root, dir)));
  const sources = new Map(files.map((path) => [relative(root, path), readFileSync(path, 'utf8')]));
  return checkImports(root, rules, sources);
}

if (import.meta.main) {
  const root = resolve(Bun.argv[2] ?? join(import.meta.dir, '..'));
  const findings = checkLayers(root);
  for (const { file, line, specifier, rule } of findings) {
    console.error(`${file}:${line}: ${specifier} — ${rule}`);
  }
  if (findings.length > 0) {
    console.error(`${findings.length} import(s) break the folder map of ${TABLE_PAGE}`);
    process.exit(1);
  }
}
