import type { CityId } from '@/listings/cities';
import type { Property, PropertyType } from '@/listings/properties/schemas';

/** The columns a Property is rendered from, as SQLite returns them. */
export const PROPERTY_COLUMNS = `p.id, p.type, p.owner_id, p.address_line1, p.address_line2, p.city,
  p.city_id, p.neighbourhood_id, p.postal_code, p.country, p.latitude, p.longitude,
  p.total_units, p.rentable_units, p.published_units, p.verified, p.year_of_construction,
  p.is_visitable, p.source, p.published, p.archived, p.created_at, p.updated_at`;

/** One property by id, as a PropertyRecord. */
export const PROPERTY_BY_ID = `SELECT ${PROPERTY_COLUMNS} FROM properties p WHERE p.id = ?`;

export interface PropertyRecord {
  id: string;
  type: PropertyType;
  owner_id: string;
  address_line1: string;
  address_line2: string | null;
  city: string;
  city_id: CityId;
  neighbourhood_id: string | null;
  postal_code: string;
  country: string;
  latitude: number;
  longitude: number;
  total_units: number;
  rentable_units: number;
  published_units: number;
  verified: number;
  year_of_construction: number | null;
  is_visitable: number;
  source: Property['source'];
  published: number;
  archived: number;
  created_at: number;
  updated_at: number;
}

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
