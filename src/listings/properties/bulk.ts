import { uuidv7 } from '@/db/ids';
import type { PropertyRow, UnitFeatureRow, UnitRow } from '@/db/sqlite/schema';
import { type CityId, countryOf } from '@/listings/cities';
import { addressSearchOf } from '@/listings/properties/representation';
import { MAX_UNITS, type PropertyType, type SOURCES } from '@/listings/properties/schemas';

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

function unitsOf(input: BulkPropertyInput): BulkUnitInput[] {
  if (input.units) return [...input.units];
  const total = input.totalUnits ?? 1;
  const rentable = input.rentableUnits ?? total;
  return Array.from({ length: total }, (_, index) => ({ rentable: index < rentable }));
}

/** The columns of `properties` a create leaves to SQLite (`seq`) or unset. */
export const NOT_INSERTED = ['seq', 'reasonToUnpublish', 'reasonToUnpublishExtraInfo'] as const;
/** A property row to insert: every other column of the table. */
export type PlannedProperty = Omit<PropertyRow, (typeof NOT_INSERTED)[number]>;
export type PlannedUnit = Omit<UnitRow, 'deletedAt'>;
export type PlannedFeature = UnitFeatureRow;

/** The rows of a bulk create, properties first so every foreign key resolves in order. */
export interface PlannedCreates {
  ids: string[];
  properties: PlannedProperty[];
  units: PlannedUnit[];
  features: PlannedFeature[];
  /** Each property's id and the time of its `property.created` event. */
  created: { id: string; now: number }[];
}

/**
 * The rows that create `rows` (every store inserts exactly these): counters
 * derived from the units as every other write does, `country` from
 * `cityId`. Inputs are trusted for types; an unknown `cityId` or a unit
 * count outside 1..30 throws.
 */
export function planCreates(rows: readonly BulkPropertyInput[], now: number): PlannedCreates {
  const planned: PlannedCreates = { ids: [], properties: [], units: [], features: [], created: [] };
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
    planned.properties.push({
      id,
      type: input.type,
      ownerId: input.ownerId,
      addressLine1: location.addressLine1,
      addressLine2: location.addressLine2 ?? null,
      city: location.city,
      cityId: location.cityId,
      neighbourhoodId: location.neighbourhoodId ?? null,
      postalCode: location.postalCode,
      country,
      latitude: location.latitude,
      longitude: location.longitude,
      addressSearch: addressSearchOf(location),
      totalUnits: units.length,
      rentableUnits: rentable,
      publishedUnits: published,
      unitsCounter: input.unitsCounter ?? units.length,
      verified: input.verified === true,
      yearOfConstruction: input.yearOfConstruction ?? null,
      isVisitable: input.isVisitable === true,
      source: input.source ?? 'null',
      published: published > 0,
      archived,
      createdAt,
      updatedAt: createdAt,
    });
    for (const unit of units) {
      const unitId = uuidv7(createdAt);
      planned.units.push({
        id: unitId,
        propertyId: id,
        rentable: unit.rentable,
        published: unit.rentable && unit.published === true && !archived,
        createdAt,
        updatedAt: createdAt,
      });
      for (const [position, f] of (unit.features ?? []).entries()) {
        planned.features.push({ unitId, position, propertyId: id, ...f });
      }
    }
    planned.ids.push(id);
    planned.created.push({ id, now: createdAt });
  }
  return planned;
}
