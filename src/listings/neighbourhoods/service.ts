import type { Db } from '@/db/client';
import { appendEvent } from '@/events/outbox';
import { fail } from '@/kernel/errors';
import type { Neighbourhood, NeighbourhoodBody } from '@/listings/neighbourhoods/schemas';
import { exec, many, one, writeTransaction } from '@/listings/sql';

/** GET /neighbourhoods[?cityId=]: the catalogue, by city then name. */
export function listNeighbourhoods(db: Db, cityId: string | undefined): Neighbourhood[] {
  const where = cityId === undefined ? '' : 'WHERE city_id = ?';
  const params = cityId === undefined ? [] : [cityId];
  return many<Neighbourhood>(
    db,
    `SELECT id, city_id AS cityId, name FROM neighbourhoods ${where} ORDER BY city_id, name, id`,
    ...params,
  );
}

/**
 * PUT /neighbourhoods/{id}: creates or replaces a catalogue entry. Moving an
 * entry that properties use to another city would leave them in a
 * neighbourhood of another city, so that is a 409.
 */
export function putNeighbourhood(db: Db, id: string, body: NeighbourhoodBody, now: number) {
  writeTransaction(db, () => {
    const current = one<{ city_id: string }>(
      db,
      'SELECT city_id FROM neighbourhoods WHERE id = ?',
      id,
    );
    if (current && current.city_id !== body.cityId) {
      const used = one(db, 'SELECT 1 FROM properties WHERE neighbourhood_id = ? LIMIT 1', id);
      if (used) throw fail('neighbourhood.in_use');
    }
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
    appendEvent(
      db,
      {
        type: 'neighbourhood.updated',
        resource: { kind: 'neighbourhood', id },
        ownerId: null,
        data: { id, cityId: body.cityId, name: body.name },
      },
      now,
    );
  });
}
