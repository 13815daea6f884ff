import { describe, expect, test } from 'bun:test';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { checkImports, checkLayers, parseLayerTable } from '../scripts/check-layers';
import { tempDir } from './support/harness';

const REPOSITORY = join(import.meta.dir, '..');
const TABLE_PAGE = join(REPOSITORY, 'docs/architecture.md');
const RULES = parseLayerTable(readFileSync(TABLE_PAGE, 'utf8'));

function tree(files: Record<string, string>): string {
  const root = tempDir('layers-');
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(join(root, path, '..'), { recursive: true });
    writeFileSync(join(root, path), text);
  }
  return root;
}

describe('layer check', () => {
  test('the repository passes', () => {
    expect(checkLayers(REPOSITORY)).toEqual([]);
  });

  test('every folder and file of src/ has a row of the folder map', () => {
    const rows = RULES.flatMap((rule) => rule.units);
    const src = new Bun.Glob('src/*').scanSync({ cwd: REPOSITORY, onlyFiles: false });
    for (const entry of src) expect(rows).toContain(entry);
  });

  test('a domain importing another the table does not give it is named, with the rule', () => {
    const root = tree({
      'src/listings/properties/operations.ts':
        "import { fail } from '@/kernel/errors';\nimport {\n  sign,\n} from '@/webhooks/signing';\n",
      'src/webhooks/store.ts': "import type { EventRow } from '../events/store';\n",
    });
    expect(checkLayers(root, TABLE_PAGE)).toEqual([
      {
        file: 'src/listings/properties/operations.ts',
        line: 4,
        specifier: '@/webhooks/signing',
        rule: 'src/listings may not import src/webhooks (src/listings may import: `src/kernel/`, `src/db/`, `src/auth/`, `src/events/`, `src/audit/`)',
      },
    ]);
  });

  test('the kernel and the database layer import nothing above them', () => {
    const findings = checkImports(
      '/repo',
      RULES,
      new Map([
        ['src/kernel/steps.ts', "import type { Db } from '@/db/sqlite/client';\n"],
        ['src/db/sqlite/health.ts', "import type { MaybePromise } from '@/rate-limit/store';\n"],
      ]),
    );
    expect(findings.map(({ file, rule }) => [file, rule])).toEqual([
      [
        'src/db/sqlite/health.ts',
        'src/db may not import src/rate-limit (src/db may import: `src/kernel/`)',
      ],
      [
        'src/kernel/steps.ts',
        'src/kernel may not import src/db (src/kernel may import: nothing of the project)',
      ],
    ]);
  });

  test('a domain importing the transport or Elysia is named, file and line', () => {
    const root = tree({
      'src/listings/operations.ts':
        "import { x } from '@/kernel/errors';\nimport { y } from '@/api/errors';\n",
      'src/content/cache.ts': "import type { z } from '../api/request/url';\n",
      'src/accounts/routes.ts': "import { Elysia } from 'elysia';\n",
      'scripts/tool.ts': "import { app } from '../src/api/deps';\n",
      'src/api/routes.ts':
        "import { Elysia } from 'elysia';\nimport { s } from '@/listings/operations';\n",
      'src/app.ts': "import { r } from './api/routes';\n",
    });
    expect(
      checkLayers(root, TABLE_PAGE).map(({ file, line, specifier }) => ({ file, line, specifier })),
    ).toEqual([
      { file: 'scripts/tool.ts', line: 1, specifier: '../src/api/deps' },
      { file: 'src/accounts/routes.ts', line: 1, specifier: 'elysia' },
      { file: 'src/content/cache.ts', line: 1, specifier: '../api/request/url' },
      { file: 'src/listings/operations.ts', line: 2, specifier: '@/api/errors' },
    ]);
  });

  test('a side-effect import and every form of export … from are checked', () => {
    const findings = checkImports(
      '/repo',
      RULES,
      new Map([
        ['src/kernel/clock.ts', "import '@/rate-limit/store';\nexport const now = 1;\n"],
        [
          'src/db/ids.ts',
          [
            "export { sign } from '@/webhooks/signing';",
            "export * from '../listings/store';",
            "export * as audit from '@/audit/store';",
            "export type {\n  Quota,\n} from '@/rate-limit/store';",
            "import './client';",
            "export { fail } from '@/kernel/errors';",
            '',
          ].join('\n'),
        ],
      ]),
    );
    expect(findings.map(({ file, line, specifier }) => ({ file, line, specifier }))).toEqual([
      { file: 'src/db/ids.ts', line: 1, specifier: '@/webhooks/signing' },
      { file: 'src/db/ids.ts', line: 2, specifier: '../listings/store' },
      { file: 'src/db/ids.ts', line: 3, specifier: '@/audit/store' },
      { file: 'src/db/ids.ts', line: 6, specifier: '@/rate-limit/store' },
      { file: 'src/kernel/clock.ts', line: 1, specifier: '@/rate-limit/store' },
    ]);
  });

  test('a file in a folder the table does not list is named', () => {
    const root = tree({ 'src/reports/monthly.ts': 'export const monthly = 1;\n' });
    expect(checkLayers(root, TABLE_PAGE)).toEqual([
      {
        file: 'src/reports/monthly.ts',
        line: 1,
        specifier: '',
        rule: 'src/reports/monthly.ts is in no row of the folder map',
      },
    ]);
  });

  test('a rule naming a folder that has no row is refused', () => {
    const table =
      '## Folder map\n\n| folder | holds | may import |\n| - | - | - |\n| `src/db/` | x | `src/kernl/` |\n';
    expect(() => parseLayerTable(table)).toThrow('names src/kernl, not a row');
  });
});

describe('names of the tables ports', () => {
  /** `const x = (…): SomeTables => …`: a function building a tables port. */
  const BUILDER =
    /(?:const|function)\s+(\w+)\s*(?:=\s*(?:<[^>]*>)?\s*)?\([^)]*\)\s*:\s*(\w+Tables)\b/g;

  test("each database's implementation of a port is named sqlite<Port> or postgres<Port>", () => {
    const misnamed: string[] = [];
    let seen = 0;
    for (const path of new Bun.Glob('src/**/{sqlite,postgres}-*.ts').scanSync({
      cwd: REPOSITORY,
    })) {
      const database = path.split('/').at(-1)!.startsWith('sqlite-') ? 'sqlite' : 'postgres';
      const text = readFileSync(join(REPOSITORY, path), 'utf8');
      for (const [, name, port] of text.matchAll(BUILDER)) {
        seen++;
        if (name !== `${database}${port}`) misnamed.push(`${path}: ${name} builds ${port}`);
      }
    }
    expect(seen).toBeGreaterThan(10);
    expect(misnamed).toEqual([]);
  });

  /** A port: an interface (or type) named `…Tables` (queries inside one transaction) or `…Store`. */
  const PORT = /^export (?:interface|type) (\w+?(Tables|Store))\b/gm;

  test("a tables port is declared in its folder's tables.ts, a store in its store.ts", () => {
    const misplaced: string[] = [];
    const seen = { Tables: 0, Store: 0 };
    for (const path of new Bun.Glob('src/**/*.ts').scanSync({ cwd: REPOSITORY })) {
      const text = readFileSync(join(REPOSITORY, path), 'utf8');
      for (const [, name, role] of text.matchAll(PORT)) {
        const kind = role as keyof typeof seen;
        seen[kind]++;
        const home = kind === 'Tables' ? 'tables.ts' : 'store.ts';
        if (path.split('/').at(-1) !== home)
          misplaced.push(`${path}: ${name} (belongs in ${home})`);
      }
    }
    expect(seen.Tables).toBeGreaterThan(10);
    expect(seen.Store).toBeGreaterThan(10);
    expect(misplaced).toEqual([]);
  });
});
