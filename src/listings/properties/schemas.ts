import { z } from 'zod';
import { PROPERTY_SOURCES, PROPERTY_TYPES } from '@/db/stored-values';
import { CITY_IDS } from '@/listings/cities';

export { PROPERTY_TYPES };
export const PropertyType = z.enum(PROPERTY_TYPES);
export type PropertyType = z.infer<typeof PropertyType>;
export const CityId = z.enum(CITY_IDS);

/** An enum field of a body: missing → isEmpty, not a string → invalidType, else notInArray. */
const oneOf = <T extends z.ZodEnum<Record<string, string>>>(values: T) => z.string().pipe(values);
const RequiredType = oneOf(PropertyType);
const RequiredCityId = oneOf(CityId);
export const SOURCES = PROPERTY_SOURCES;

export const MAX_UNITS = 30;
const REQUIRED = "Value is required and can't be empty";
const between = (min: number, max: number) =>
  `The input is not between '${min}' and '${max}', inclusively`;

/** A bounded integer whose range failures read as the `notBetween` rule. */
export const intBetween = (min: number, max: number) =>
  z.int().min(min, between(min, max)).max(max, between(min, max));

/** Required text: not blank, at most `max` characters. */
export const text = (max = 255) =>
  z
    .string()
    .min(1)
    .max(max)
    .refine((value) => value.trim() !== '', { message: REQUIRED, params: { rule: 'isEmpty' } });

const latitude = z.number().min(-90, between(-90, 90)).max(90, between(-90, 90));
const longitude = z.number().min(-180, between(-180, 180)).max(180, between(-180, 180));

const locationFields = {
  addressLine1: text(),
  addressLine2: text().optional(),
  city: text(),
  postalCode: text(32),
  latitude,
  longitude,
};

/** Location on create: `country` is set by the service, so sending it is `notAllowed`. */
export const LocationInput = z.strictObject({ ...locationFields, cityId: RequiredCityId });
/** PUT /properties/{id}/location: as on create, `cityId` optional (kept when omitted). */
export const LocationUpdate = z.strictObject({ ...locationFields, cityId: CityId.optional() });
export type LocationUpdate = z.infer<typeof LocationUpdate>;

export const OwnerId = text();
export const YearOfConstruction = intBetween(1000, 2100);

const createFields = {
  type: RequiredType,
  location: LocationInput,
  ownerId: OwnerId,
  yearOfConstruction: YearOfConstruction.optional(),
  isVisitable: z.boolean().optional(),
};

const unitCount = intBetween(1, MAX_UNITS);

/** On both create endpoints `rentableUnits` above `totalUnits` (default 1) is a 422. */
const rentableWithinTotal = z.refine<{ totalUnits?: number; rentableUnits?: number }>(
  (body) => (body.rentableUnits ?? 0) <= (body.totalUnits ?? 1),
  {
    path: ['rentableUnits'],
    message: 'The rentableUnits must not be greater than totalUnits',
    params: { rule: 'greaterThanTotalUnits' },
    // Runs beside the other field checks whenever both counts are themselves valid.
    when: ({ value }) => {
      const body = value as { totalUnits?: unknown; rentableUnits?: unknown } | null;
      if (!body || typeof body !== 'object') return false;
      const valid = (n: unknown) => unitCount.safeParse(n).success;
      return valid(body.rentableUnits) && (body.totalUnits === undefined || valid(body.totalUnits));
    },
  },
);

/** POST /properties. */
export const PropertyCreate = z
  .strictObject({
    ...createFields,
    totalUnits: unitCount.optional(),
    rentableUnits: unitCount.optional(),
  })
  .check(rentableWithinTotal);
export type PropertyCreate = z.infer<typeof PropertyCreate>;

/** POST /public/properties: unit counts required, `rentableUnits` 1..30. */
export const PublicPropertyCreate = z
  .strictObject({ ...createFields, totalUnits: unitCount, rentableUnits: unitCount })
  .check(rentableWithinTotal);

export const ArchiveBody = z
  .strictObject({
    reasonToUnpublish: z.string().max(255).optional(),
    reasonToUnpublishExtraInfo: z.string().max(2000).optional(),
  })
  .nullish();

export const ConvertBody = z.strictObject({
  type: RequiredType,
  reasonToUnpublishExtraInfo: z.string().max(2000).optional(),
});

export const NeighbourhoodAssignment = z.strictObject({ neighbourhoodId: text(64) });
export const OwnerChange = z.strictObject({ ownerId: OwnerId });
export const InformationBody = z.strictObject({
  isVisitable: z.boolean(),
  yearOfConstruction: YearOfConstruction.optional(),
});
export type InformationBody = z.infer<typeof InformationBody>;

export const PropertyIdParams = z.object({ id: z.string().describe('Property id (UUIDv7)') });

export const Location = z.object({
  addressLine1: z.string(),
  addressLine2: z.string().optional(),
  city: z.string(),
  cityId: CityId,
  neighbourhoodId: z.string().nullable(),
  postalCode: z.string(),
  country: z.string().length(2),
  latitude: z.number(),
  longitude: z.number(),
});

/** A property as answered, with `archived`, `published`, `createdAt` and `updatedAt`. */
export const Property = z.object({
  id: z.string(),
  type: PropertyType,
  location: Location,
  ownerId: z.string(),
  totalUnits: z.int(),
  rentableUnits: z.int(),
  publishedUnits: z.int(),
  verified: z.boolean(),
  yearOfConstruction: z.int().optional(),
  isVisitable: z.boolean(),
  source: z.enum(SOURCES),
  archived: z.boolean(),
  published: z.boolean(),
  createdAt: z.iso.datetime(),
  updatedAt: z.iso.datetime(),
});
export type Property = z.infer<typeof Property>;
