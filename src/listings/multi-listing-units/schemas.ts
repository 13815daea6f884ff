import { z } from 'zod';
import { halCollectionSchema, pagingFields } from '@/listings/paging';
import { intBetween } from '@/listings/properties/schemas';

/** A multi-listing unit counter: `id` is the property id. */
export const MultiListingUnit = z.object({ id: z.string(), unitsCounter: z.int() });
export type MultiListingUnit = z.infer<typeof MultiListingUnit>;

export const MultiListingUnitList = halCollectionSchema(
  'svc:multi-listing-units',
  MultiListingUnit,
);

/** A path id that cannot be a property id is a 400 (these routes document 400 for a bad id). */
export const MultiListingUnitParams = z.object({
  id: z
    .string()
    .regex(/^[\w-]{1,64}$/, 'must be 1 to 64 letters, digits, _ and -')
    .describe('Property id'),
});

/** The counter is an integer 0..10000. */
export const CounterBody = z.strictObject({ counter: intBetween(0, 10_000) });

export const MultiListingUnitQuery = z.strictObject({
  ids: z.array(z.string().max(255)).min(1).max(100).optional().describe('Match any of the ids'),
  ...pagingFields,
});
export type MultiListingUnitQuery = z.infer<typeof MultiListingUnitQuery>;
