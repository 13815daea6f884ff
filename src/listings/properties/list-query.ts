import { z } from 'zod';
import { Flag, integerText, shapeOf } from '@/kernel/query';
import { pagingFields } from '@/listings/paging';
import { CityId, PropertyType } from '@/listings/properties/schemas';

const Value = z.string().max(255);
const values = <T extends z.ZodType>(item: T) => z.array(item).min(1).max(100);
export const SORT_FIELDS = {
  _id: 'id',
  type: 'type',
  ownerId: 'owner_id',
  totalUnits: 'total_units',
  rentableUnits: 'rentable_units',
} as const;
export type SortField = keyof typeof SORT_FIELDS;
const SORT_ITEM = `-?(${Object.keys(SORT_FIELDS).join('|')})`;

/** What a `cursor` must be, whichever check refuses it. */
export const CURSOR_REASON = 'must be the cursor of a `_links.next` of this query';

export const FeatureCriterionSchema = z.strictObject({
  applicability: Value.optional(),
  category: Value.optional(),
  name: Value.optional(),
  value: Value.optional(),
});

/**
 * GET /properties query after `parseListQuery` (docs/listings.md): the one
 * declaration of the list's parameters. Its shape (`PROPERTY_LIST_SHAPE`)
 * and the documented parameters (`parametersOf`) are read from it, so it
 * stays free of transforms.
 */
export const PropertyListQuery = z.strictObject({
  id: Value.optional().describe('Match by property id'),
  ids: values(Value).optional().describe('Match any of the ids'),
  unitIds: values(Value).optional().describe('Match properties having any of these units'),
  cityIds: values(CityId).optional().describe('Match any of the city ids'),
  ownerId: Value.optional().describe('Match by owner id'),
  type: PropertyType.optional(),
  numRentableUnits: integerText(/^\d{1,4}$/, z.int().min(0).max(9999))
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
  published: Flag.optional().describe(
    'true: only published properties; false: only unpublished ones',
  ),
  archived: Flag.optional().describe('true: only archived properties; false: only live ones'),
  includeDeleted: Flag.optional().describe('unitIds and features also look at deleted units'),
  address: z
    .string()
    .max(255)
    .regex(/^\P{Cc}*$/u, 'must not contain control characters')
    .optional()
    .describe('Case-insensitive substring of addressLine1, addressLine2, city or postalCode'),
  updatedSince: z.iso
    .datetime({ offset: true })
    .max(64)
    .optional()
    .describe('Changed at or after this instant: an ISO-8601 date-time, e.g. 2026-01-31T09:00:00Z'),
  sort: z
    .string()
    .max(255)
    .regex(
      new RegExp(`^${SORT_ITEM}(,${SORT_ITEM})*$`),
      `must be ${Object.keys(SORT_FIELDS).join(', ')}, comma-separated, each optionally after -`,
    )
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
    .regex(/^[\w-]+$/, CURSOR_REASON)
    .optional()
    .describe('With paging=keyset: the cursor of `_links.next` (bound to the query it came from)'),
  total: Flag.optional().describe(
    'With paging=keyset: true adds `total` to every page (page numbers always have it)',
  ),
});
export type PropertyListQuery = z.infer<typeof PropertyListQuery>;

/** Which parameters carry one value and which a list, read from the schema once. */
export const PROPERTY_LIST_SHAPE = shapeOf(PropertyListQuery);
