import { expect, test } from 'bun:test';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { CLIENT_TYPES_FILE, clientTypesSource } from '../../client/scripts/generate-types';

const SOURCE = join(import.meta.dir, '..', '..', 'client', 'src');

/**
 * The published client carries its own types, generated from the service's
 * zod schemas (client/scripts/generate-types.ts). Regenerated here: a schema change
 * without `npm run client:types` fails, so the built types cannot drift.
 * (test/client/types.test.ts proves each type equal to its schema.)
 */
test('client/src/schema-types.ts is what the schemas generate today', () => {
  const committed = readFileSync(CLIENT_TYPES_FILE, 'utf8');
  const fresh = clientTypesSource();
  expect(committed === fresh ? 'up to date' : 'stale: run `npm run client:types`').toBe(
    'up to date',
  );
});

test('the client imports nothing outside client/src: no server module, no zod', () => {
  for (const file of readdirSync(SOURCE)) {
    const text = readFileSync(join(SOURCE, file), 'utf8');
    const imports = [...text.matchAll(/from '([^']+)'/g)].map((m) => m[1]!);
    const foreign = imports.filter((path) => !/^\.\/[\w-]+\.js$/.test(path));
    expect([file, foreign]).toEqual([file, []]);
  }
});
