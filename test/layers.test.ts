import { describe, expect, test } from 'bun:test';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { checkLayers } from '../scripts/check-layers';
import { tempDir } from './support/harness';

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
    expect(checkLayers(join(import.meta.dir, '..'))).toEqual([]);
  });

  test('a domain importing the transport or Elysia is named, file and line', () => {
    const root = tree({
      'src/listings/service.ts':
        "import { x } from '@/kernel/errors';\nimport { y } from '@/api/errors';\n",
      'src/content/cache.ts': "import type { z } from '../api/request/url';\n",
      'src/accounts/routes.ts': "import { Elysia } from 'elysia';\n",
      'scripts/tool.ts': "import { app } from '../src/api/deps';\n",
      'src/api/routes.ts':
        "import { Elysia } from 'elysia';\nimport { s } from '@/listings/service';\n",
      'src/app.ts': "import { r } from './api/routes';\n",
    });
    expect(checkLayers(root)).toEqual([
      { file: 'scripts/tool.ts', line: 1, specifier: '../src/api/deps' },
      { file: 'src/accounts/routes.ts', line: 1, specifier: 'elysia' },
      { file: 'src/content/cache.ts', line: 1, specifier: '../api/request/url' },
      { file: 'src/listings/service.ts', line: 2, specifier: '@/api/errors' },
    ]);
  });
});
