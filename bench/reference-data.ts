/**
 * The reference implementation's database for `bun run bench:reference`:
 * its own tables (bench/reference/schema.sql) filled with the same
 * properties and units as the service's seeded file, row for row and with
 * the same ids, so both answer the same reads from equivalent data. Unit
 * features and the service's own tables (search index, events, change log,
 * counters) have no counterpart there.
 */
import { Database } from 'bun:sqlite';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { CITY_COUNTRIES } from '@/listings/cities';

export const REFERENCE_DIR = join(import.meta.dir, 'reference');

const PROPERTY_COLUMNS = `id, type, owner_id, address_line1, address_line2, city, city_id,
  neighbourhood_id, postal_code, country, latitude, longitude, total_units, rentable_units,
  published_units, verified, year_of_construction, is_visitable, source, published, archived,
  created_at, updated_at`;
const UNIT_COLUMNS = 'id, property_id, rentable, published, deleted_at, created_at, updated_at';

/** The reference's tables and its cities, in a new database at `path` (no properties yet). */
export function emptyReference(path: string): void {
  const db = new Database(path, { create: true });
  try {
    createReferenceTables(db);
  } finally {
    db.close();
  }
}

function createReferenceTables(db: Database) {
  db.exec('PRAGMA journal_mode = WAL');
  db.exec(readFileSync(join(REFERENCE_DIR, 'schema.sql'), 'utf8'));
  const city = db.prepare('INSERT OR IGNORE INTO cities (id, country) VALUES (?, ?)');
  db.transaction(() => {
    for (const [id, country] of Object.entries(CITY_COUNTRIES)) city.run(id, country);
  })();
}

/** Copies the properties and units of `servicePath` into a new reference database at `referencePath`. */
export function copyToReference(servicePath: string, referencePath: string) {
  const db = new Database(referencePath, { create: true });
  try {
    db.exec('PRAGMA cache_size = -262144');
    createReferenceTables(db);
    db.exec('ATTACH DATABASE ? AS service', [servicePath]);
    db.transaction(() => {
      db.exec(
        `INSERT INTO properties (${PROPERTY_COLUMNS})
           SELECT ${PROPERTY_COLUMNS} FROM service.properties ORDER BY seq`,
      );
      db.exec(
        `INSERT INTO units (${UNIT_COLUMNS}) SELECT ${UNIT_COLUMNS} FROM service.units ORDER BY rowid`,
      );
    })();
    db.exec('DETACH DATABASE service');
    db.exec('PRAGMA wal_checkpoint(TRUNCATE)');
    const count = (table: string) =>
      db.query<{ n: number }, []>(`SELECT count(*) AS n FROM ${table}`).get()!.n;
    return { properties: count('properties'), units: count('units') };
  } finally {
    db.close();
  }
}
