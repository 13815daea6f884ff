import type { Db } from '@/db/client';
import { appendEvents } from '@/events/sqlite-outbox';
import type { NewEvent } from '@/events/store';
import { fail } from '@/kernel/errors';
import type { MaybePromise } from '@/kernel/maybe-promise';
import { runNow, type Steps, step } from '@/kernel/steps';
import type { Neighbourhood, NeighbourhoodBody } from '@/listings/neighbourhoods/schemas';
import { exec, many, one, writeTransaction } from '@/listings/sqlite-statements';

/** The queries of a catalogue write, inside one transaction of a store. */
export interface NeighbourhoodTables {
  /**
   * The entry's city, or null; held until the transaction ends so a
   * property assigned to it meanwhile waits (SQLite: the single writer).
   */
  cityOf(id: string): MaybePromise<string | null>;
  /** Whether any property is in the neighbourhood. */
  inUse(id: string): MaybePromise<boolean>;
  upsert(id: string, body: NeighbourhoodBody, now: number): MaybePromise<void>;
  appendEvents(batch: readonly { event: NewEvent; now: number }[]): MaybePromise<void>;
}

/**
 * PUT /neighbourhoods/{id}: creates or replaces a catalogue entry. Moving an
 * entry that properties use to another city would leave them in a
 * neighbourhood of another city, so that is a 409.
 */
export function* putNeighbourhood(
  t: NeighbourhoodTables,
  id: string,
  body: NeighbourhoodBody,
  now: number,
): Steps<void> {
  const current = yield* step(t.cityOf(id));
  if (current !== null && current !== body.cityId) {
    if (yield* step(t.inUse(id))) throw fail('neighbourhood.in_use');
  }
  yield* step(t.upsert(id, body, now));
  const event: NewEvent = {
    type: 'neighbourhood.updated',
    resource: { kind: 'neighbourhood', id },
    ownerId: null,
    data: { id, cityId: body.cityId, name: body.name },
  };
  yield* step(t.appendEvents([{ event, now }]));
}

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

/** The catalogue queries on SQLite, inside the write's transaction. */
export const sqliteNeighbourhoodTables = (db: Db): NeighbourhoodTables => ({
  cityOf: (id) =>
    one<{ city_id: string }>(db, 'SELECT city_id FROM neighbourhoods WHERE id = ?', id)?.city_id ??
    null,
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
): void =>
  writeTransaction(db, () =>
    runNow(putNeighbourhood(sqliteNeighbourhoodTables(db), id, body, now)),
  );
