import { z } from 'zod';
import { Flag } from '@/kernel/query';
import { pagingFields } from '@/listings/paging';
import { text } from '@/listings/properties/schemas';

export const MAX_FEATURES = 50;

export const UnitFeature = z.strictObject({
  applicability: text(),
  category: text(),
  name: text(),
  value: text(),
});
export type UnitFeature = z.infer<typeof UnitFeature>;

const Features = z.array(UnitFeature).max(MAX_FEATURES);

/** POST /properties/{id}/units; a new unit is rentable unless said otherwise. */
export const UnitCreate = z
  .strictObject({ rentable: z.boolean().optional(), features: Features.optional() })
  .nullish();
export type UnitCreate = z.infer<typeof UnitCreate>;

/** PATCH /properties/{id}/units/{unitId}: `features` replaces the list. */
export const UnitPatch = z.strictObject({
  rentable: z.boolean().optional(),
  published: z.boolean().optional(),
  features: Features.optional(),
});
export type UnitPatch = z.infer<typeof UnitPatch>;

export const UnitParams = z.object({ id: z.string(), unitId: z.string() });

export const Unit = z.object({
  id: z.string(),
  propertyId: z.string(),
  rentable: z.boolean(),
  published: z.boolean(),
  deleted: z.boolean(),
  deletedAt: z.iso.datetime().nullable(),
  features: z.array(UnitFeature),
});
export type Unit = z.infer<typeof Unit>;

export const UnitListQuery = z.strictObject({
  includeDeleted: Flag.optional().describe('Also list deleted units'),
  ...pagingFields,
});
