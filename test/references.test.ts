import { describe, expect, test } from 'bun:test';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { findReferences } from '../scripts/check-references';
import { tempDir } from './support/harness';

const SCRIPT = join(import.meta.dir, '..', 'scripts', 'check-references.ts');

// Assembled from pieces so that this file trips neither the check nor a grep for it.
const piece = (...parts: string[]) => parts.join('');
const citations = [
  piece('// see CON', 'TRACT §5'),
  piece(' * as SP', 'EC.md lists'),
  piece('test("faster (iss', 'ue #10)")'),
  piece('const table = "sha', 'red/data/city-countries.json";'),
];
const clean = [
  '// The customer API answers errors as {message, errors}; see docs/errors.md.',
  'const sharedFoo = 1;',
  piece("import { helper } from './support/sha", "red/helper';"),
  piece("const url = 'https://example.com/not-sha", "red/x';"),
  '// an issue with the cache; the contract of this function',
];

function folder(files: Record<string, string>): string {
  const dir = tempDir();
  for (const [name, text] of Object.entries(files)) {
    mkdirSync(join(dir, name, '..'), { recursive: true });
    writeFileSync(join(dir, name), text);
  }
  return dir;
}

const run = (dir: string) => {
  const result = Bun.spawnSync([process.execPath, SCRIPT, dir], { cwd: dir });
  return { code: result.exitCode, out: result.stdout.toString() };
};

describe('scripts/check-references.ts', () => {
  test('a folder with a planted citation fails and names file and line', () => {
    const dir = folder({
      'src/bad.ts': `const a = 1;\n${citations[0]}\n`,
      'docs/clean.md': clean.join('\n'),
    });
    const { code, out } = run(dir);
    expect(code).toBe(1);
    expect(out.trim().split('\n')).toEqual([`src/bad.ts:2: ${citations[0]!.trim()}`]);
  });

  test('a folder of clean files passes', () => {
    const dir = folder({ 'src/clean.ts': clean.join('\n'), 'README.md': '# Title\n' });
    expect(run(dir)).toEqual({ code: 0, out: '' });
  });

  test('each kind of citation is found; look-alike words are not', () => {
    const dir = folder({ 'cited.ts': citations.join('\n'), 'clean.ts': clean.join('\n') });
    const found = findReferences([dir]).map(({ file, line }) => [file.slice(dir.length + 1), line]);
    expect(found).toEqual([
      ['cited.ts', 1],
      ['cited.ts', 2],
      ['cited.ts', 3],
      ['cited.ts', 4],
    ]);
  });

  test('binary files are skipped', () => {
    const dir = folder({});
    writeFileSync(
      join(dir, 'image.png'),
      Buffer.concat([Buffer.from([0, 1, 2]), Buffer.from(citations[0]!)]),
    );
    expect(findReferences([dir])).toEqual([]);
  });
});
