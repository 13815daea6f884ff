/**
 * Request and response types of every endpoint, derived from the service's
 * own zod schemas so the client cannot drift from the server. Type-only
 * imports: nothing of the server is loaded at run time.
 */
import type { z } from 'zod';
import type * as accounts from '../../src/api/accounts/schemas';
import type * as admin from '../../src/api/admin/schemas';
import type * as customer from '../../src/api/customer/schemas';
import type { TokenLimits as TokenLimitsSchema } from '../../src/api/customer/tokens/schemas';
import type { Health as HealthSchema } from '../../src/api/health/schemas';
import type { PropertyList as PropertyListSchema } from '../../src/api/listings/properties/routes';
import type { UnitList as UnitListSchema } from '../../src/api/listings/units/routes';
import type * as content from '../../src/content/schemas';
import type * as customerAdmin from '../../src/customer/admin/schemas';
import type * as transactions from '../../src/customer/transactions/schemas';
import type * as additionalData from '../../src/listings/additional-data/schemas';
import type * as multiListing from '../../src/listings/multi-listing-units/schemas';
import type * as neighbourhoods from '../../src/listings/neighbourhoods/schemas';
import type { PropertyListQuery as PropertyListQuerySchema } from '../../src/listings/properties/list-query';
import type * as properties from '../../src/listings/properties/schemas';
import type * as units from '../../src/listings/units/schemas';

/** What a route accepts (before defaults and transforms). */
type In<S extends z.ZodType> = z.input<S>;
/** What a route answers. */
type Out<S extends z.ZodType> = z.output<S>;

/**
 * A query schema as a caller writes it: the service reads every parameter as
 * text, the client also takes numbers and booleans and writes them as text.
 */
export type QueryOf<S extends z.ZodType> = {
  [K in keyof z.input<S>]?: Loose<NonNullable<z.input<S>[K]>>;
};
type Loose<T> = T extends 'true' | 'false'
  ? T | boolean
  : T extends string
    ? T | number
    : T extends readonly (infer E)[]
      ? readonly Loose<E>[]
      : T extends object
        ? { [K in keyof T]?: Loose<NonNullable<T[K]>> }
        : T;

/**
 * A passthrough zod object (`z.looseObject`) without its `[key: string]:
 * unknown` index, so @simplewebauthn's interfaces (`RegistrationResponseJSON`
 * from the browser's `startRegistration()`) can be passed as they are.
 */
export type Closed<T> = T extends readonly unknown[]
  ? T
  : T extends object
    ? { [K in keyof T as string extends K ? never : K]: Closed<T[K]> }
    : T;

// Listings: properties
export type Property = Out<typeof properties.Property>;
export type PropertyType = Out<typeof properties.PropertyType>;
export type CityId = Out<typeof properties.CityId>;
export type PropertyCreate = In<typeof properties.PropertyCreate>;
export type PublicPropertyCreate = In<typeof properties.PublicPropertyCreate>;
export type PropertyList = Out<typeof PropertyListSchema>;
export type PropertyListQuery = QueryOf<typeof PropertyListQuerySchema>;
export type ArchiveBody = NonNullable<In<typeof properties.ArchiveBody>>;
export type ConvertBody = In<typeof properties.ConvertBody>;
export type LocationUpdate = In<typeof properties.LocationUpdate>;
export type NeighbourhoodAssignment = In<typeof properties.NeighbourhoodAssignment>;
export type OwnerChange = In<typeof properties.OwnerChange>;
export type InformationBody = In<typeof properties.InformationBody>;

// Listings: units
export type Unit = Out<typeof units.Unit>;
export type UnitList = Out<typeof UnitListSchema>;
export type UnitListQuery = QueryOf<typeof units.UnitListQuery>;
export type UnitCreate = NonNullable<In<typeof units.UnitCreate>>;
export type UnitPatch = In<typeof units.UnitPatch>;

// Listings: neighbourhoods, multi-listing counters, additional data
export type Neighbourhood = Out<typeof neighbourhoods.Neighbourhood>;
export type NeighbourhoodList = Out<typeof neighbourhoods.NeighbourhoodList>;
export type NeighbourhoodQuery = QueryOf<typeof neighbourhoods.NeighbourhoodQuery>;
export type NeighbourhoodBody = In<typeof neighbourhoods.NeighbourhoodBody>;
export type MultiListingUnit = Out<typeof multiListing.MultiListingUnit>;
export type MultiListingUnitList = Out<typeof multiListing.MultiListingUnitList>;
export type MultiListingUnitQuery = QueryOf<typeof multiListing.MultiListingUnitQuery>;
export type CounterBody = In<typeof multiListing.CounterBody>;
export type AdditionalData = Out<typeof additionalData.AdditionalData>;
export type AdditionalDataCreate = In<typeof additionalData.AdditionalDataCreate>;
export type AdditionalDataPut = In<typeof additionalData.AdditionalDataPut>;
export type AdditionalDataWritten = Out<typeof additionalData.AdditionalDataWritten>;

// Static pages
export type StaticPage = Out<typeof content.StaticPage>;
export type StaticPageSummary = Out<typeof content.StaticPageSummary>;
export type StaticPageList = Out<typeof content.StaticPageList>;
export type StaticPageInput = In<typeof content.StaticPageInput>;

// Accounts and passkeys (WebAuthn payloads are @simplewebauthn's JSON, passed through)
export type SignUpBody = In<typeof accounts.SignUpBody>;
export type SignUpAccepted = Out<typeof accounts.SignUpAccepted>;
export type SignInBody = In<typeof accounts.SignInBody>;
export type UserSummary = Out<typeof accounts.UserSummary>;
export type SignInResponse = Out<typeof accounts.SignInResponse>;
export type PasskeySummary = Out<typeof accounts.PasskeySummary>;
export type PasskeyList = Out<typeof accounts.PasskeyList>;
export type RenameBody = In<typeof accounts.RenameBody>;
export type RegistrationOptions = Out<typeof accounts.RegistrationOptions>;
export type AuthenticationOptions = Out<typeof accounts.AuthenticationOptions>;
export type RegisterBody = Closed<In<typeof accounts.RegisterBody>>;
export type AuthenticateBody = Closed<In<typeof accounts.AuthenticateBody>>;
export type AuthenticateOptionsBody = NonNullable<In<typeof accounts.AuthenticateOptionsBody>>;

// Customer API
export type RateLimitRecord = Out<typeof customer.WindowRecord>;
export type RateLimited = Out<typeof customer.RateLimited>;
export type LaravelMessage = Out<typeof customer.Message>;
export type LaravelValidation = Out<typeof customer.ValidationFailed>;
export type TokenLimits = Out<typeof TokenLimitsSchema>;
export type Transaction = Out<typeof transactions.Transaction>;
export type TransactionPage = Out<typeof transactions.TransactionPage>;
export type TransactionQuery = QueryOf<typeof transactions.TransactionQuery>;
export type Plan = Out<typeof customerAdmin.Plan>;
export type PlanList = Out<typeof customerAdmin.PlanList>;
export type PlanInput = In<typeof customerAdmin.PlanInput>;
export type PlanAssignment = In<typeof customerAdmin.PlanAssignment>;
export type EmployeeRateLimit = In<typeof customerAdmin.EmployeeRateLimit>;
export type TransactionImportRow = In<typeof customerAdmin.ImportRow>;
export type Imported = Out<typeof customerAdmin.Imported>;

// Operations
export type JobList = Out<typeof admin.JobList>;
export type JobRunResult = Out<typeof admin.JobRunResult>;
export type Health = Out<typeof HealthSchema>;

/** A 201 without a body: the new resource's address from `Location`, and its id (last segment). */
export interface Created {
  location: string;
  id: string;
}
