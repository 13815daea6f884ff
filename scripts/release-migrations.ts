/**
 * `bun scripts/release-migrations.ts`: records every migration of
 * migrations/meta/_journal.json that is not in migrations/released.json yet
 * (tag, journal time, sha256 of its SQL and of its snapshot). Run it when a
 * version with new migrations ships; from then on the released-migrations
 * test fails if any of them is edited, renamed or removed.
 */
import { createHash } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

export interface ReleasedMigration {
  tag: string;
  when: number;
  sql: string;
  snapshot: string;
}

export const MIGRATIONS = join(import.meta.dir, '..', 'migrations');
export const MANIFEST = join(MIGRATIONS, 'released.json');

const sha256 = (path: string) => createHash('sha256').update(readFileSync(path)).digest('hex');

/** What the manifest would record for a journal entry as the files are now. */
export function describeMigration(tag: string, when: number, idx: number): ReleasedMigration {
  const snapshot = `${String(idx).padStart(4, '0')}_snapshot.json`;
  return {
    tag,
    when,
    sql: sha256(join(MIGRATIONS, `${tag}.sql`)),
    snapshot: sha256(join(MIGRATIONS, 'meta', snapshot)),
  };
}

export const journalEntries = () =>
  (
    JSON.parse(readFileSync(join(MIGRATIONS, 'meta', '_journal.json'), 'utf8')) as {
      entries: { idx: number; tag: string; when: number }[];
    }
  ).entries;

export const releasedMigrations = () =>
  (JSON.parse(readFileSync(MANIFEST, 'utf8')) as { released: ReleasedMigration[] }).released;

if (import.meta.main) {
  let released: ReleasedMigration[] = [];
  try {
    released = releasedMigrations();
  } catch {}
  const added = journalEntries()
    .slice(released.length)
    .map(({ tag, when, idx }) => describeMigration(tag, when, idx));
  writeFileSync(MANIFEST, `${JSON.stringify({ released: [...released, ...added] }, null, 2)}\n`);
  console.log(
    added.length ? `released ${added.map((m) => m.tag).join(', ')}` : 'nothing new to release',
  );
}
