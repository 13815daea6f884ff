import { Database } from 'bun:sqlite';
import { expect, test } from 'bun:test';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { MIGRATIONS_TABLE } from '@/db/sqlite/client';
import {
  describeMigration,
  journalEntries,
  releasedMigrations,
} from '../../scripts/release-migrations';

/**
 * A released migration has run on operators' databases: editing, renaming
 * or removing it would leave those databases different from new ones (the
 * migrator only looks at journal times, never at the SQL again). Change the
 * schema with a new migration instead (`bun run db:generate`), which this
 * test allows. When a version carrying new migrations ships, record them
 * with `bun scripts/release-migrations.ts` and commit migrations/released.json.
 */
const FIXTURES = join(import.meta.dir, '..', 'fixtures', 'upgrade');

const HOW =
  'released migrations are never edited, renamed or removed; add a new one with `bun run db:generate` (see test/db/released-migrations.test.ts)';

test('every released migration is in the journal, in place, byte for byte', () => {
  const released = releasedMigrations();
  const journal = journalEntries();
  expect(released.length).toBeGreaterThanOrEqual(9);
  for (const [index, migration] of released.entries()) {
    const entry = journal[index];
    const now = entry ? describeMigration(entry.tag, entry.when, entry.idx) : undefined;
    expect({ migration: migration.tag, now, how: HOW }).toEqual({
      migration: migration.tag,
      now: migration,
      how: HOW,
    });
  }
});

test('migrations after the released ones only append to the journal', () => {
  const released = releasedMigrations();
  const journal = journalEntries();
  const last = released.at(-1)!;
  for (const entry of journal.slice(released.length)) {
    expect(entry.when).toBeGreaterThan(last.when);
  }
  expect(journal.map((entry) => entry.idx)).toEqual(journal.map((_, index) => index));
});

test("every migration a release's database carries is recorded as released", () => {
  // A database a release left behind (test/fixtures/upgrade/<version>.db) has
  // run exactly the migrations that release shipped: each must be in the
  // manifest, so none of them can be edited after it ran on operators' files.
  const releasedTimes = new Set(releasedMigrations().map((migration) => migration.when));
  const fixtures = readdirSync(FIXTURES).filter((name) => name.endsWith('.db'));
  expect(fixtures.length).toBeGreaterThan(0);
  for (const name of fixtures) {
    const db = new Database(join(FIXTURES, name), { readonly: true });
    try {
      const applied = db
        .query<{ when: number }, []>(`SELECT created_at AS "when" FROM ${MIGRATIONS_TABLE}`)
        .all()
        .map((row) => row.when);
      expect({ name, missing: applied.filter((when) => !releasedTimes.has(when)) }).toEqual({
        name,
        missing: [],
      });
    } finally {
      db.close();
    }
  }
});
