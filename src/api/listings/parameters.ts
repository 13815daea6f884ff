import { parametersOf } from '@/kernel/query';
import { MultiListingUnitQuery } from '@/listings/multi-listing-units/schemas';
import { PropertyListQuery } from '@/listings/properties/list-query';
import { UnitListQuery } from '@/listings/units/schemas';

/**
 * The list queries as clients write them, for the OpenAPI document only:
 * integers with their bounds and booleans where the service reads the text
 * `1`..`N` or `true`/`false`, read from each text schema (`writtenAs`);
 * test/api/parameters.test.ts checks that the service accepts exactly these
 * bounds.
 */
export const PropertyListParameters = parametersOf(PropertyListQuery);
export const UnitListParameters = parametersOf(UnitListQuery);
export const MultiListingUnitParameters = parametersOf(MultiListingUnitQuery);
