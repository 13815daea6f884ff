import { describe, expect, test } from 'bun:test';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { EnvSchema } from '@/config';

const root = join(import.meta.dir, '..');

interface Row {
  name: string;
  /** The default column as written, e.g. "`3000`" or "unset". */
  shownDefault: string;
}

/** The rows of a document's tables whose first cell is one variable: `| `NAME` | default | meaning |`. */
function variableRows(file: string): Row[] {
  const text = readFileSync(join(root, file), 'utf8');
  return [...text.matchAll(/^\|\s*`([A-Z][A-Z0-9_]*)`\s*\|([^|\n]*)\|/gm)].map(
    ([, name, shownDefault]) => ({ name: name!, shownDefault: shownDefault!.trim() }),
  );
}

const schemaNames = Object.keys(EnvSchema.shape).sort();
const defaults: Record<string, unknown> = EnvSchema.parse({});
type Name = keyof typeof EnvSchema.shape;

/** The default a row shows, when it is one literal in backticks: "`on`" → "on". */
function literalOf(shownDefault: string): string | undefined {
  return /^`([^`]+)`$/.exec(shownDefault)?.[1];
}

/** Each row whose variable has a literal default in the schema, and what the row's default parses to. */
function defaultsShown(rows: Row[]): { name: string; shown: unknown }[] {
  return rows
    .filter((row) => defaults[row.name] !== undefined)
    .map((row) => {
      const literal = literalOf(row.shownDefault);
      const parsed =
        literal === undefined ? undefined : EnvSchema.shape[row.name as Name].safeParse(literal);
      return { name: row.name, shown: parsed?.success ? parsed.data : row.shownDefault };
    });
}

describe('docs/configuration.md', () => {
  const rows = variableRows('docs/configuration.md');
  const names = rows.map((row) => row.name);

  test('lists exactly the variables src/config reads, each once', () => {
    const twice = names.filter((name, index) => names.indexOf(name) !== index);
    expect({
      'read by src/config, missing from the page': schemaNames.filter((n) => !names.includes(n)),
      'on the page, not read by src/config': names.filter((n) => !schemaNames.includes(n)),
      'on the page more than once': twice,
    }).toEqual({
      'read by src/config, missing from the page': [],
      'on the page, not read by src/config': [],
      'on the page more than once': [],
    });
  });

  test('shows the default src/config applies, where it is a literal', () => {
    const shown = defaultsShown(rows);
    // Every variable with a literal default is compared, not only the ones written as one.
    expect(shown.length).toBe(schemaNames.filter((n) => defaults[n] !== undefined).length);
    expect(shown).toEqual(shown.map(({ name }) => ({ name, shown: defaults[name] as unknown })));
  });

  test('says "unset" or how it is computed for a variable without a literal default', () => {
    const withoutDefault = rows.filter((row) => defaults[row.name] === undefined);
    expect(withoutDefault.length).toBeGreaterThan(0);
    for (const row of withoutDefault) {
      expect([row.name, row.shownDefault]).not.toEqual([row.name, '']);
    }
  });
});

describe("the README's configuration table", () => {
  const rows = variableRows('README.md');

  test('names only variables src/config reads, SIGN_UP among them', () => {
    const names = rows.map((row) => row.name);
    expect(names.filter((name) => !schemaNames.includes(name))).toEqual([]);
    // Open by default: a reader deciding whether to expose the service must see it.
    expect(names).toContain('SIGN_UP');
  });

  test('shows the defaults src/config applies', () => {
    const shown = defaultsShown(rows);
    expect(shown).toEqual(shown.map(({ name }) => ({ name, shown: defaults[name] as unknown })));
  });
});
