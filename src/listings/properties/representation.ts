import type { SnakeCase } from '@/db/columns';
import type { PropertyRow } from '@/db/sqlite/schema';
import type { CityId } from '@/listings/cities';
import type { Property } from '@/listings/properties/schemas';

/** The columns of `properties` a Property is not rendered from. */
export const UNRENDERED_COLUMNS = [
  'seq',
  'addressSearch',
  'unitsCounter',
  'reasonToUnpublish',
  'reasonToUnpublishExtraInfo',
] as const;
type Rendered = Exclude<keyof PropertyRow, (typeof UNRENDERED_COLUMNS)[number]>;

/** A row of a property as the stores read it (SQLite's PROPERTY_COLUMNS): the schema's columns by their SQL names, booleans as 0/1. */
export type PropertyRecord = {
  [K in Exclude<Rendered, 'cityId'> as SnakeCase<K>]: PropertyRow[K] extends boolean
    ? number
    : PropertyRow[K];
} & { city_id: CityId };

/** A property as answered: unset optional fields omitted, `neighbourhoodId` null if unassigned. */
export function toProperty(row: PropertyRecord): Property {
  const location: Property['location'] = {
    addressLine1: row.address_line1,
    ...(row.address_line2 === null ? {} : { addressLine2: row.address_line2 }),
    city: row.city,
    cityId: row.city_id,
    neighbourhoodId: row.neighbourhood_id,
    postalCode: row.postal_code,
    country: row.country,
    latitude: row.latitude,
    longitude: row.longitude,
  };
  return {
    id: row.id,
    type: row.type,
    location,
    ownerId: row.owner_id,
    totalUnits: row.total_units,
    rentableUnits: row.rentable_units,
    publishedUnits: row.published_units,
    verified: row.verified === 1,
    ...(row.year_of_construction === null ? {} : { yearOfConstruction: row.year_of_construction }),
    isVisitable: row.is_visitable === 1,
    source: row.source,
    archived: row.archived === 1,
    published: row.published === 1,
    createdAt: new Date(row.created_at).toISOString(),
    updatedAt: new Date(row.updated_at).toISOString(),
  };
}

export interface AddressFields {
  addressLine1: string;
  addressLine2?: string | null;
  city: string;
  postalCode: string;
}

/**
 * What `address=` searches: the four fields lower-cased and joined by U+0001,
 * which no needle contains, so a match never spans two fields.
 */
export const addressSearchOf = (location: AddressFields): string =>
  [location.addressLine1, location.addressLine2 ?? '', location.city, location.postalCode]
    .join('\u0001')
    .toLowerCase();
