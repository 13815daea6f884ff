import { readdirSync, readFileSync, statSync } from 'node:fs';
import { extname, join } from 'node:path';
import type { z } from 'zod';
import { StaticPageFile } from '@/content/schemas';
import { MAX_BODY_BYTES } from '@/kernel/limits';
import { type MaybePromise, whenReady } from '@/kernel/maybe-promise';
import { NUL_MESSAGE, nulPathOf } from '@/kernel/nul';
import type { AcceptedFile, ContentStore, ImportedPage } from './store';

export const IMPORTABLE = new Set(['.json', '.md']);

export type ParsedFile = { ok: true; page: StaticPageFile } | { ok: false; reason: string };

const KEY_LINE = /^([A-Za-z][A-Za-z0-9]*)\s*:\s*(.*)$/;

/** A front-matter value: JSON for objects, arrays and quoted strings, true/false/null, else the text. */
function frontMatterValue(raw: string): unknown {
  if (raw === 'true') return true;
  if (raw === 'false') return false;
  if (raw === 'null') return null;
  if (/^[{["]/.test(raw)) return JSON.parse(raw);
  return raw;
}

/**
 * Markdown with front matter: a first line `---`, then one `key: value` per
 * line (blank lines and `#` comments allowed), a closing `---`, then the
 * page content. Values are single-line; `accounting` and `seoMetaData` are
 * JSON objects.
 */
export function parseMarkdown(text: string): Record<string, unknown> {
  const lines = text.replace(/^\uFEFF/, '').split(/\r?\n/);
  if (lines[0]?.trim() !== '---')
    throw new Error('front matter missing: the first line must be ---');
  const end = lines.findIndex((line, index) => index > 0 && line.trim() === '---');
  if (end < 0) throw new Error('front matter not closed: no second --- line');
  const fields: Record<string, unknown> = {};
  for (let index = 1; index < end; index++) {
    const line = lines[index]!.trim();
    if (line === '' || line.startsWith('#')) continue;
    const match = KEY_LINE.exec(line);
    if (!match) throw new Error(`line ${index + 1}: expected "key: value"`);
    const [, key = '', raw = ''] = match;
    if (key in fields) throw new Error(`line ${index + 1}: ${key} given twice`);
    if (key === 'content')
      throw new Error(`line ${index + 1}: content is the text after the front matter`);
    try {
      fields[key] = frontMatterValue(raw.trim());
    } catch {
      throw new Error(`line ${index + 1}: ${key} is not valid JSON`);
    }
  }
  fields.content = lines
    .slice(end + 1)
    .join('\n')
    .trim();
  return fields;
}

function describeIssues(error: z.ZodError): string {
  return error.issues
    .slice(0, 5)
    .map((issue) => {
      if (issue.code === 'unrecognized_keys') return `unknown field ${issue.keys.join(', ')}`;
      const field = issue.path.join('.');
      return field ? `${field}: ${issue.message}` : issue.message;
    })
    .join('; ');
}

/** Reads and validates one file; the reason names what is wrong. */
export function parsePageFile(path: string): ParsedFile {
  let text: string;
  try {
    if (statSync(path).size > MAX_BODY_BYTES) return { ok: false, reason: 'larger than 1 MiB' };
    text = readFileSync(path, 'utf8');
  } catch (error) {
    return { ok: false, reason: `unreadable (${(error as NodeJS.ErrnoException).code ?? error})` };
  }
  let fields: unknown;
  try {
    fields = extname(path) === '.json' ? JSON.parse(text) : parseMarkdown(text);
  } catch (error) {
    const reason = error instanceof SyntaxError ? 'not valid JSON' : (error as Error).message;
    return { ok: false, reason };
  }
  if (fields === null || typeof fields !== 'object' || Array.isArray(fields)) {
    return { ok: false, reason: 'not a JSON object' };
  }
  const result = StaticPageFile.safeParse(fields);
  if (!result.success) return { ok: false, reason: describeIssues(result.error) };
  // The request bodies' rule (src/kernel/nul.ts): the same refusal on either database.
  const nulAt = nulPathOf(result.data);
  if (nulAt) return { ok: false, reason: `${nulAt.join('.') || 'a field name'}: ${NUL_MESSAGE}` };
  return { ok: true, page: result.data };
}

export interface ImportReport {
  imported: ImportedPage[];
  refused: { file: string; reason: string }[];
  /** Files of other kinds, left alone. */
  skipped: string[];
}

/**
 * `npm run pages:import -- DIR`: every *.json and *.md file directly in DIR,
 * in name order, upserted by slug and language. Bad files are refused with
 * their reason and the good ones are still imported, together in one
 * transaction (re-running after a fix is harmless: it is an upsert).
 */
export function importStaticPages(
  store: ContentStore,
  dir: string,
  now: number,
): MaybePromise<ImportReport> {
  const report: ImportReport = { imported: [], refused: [], skipped: [] };
  const accepted: AcceptedFile[] = [];
  const seen = new Map<string, string>();
  const names = readdirSync(dir, { withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => entry.name)
    .sort();
  for (const file of names) {
    if (!IMPORTABLE.has(extname(file))) {
      report.skipped.push(file);
      continue;
    }
    const parsed = parsePageFile(join(dir, file));
    if (!parsed.ok) {
      report.refused.push({ file, reason: parsed.reason });
      continue;
    }
    const key = `${parsed.page.slug} ${parsed.page.language}`;
    const earlier = seen.get(key);
    if (earlier) {
      report.refused.push({ file, reason: `same slug and language as ${earlier}` });
      continue;
    }
    seen.set(key, file);
    accepted.push({ file, page: parsed.page });
  }
  return whenReady(store.importPages(accepted, now), (imported) => {
    report.imported = imported;
    return report;
  });
}
