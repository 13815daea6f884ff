import { describe, expect, test } from 'bun:test';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { EnvSchema } from '@/config';

const root = join(import.meta.dir, '..');

/** The names `.env.example` sets, commented out or not: lines `NAME=…` or `#NAME=…`. */
function exampleNames(text: string): string[] {
  return [...text.matchAll(/^#?\s*([A-Z][A-Z0-9_]*)=/gm)].map(([, name]) => name!);
}

describe('.env.example', () => {
  const text = readFileSync(join(root, '.env.example'), 'utf8');

  test('names exactly the variables src/config reads, each once', () => {
    const read = Object.keys(EnvSchema.shape).sort();
    const listed = exampleNames(text);
    const missing = read.filter((name) => !listed.includes(name));
    const extra = [...new Set(listed)].filter((name) => !read.includes(name));
    const twice = listed.filter((name, index) => listed.indexOf(name) !== index);
    // The message names what to fix, whichever side changed.
    expect({
      'read by src/config, missing from .env.example': missing,
      'in .env.example, not read by src/config': extra,
      'in .env.example more than once': twice,
    }).toEqual({
      'read by src/config, missing from .env.example': [],
      'in .env.example, not read by src/config': [],
      'in .env.example more than once': [],
    });
  });

  test('each variable has a one-line meaning above it and a default or an empty value', () => {
    const lines = text.split('\n');
    for (const [index, line] of lines.entries()) {
      if (!/^#?[A-Z][A-Z0-9_]*=/.test(line)) continue;
      const above = lines.slice(0, index).findLast((l) => !/^#?[A-Z][A-Z0-9_]*=/.test(l));
      expect([line, above?.startsWith('# ')]).toEqual([line, true]);
    }
  });

  test('the defaults shown are the defaults src/config applies', () => {
    const defaults = EnvSchema.parse({});
    for (const [, name, value] of text.matchAll(/^#([A-Z][A-Z0-9_]*)=(.+)$/gm)) {
      const parsed = EnvSchema.parse({ [name!]: value });
      expect([name, parsed[name as keyof typeof parsed]]).toEqual([
        name,
        defaults[name as keyof typeof defaults],
      ]);
    }
  });
});
