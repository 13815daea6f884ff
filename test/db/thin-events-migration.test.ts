import { Database } from 'bun:sqlite';
import { afterAll, describe, expect, test } from 'bun:test';
import { join } from 'node:path';
import { SQL } from 'bun';
import { type Migration, readMigrations } from '@/db/migrations';
import { migratePostgres, pgMigrationsFolder } from '@/db/pg/migrate';
import { migrationsFolder } from '@/db/sqlite/client';
import { applyMigrations } from '@/db/sqlite/migrate';
import { tempDir } from '../support/harness';
import {
  createTestDatabase,
  pgSuite,
  postgresAvailable,
  type TestDatabase,
} from '../support/postgres';

/** The migrations before the one that thins stored events, and all of them. */
function splitAtThinning(folder: string): [before: Migration[], all: Migration[]] {
  const all = readMigrations(folder);
  const at = all.findIndex((migration) => migration.tag.endsWith('_thin-events'));
  expect(at).toBeGreaterThan(0);
  return [all.slice(0, at), all];
}

const feature = { applicability: 'unit', category: 'notes', name: 'n', value: 'v'.repeat(255) };
const page = { content: 'body '.repeat(1000), slug: 'about', language: 'es-ES', title: 'Sobre' };
const unit = {
  ...{ id: 'u1', propertyId: 'p1', rentable: true, published: false },
  ...{ deleted: false, deletedAt: null },
};
/** Events as versions before the thinning wrote them: [type, kind, resource id, data]. */
const OLD_EVENTS: [string, string, string, object][] = [
  [
    'additional_data.updated',
    'additional_data',
    'p1',
    { id: 'p1', data: { fill: 'x'.repeat(65_000) } },
  ],
  ['unit.updated', 'unit', 'u1', { ...unit, features: Array(50).fill(feature) }],
  ['static_page.published', 'static_page', '7', page],
  ['static_page.unpublished', 'static_page', '7', page],
  ['static_page.deleted', 'static_page', '7', { id: '7', slug: 'about', language: 'es-ES' }],
  ['property.created', 'property', 'p1', { id: 'p1', type: 'apartment' }],
];
/** The same events afterwards, in order. */
const THINNED = [
  { id: 'p1' },
  unit,
  { id: '7', slug: 'about', language: 'es-ES' },
  { id: '7', slug: 'about', language: 'es-ES' },
  { id: '7', slug: 'about', language: 'es-ES' },
  { id: 'p1', type: 'apartment' },
];

describe('the migration that thins stored events', () => {
  test('SQLite: additional data becomes {id}, a unit loses its features, a page {id, slug, language}; other events stay', () => {
    const [before, all] = splitAtThinning(migrationsFolder);
    const client = new Database(join(tempDir(), 'app.db'));
    try {
      applyMigrations(client, before);
      const insert = client.prepare(
        'INSERT INTO events (type, occurred_at, resource_kind, resource_id, owner_id, data) VALUES (?, 0, ?, ?, NULL, ?)',
      );
      for (const [type, kind, id, data] of OLD_EVENTS)
        insert.run(type, kind, id, JSON.stringify(data));
      applyMigrations(client, all);
      const rows = client.query<{ data: string }, []>('SELECT data FROM events ORDER BY id').all();
      expect(rows.map((row) => JSON.parse(row.data))).toEqual(THINNED);
    } finally {
      client.close();
    }
  });

  const opened: TestDatabase[] = [];
  afterAll(async () => {
    for (const database of opened) await database.drop();
  });

  test.skipIf(!postgresAvailable)(
    pgSuite('PostgreSQL: the same rows become the same'),
    async () => {
      const [before, all] = splitAtThinning(pgMigrationsFolder);
      const database = await createTestDatabase();
      opened.push(database);
      await migratePostgres(database.url, before);
      const client = new SQL(database.url, { max: 1 });
      try {
        for (const [type, kind, id, data] of OLD_EVENTS) {
          await client`INSERT INTO events (type, occurred_at, resource_kind, resource_id, owner_id, data)
          VALUES (${type}, 0, ${kind}, ${id}, NULL, ${JSON.stringify(data)})`;
        }
        await migratePostgres(database.url, all);
        const rows = await client<{ data: string }[]>`SELECT data FROM events ORDER BY id`;
        expect(rows.map((row) => JSON.parse(row.data))).toEqual(THINNED);
      } finally {
        await client.close();
      }
    },
  );
});
