import { Database } from 'bun:sqlite';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { tempDir } from '../support/harness';

/** The database inside a backup file, written uncompressed to a temp folder and opened read-only. */
export function openBackup(path: string): Database {
  const file = join(tempDir('listings-backup-open-'), 'restored.db');
  writeFileSync(file, Bun.gunzipSync(readFileSync(path)));
  return new Database(file, { readonly: true });
}

/** A valid property body (the listings API's create). */
export const propertyBody = (addressLine1: string) => ({
  type: 'apartment',
  ownerId: 'owner-1',
  totalUnits: 2,
  rentableUnits: 1,
  isVisitable: true,
  location: {
    addressLine1,
    city: 'Barcelona',
    cityId: 'barcelona',
    postalCode: '08001',
    latitude: 41.38,
    longitude: 2.17,
  },
});
