import { z } from 'zod';
import { pagingFields } from '@/listings/paging';
import { CityId, PropertyType } from '@/listings/properties/schemas';
import type { QueryShape } from '@/listings/query';

const Value = z.string().max(255);
const values = <T extends z.ZodType>(item: T) => z.array(item).min(1).max(100);
const Flag = z.enum(['true', 'false']);
export const SORT_FIELDS = {
  _id: 'id',
  type: 'type',
  ownerId: 'owner_id',
  totalUnits: 'total_units',
  rentableUnits: 'rentable_units',
} as const;
export type SortField = keyof typeof SORT_FIELDS;
const SORT_ITEM = `-?(${Object.keys(SORT_FIELDS).join('|')})`;

export const FeatureCriterionSchema = z.strictObject({
  applicability: Value.optional(),
  category: Value.optional(),
  name: Value.optional(),
  value: Value.optional(),
});

/**
 * GET /properties query after `parseListQuery` (docs/listings.md). Kept
 * free of transforms so the same schema documents the parameters.
 */
export const PropertyListQuery = z.strictObject({
  id: Value.optional().describe('Match by property id'),
  ids: values(Value).optional().describe('Match any of the ids'),
  unitIds: values(Value).optional().describe('Match properties having any of these units'),
  cityIds: values(CityId).optional().describe('Match any of the city ids'),
  ownerId: Value.optional().describe('Match by owner id'),
  type: PropertyType.optional(),
  numRentableUnits: z
    .string()
    .regex(/^\d{1,4}$/)
    .optional()
    .describe('Number of rentable units'),
  features: z
    .array(FeatureCriterionSchema)
    .min(1)
    .max(20)
    .optional()
    .describe(
      'features[i][applicability|category|name|value]: one unit must match every criterion',
    ),
  published: Flag.optional(),
  archived: Flag.optional(),
  includeDeleted: Flag.optional().describe('unitIds and features also look at deleted units'),
  address: z
    .string()
    .max(255)
    .regex(/^\P{Cc}*$/u)
    .optional()
    .describe('Case-insensitive substring of addressLine1, addressLine2, city or postalCode'),
  sort: z
    .string()
    .max(255)
    .regex(new RegExp(`^${SORT_ITEM}(,${SORT_ITEM})*$`))
    .optional()
    .describe(
      'Comma-separated _id, type, ownerId, totalUnits, rentableUnits; prefix - = descending',
    ),
  ...pagingFields,
  paging: z
    .enum(['page', 'keyset'])
    .optional()
    .describe(
      'keyset: pages follow an opaque cursor (`_links.next`) instead of page numbers; ' +
        'page (default): page numbers',
    ),
  cursor: z
    .string()
    .max(1024)
    .regex(/^[\w-]+$/)
    .optional()
    .describe('With paging=keyset: the cursor of `_links.next` (bound to the query it came from)'),
  total: Flag.optional().describe(
    'With paging=keyset: true adds `total` to every page (page numbers always have it)',
  ),
});
export type PropertyListQuery = z.infer<typeof PropertyListQuery>;

export const PROPERTY_LIST_SHAPE: QueryShape = {
  scalars: [
    'id',
    'ownerId',
    'type',
    'numRentableUnits',
    'published',
    'archived',
    'includeDeleted',
    'address',
    'sort',
    'page',
    'itemsPerPage',
    'paging',
    'cursor',
    'total',
  ],
  arrays: ['ids', 'unitIds', 'cityIds'],
  features: true,
};
