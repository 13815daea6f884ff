/**
 * `bun scripts/check-references.ts [path ...]`: fails when a comment, test
 * title or document cites something a reader of this repository cannot open —
 * the specification or contract files kept outside it (by name), an issue
 * number (`issue #` and digits), or a path into the outside `shared` folder.
 * Such a line should state the rule itself or link a page of `docs/`.
 *
 * Without arguments it scans the repository's sources and documents; with
 * arguments, those files and folders. Prints each offending `file:line: text`
 * and exits 1 when there is any.
 *
 * The patterns are assembled from pieces so that this file does not match them.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';

const piece = (...parts: string[]) => parts.join('');

/** What counts as a reference outside the repository, each with a short name. */
export const PATTERNS: readonly { name: string; pattern: RegExp }[] = [
  { name: 'contract document', pattern: new RegExp(piece('\\bCON', 'TRACT\\b')) },
  { name: 'spec document', pattern: new RegExp(piece('\\bSP', 'EC\\.md\\b')) },
  { name: 'issue number', pattern: new RegExp(piece('\\bissues? ', '#\\d'), 'i') },
  // A path that starts with that folder (at the start of the line or after a
  // space, quote, bracket or dot); not a longer name ending in it, nor a folder
  // of that name inside another (`test/support/<folder>/`).
  { name: 'outside folder', pattern: new RegExp(piece('(^|[^\\w/-])sha', 'red/')) },
];

/** Scanned when no path is given, relative to the repository root. */
export const DEFAULT_TARGETS = [
  'src',
  'test',
  'client',
  'docs',
  'README.md',
  'SECURITY.md',
  'bench',
  'scripts',
  '.ci',
];

const SKIPPED_DIRECTORIES = new Set(['node_modules', '.git']);

export interface Finding {
  file: string;
  line: number;
  text: string;
}

function* filesUnder(path: string): Generator<string> {
  let stats: ReturnType<typeof statSync>;
  try {
    stats = statSync(path);
  } catch {
    return; // a target this checkout does not have
  }
  if (stats.isFile()) {
    yield path;
    return;
  }
  if (!stats.isDirectory()) return;
  for (const entry of readdirSync(path).sort()) {
    if (SKIPPED_DIRECTORIES.has(entry)) continue;
    yield* filesUnder(join(path, entry));
  }
}

/** The text of a file, or null for a binary one (a NUL byte near the start). */
function textOf(file: string): string | null {
  const bytes = readFileSync(file);
  if (bytes.subarray(0, 8192).includes(0)) return null;
  return bytes.toString('utf8');
}

/** Every line under `targets` that matches one of the patterns. */
export function findReferences(targets: readonly string[]): Finding[] {
  const findings: Finding[] = [];
  for (const target of targets) {
    for (const file of filesUnder(target)) {
      const text = textOf(file);
      if (text === null) continue;
      for (const [index, line] of text.split('\n').entries()) {
        if (PATTERNS.some(({ pattern }) => pattern.test(line))) {
          findings.push({ file, line: index + 1, text: line.trim() });
        }
      }
    }
  }
  return findings;
}

if (import.meta.main) {
  const root = resolve(import.meta.dir, '..');
  const args = process.argv.slice(2);
  const targets = args.length > 0 ? args : DEFAULT_TARGETS.map((target) => join(root, target));
  const findings = findReferences(targets);
  for (const { file, line, text } of findings) {
    console.log(`${relative(process.cwd(), file) || file}:${line}: ${text}`);
  }
  if (findings.length > 0) {
    console.error(
      `check-references: ${findings.length} line(s) cite documents or issues outside the ` +
        'repository; state the rule itself or link a page of docs/.',
    );
    process.exit(1);
  }
}
