import type { Db } from '@/db/client';
import { uuidv7 } from '@/db/ids';
import { insertRows } from '@/db/insert-rows';
import type { Bindings } from '@/db/where';
import { type CityId, countryOf } from '@/listings/cities';
import { propertiesCreatedEvents } from '@/listings/events';
import { addressSearchOf } from '@/listings/properties/representation';
import { MAX_UNITS, type PropertyType, type SOURCES } from '@/listings/properties/schemas';
import { writeTransaction } from '@/listings/sql';

export interface BulkUnitFeature {
  applicability: string;
  category: string;
  name: string;
  value: string;
}

export interface BulkUnitInput {
  rentable: boolean;
  /** Ignored (false) for a non-rentable unit or an archived property. */
  published?: boolean;
  features?: readonly BulkUnitFeature[];
}

export interface BulkPropertyInput {
  /** A UUIDv7 is generated when omitted. */
  id?: string;
  type: PropertyType;
  ownerId: string;
  location: {
    addressLine1: string;
    addressLine2?: string;
    city: string;
    cityId: CityId;
    postalCode: string;
    latitude: number;
    longitude: number;
    neighbourhoodId?: string | null;
  };
  yearOfConstruction?: number;
  isVisitable?: boolean;
  verified?: boolean;
  /** Imported records have the source `"null"` (the string) unless said otherwise. */
  source?: (typeof SOURCES)[number];
  archived?: boolean;
  /** Milliseconds since the epoch; `options.now` when omitted. */
  createdAt?: number;
  /** The units, 1..30 of them; without them `totalUnits` units are made, the first
   * `rentableUnits` rentable, none published (as POST /properties does). */
  units?: readonly BulkUnitInput[];
  totalUnits?: number;
  rentableUnits?: number;
  /** Multi-listing counter; `totalUnits` when omitted. */
  unitsCounter?: number;
}

export interface BulkInsertResult {
  properties: number;
  units: number;
  ids: string[];
}

const PROPERTY_INSERT = `INSERT INTO properties (id, type, owner_id, address_line1, address_line2,
  city, city_id, neighbourhood_id, postal_code, country, latitude, longitude, address_search,
  total_units, rentable_units, published_units, units_counter, verified, year_of_construction,
  is_visitable, source, published, archived, created_at, updated_at) VALUES `;
const PROPERTY_VALUES = `(${Array(25).fill('?').join(', ')})`;
const UNIT_INSERT = `INSERT INTO units (id, property_id, rentable, published, created_at, updated_at)
  VALUES `;
const UNIT_VALUES = '(?, ?, ?, ?, ?, ?)';
const FEATURE_INSERT = `INSERT INTO unit_features (unit_id, position, property_id, applicability,
  category, name, value) VALUES `;
const FEATURE_VALUES = '(?, ?, ?, ?, ?, ?, ?)';

function unitsOf(input: BulkPropertyInput): BulkUnitInput[] {
  if (input.units) return [...input.units];
  const total = input.totalUnits ?? 1;
  const rentable = input.rentableUnits ?? total;
  return Array.from({ length: total }, (_, index) => ({ rentable: index < rentable }));
}

/**
 * Inserts many properties with their units in one transaction through
 * prepared statements (for seeding and imports): counters derived from the
 * units as every other write does, `country` from `cityId`. Inputs are
 * trusted for types; an unknown `cityId` or a unit count outside 1..30 throws
 * and nothing is written. Each property gets its `property.created` event, at
 * its `createdAt`, unless `events` is false (the benchmark seed).
 */
export function insertPropertiesBulk(
  db: Db,
  rows: readonly BulkPropertyInput[],
  options: { now?: number; events?: boolean } = {},
): BulkInsertResult {
  const now = options.now ?? Date.now();
  return writeTransaction(db, () => {
    const ids: string[] = [];
    let unitCount = 0;
    // The properties first, then the units, then their features, so every foreign key resolves.
    const propertyParams: Bindings = [];
    const unitParams: Bindings = [];
    const featureParams: Bindings = [];
    for (const input of rows) {
      const createdAt = input.createdAt ?? now;
      const id = input.id ?? uuidv7(createdAt);
      const units = unitsOf(input);
      if (units.length < 1 || units.length > MAX_UNITS) {
        throw new RangeError(`property ${id}: ${units.length} units (1..${MAX_UNITS} allowed)`);
      }
      const country = countryOf(input.location.cityId);
      if (!country) throw new RangeError(`property ${id}: unknown cityId`);
      const archived = input.archived ?? false;
      let rentable = 0;
      let published = 0;
      for (const unit of units) {
        if (unit.rentable) rentable++;
        if (unit.rentable && unit.published && !archived) published++;
      }
      const { location } = input;
      propertyParams.push(
        id,
        input.type,
        input.ownerId,
        location.addressLine1,
        location.addressLine2 ?? null,
        location.city,
        location.cityId,
        location.neighbourhoodId ?? null,
        location.postalCode,
        country,
        location.latitude,
        location.longitude,
        addressSearchOf(location),
        units.length,
        rentable,
        published,
        input.unitsCounter ?? units.length,
        input.verified ? 1 : 0,
        input.yearOfConstruction ?? null,
        input.isVisitable ? 1 : 0,
        input.source ?? 'null',
        published > 0 ? 1 : 0,
        archived ? 1 : 0,
        createdAt,
        createdAt,
      );
      for (const unit of units) {
        const unitId = uuidv7(createdAt);
        const isPublished = unit.rentable && unit.published && !archived;
        unitParams.push(
          unitId,
          id,
          unit.rentable ? 1 : 0,
          isPublished ? 1 : 0,
          createdAt,
          createdAt,
        );
        for (const [position, f] of (unit.features ?? []).entries()) {
          featureParams.push(unitId, position, id, f.applicability, f.category, f.name, f.value);
        }
      }
      unitCount += units.length;
      ids.push(id);
    }
    insertRows(db.$client, PROPERTY_INSERT, PROPERTY_VALUES, 25, propertyParams);
    insertRows(db.$client, UNIT_INSERT, UNIT_VALUES, 6, unitParams);
    insertRows(db.$client, FEATURE_INSERT, FEATURE_VALUES, 7, featureParams);
    if (options.events !== false) {
      propertiesCreatedEvents(
        db,
        ids.map((id, index) => ({ id, now: rows[index]!.createdAt ?? now })),
      );
    }
    return { properties: ids.length, units: unitCount, ids };
  });
}
