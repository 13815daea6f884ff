import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { embedded } from '@/kernel/embedded';

const BREAKPOINT = '--> statement-breakpoint';

/** One migration of `migrations/`, as drizzle-kit wrote it. */
export interface Migration {
  /** The file name without `.sql`, e.g. `0005_listings`. */
  tag: string;
  /** The journal's timestamp: the order, and what the bookkeeping table records. */
  when: number;
  statements: string[];
  /** sha256 of the SQL text, recorded beside `when` (as drizzle's migrator does). */
  hash: string;
}

interface Journal {
  entries: { tag: string; when: number }[];
}

/** The migrations of a journal, each SQL text given by `sqlOf(tag)`. */
export function migrationsOf(journalText: string, sqlOf: (tag: string) => string): Migration[] {
  const journal = JSON.parse(journalText) as Journal;
  return journal.entries.map(({ tag, when }) => {
    const text = sqlOf(tag);
    return {
      tag,
      when,
      statements: text.split(BREAKPOINT),
      hash: createHash('sha256').update(text).digest('hex'),
    };
  });
}

/** The migrations of a drizzle-kit folder (`meta/_journal.json` and `<tag>.sql`). */
export function readMigrations(folder: string): Migration[] {
  return migrationsOf(readFileSync(join(folder, 'meta', '_journal.json'), 'utf8'), (tag) =>
    readFileSync(join(folder, `${tag}.sql`), 'utf8'),
  );
}

/** The migrations the service runs: those built into a single-file binary, else `folder`'s. */
export function serviceMigrations(folder: string): Migration[] {
  const built = embedded.migrations;
  if (!built) return readMigrations(folder);
  return migrationsOf(built.journal, (tag) => {
    const text = built.sql[tag];
    if (text === undefined) throw new Error(`migration ${tag} is not in the build`);
    return text;
  });
}

/** A migration that failed; nothing of the run was kept. */
export class MigrationError extends Error {
  override readonly name = 'MigrationError';
  constructor(
    readonly tag: string,
    readonly reason: string,
  ) {
    super(`migration ${tag} failed: ${reason}`);
  }
}
