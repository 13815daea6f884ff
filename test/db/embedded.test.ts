import { afterEach, expect, test } from 'bun:test';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { readMigrations, serviceMigrations } from '@/db/migrations';
import { migrationsFolder } from '@/db/sqlite/client';
import { embedded } from '@/kernel/embedded';

afterEach(() => {
  embedded.migrations = undefined;
});

test('from the source tree the service runs the migrations folder', () => {
  expect(serviceMigrations(migrationsFolder)).toEqual(readMigrations(migrationsFolder));
});

test('in a single-file build it runs the embedded copy, never the disk', () => {
  const journal = readFileSync(join(migrationsFolder, 'meta', '_journal.json'), 'utf8');
  const all = readMigrations(migrationsFolder);
  const sql = Object.fromEntries(
    all.map((m) => [m.tag, readFileSync(join(migrationsFolder, `${m.tag}.sql`), 'utf8')]),
  );
  embedded.migrations = { journal, sql };
  expect(serviceMigrations('/nonexistent')).toEqual(all);
  embedded.migrations = { journal, sql: {} };
  expect(() => serviceMigrations('/nonexistent')).toThrow(
    'migration 0000_users is not in the build',
  );
});
