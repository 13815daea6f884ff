import type { Caller } from '@/auth/tokens';
import type { Db } from '@/db/client';
import { fail, fieldError, isDomainError } from '@/kernel/errors';
import type { Data } from '@/listings/additional-data/schemas';
import { additionalDataEvent } from '@/listings/events';
import { findProperty } from '@/listings/properties/service';
import { exec, one, writeTransaction } from '@/listings/sql';

const SAVE = `INSERT INTO property_additional_data (property_id, data, created_at, updated_at)
  VALUES (?, ?, ?, ?)
  ON CONFLICT (property_id) DO UPDATE SET data = excluded.data, updated_at = excluded.updated_at`;

const stored = (db: Db, propertyId: string) =>
  one<{ data: string }>(
    db,
    'SELECT data FROM property_additional_data WHERE property_id = ?',
    propertyId,
  );

/**
 * POST /properties/additional-data: a missing (or, for a customer, another
 * owner's) property is 422 `recordNotFound`, existing data 422 `recordExists`.
 */
export function createAdditionalData(
  db: Db,
  id: string,
  data: Data,
  caller: Caller | null,
  now: number,
) {
  writeTransaction(db, () => {
    try {
      findProperty(db, id, caller);
    } catch (error) {
      if (!isDomainError(error, 'property.not_found')) throw error;
      throw fieldError(['id'], 'recordNotFound', 'No property with this id was found');
    }
    if (stored(db, id)) {
      throw fieldError(['id'], 'recordExists', 'Additional data already exists for this property');
    }
    exec(db, SAVE, id, JSON.stringify(data), now, now);
    additionalDataEvent(db, id, data, now);
  });
}

/** GET /properties/{id}/additional-data: 404 without a visible property or without data. */
export function readAdditionalData(db: Db, id: string, caller: Caller | null): Data {
  findProperty(db, id, caller);
  const row = stored(db, id);
  if (!row) throw fail('additional_data.not_found');
  return JSON.parse(row.data) as Data;
}

/** PUT /properties/{id}/additional-data: creates or replaces (404 for a missing property). */
export function putAdditionalData(
  db: Db,
  id: string,
  data: Data,
  caller: Caller | null,
  now: number,
) {
  writeTransaction(db, () => {
    findProperty(db, id, caller);
    exec(db, SAVE, id, JSON.stringify(data), now, now);
    additionalDataEvent(db, id, data, now);
  });
}
