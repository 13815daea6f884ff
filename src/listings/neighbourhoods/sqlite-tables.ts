import type { Db } from '@/db/sqlite/client';
import { appendEvents } from '@/events/sqlite-outbox';
import { runNow } from '@/kernel/steps';
import type { NeighbourhoodTables } from '@/listings/neighbourhoods/tables';
import { exec, many, one, writeTransaction } from '@/listings/sqlite-statements';
import { putNeighbourhood } from './operations';
import type { Neighbourhood, NeighbourhoodBody } from './schemas';

/** GET /neighbourhoods[?cityId=] on SQLite: the catalogue, by city then name. */
export function listNeighbourhoods(db: Db, cityId: string | undefined): Neighbourhood[] {
  const where = cityId === undefined ? '' : 'WHERE city_id = ?';
  const params = cityId === undefined ? [] : [cityId];
  return many<Neighbourhood>(
    db,
    `SELECT id, city_id AS cityId, name FROM neighbourhoods ${where} ORDER BY city_id, name, id`,
    ...params,
  );
}

/** GET /neighbourhoods/{id} on SQLite: one entry, undefined when there is none. */
export const findNeighbourhood = (db: Db, id: string): Neighbourhood | undefined =>
  one<Neighbourhood>(
    db,
    'SELECT id, city_id AS cityId, name FROM neighbourhoods WHERE id = ?',
    id,
  ) ?? undefined;

/** The catalogue queries on SQLite, inside the write's transaction. */
export const sqliteNeighbourhoodTables = (db: Db): NeighbourhoodTables => ({
  entry: (id) =>
    one<NeighbourhoodBody>(
      db,
      'SELECT city_id AS cityId, name FROM neighbourhoods WHERE id = ?',
      id,
    ),
  inUse: (id) =>
    one(db, 'SELECT 1 FROM properties WHERE neighbourhood_id = ? LIMIT 1', id) !== null,
  upsert(id, body, now) {
    exec(
      db,
      `INSERT INTO neighbourhoods (id, city_id, name, updated_at) VALUES (?, ?, ?, ?)
       ON CONFLICT (id) DO UPDATE SET city_id = excluded.city_id, name = excluded.name,
         updated_at = excluded.updated_at`,
      id,
      body.cityId,
      body.name,
      now,
    );
  },
  appendEvents: (batch) => appendEvents(db, batch),
});

/** PUT /neighbourhoods/{id} on SQLite, in its own write transaction (the store and the demo data). */
export const putNeighbourhoodOnSqlite = (
  db: Db,
  id: string,
  body: NeighbourhoodBody,
  now: number,
  ifMatch?: string,
): void =>
  writeTransaction(db, () =>
    runNow(putNeighbourhood(sqliteNeighbourhoodTables(db), id, body, now, ifMatch)),
  );
