import { z } from 'zod';
import { MultiListingUnitQuery } from '@/listings/multi-listing-units/schemas';
import { DEFAULT_ITEMS_PER_PAGE, MAX_ITEMS_PER_PAGE } from '@/listings/paging';
import { PropertyListQuery } from '@/listings/properties/list-query';
import { UnitListQuery } from '@/listings/units/schemas';

/**
 * The list queries as clients write them, for the OpenAPI document only:
 * integers with their bounds and booleans where the service reads the text
 * `1`..`N` or `true`/`false`. The routes parse the raw URL with the text
 * schemas (`PropertyListQuery`, …), which stay the rule; each one here
 * replaces only the fields clients pass as numbers or booleans, and
 * test/api/parameters.test.ts checks that the service accepts exactly these
 * bounds.
 */
export const MAX_PAGE = 999_999_999;

const paging = {
  page: z.int().min(1).max(MAX_PAGE).optional().describe('Page number, from 1 (default 1)'),
  itemsPerPage: z
    .int()
    .min(1)
    .max(MAX_ITEMS_PER_PAGE)
    .optional()
    .describe(`Page size (default ${DEFAULT_ITEMS_PER_PAGE})`),
};

const flag = (description: string) => z.boolean().optional().describe(description);

export const PropertyListParameters = PropertyListQuery.extend({
  numRentableUnits: z.int().min(0).max(9999).optional().describe('Number of rentable units'),
  published: flag('true: only published properties; false: only unpublished ones'),
  archived: flag('true: only archived properties; false: only live ones'),
  includeDeleted: flag('unitIds and features also look at deleted units'),
  total: flag('With paging=keyset: true adds `total` to every page (page numbers always have it)'),
  ...paging,
});

export const UnitListParameters = UnitListQuery.extend({
  includeDeleted: flag('Also list deleted units'),
  ...paging,
});

export const MultiListingUnitParameters = MultiListingUnitQuery.extend(paging);
