/**
 * Request and response types of every endpoint. They are generated from the
 * service's own zod schemas into schema-types.ts (client/scripts/generate-types.ts),
 * so the client imports nothing of the server, at run time or in its
 * published declarations, and still cannot drift from it: a test regenerates
 * the file and compares, another proves each type equal to its schema.
 */
import type * as generated from './schema-types.js';

export type {
  AccountChangeBody,
  AccountPage,
  AccountSummary,
  AdditionalData,
  AdditionalDataCreate,
  AdditionalDataEventData,
  AdditionalDataPut,
  AdditionalDataWritten,
  AdminAuditPage,
  AuditEvent,
  AuditPage,
  AuthenticationOptions,
  BackupList,
  ChangePasswordBody,
  CityId,
  ConvertBody,
  CounterBody,
  EmployeeRateLimit,
  Event,
  EventPage,
  EventType,
  Health,
  Imported,
  InformationBody,
  JobList,
  JobRunResult,
  LaravelMessage,
  LaravelValidation,
  LocationUpdate,
  MultiListingUnit,
  MultiListingUnitList,
  Neighbourhood,
  NeighbourhoodAssignment,
  NeighbourhoodBody,
  NeighbourhoodList,
  NewUserBody,
  OwnerChange,
  PasskeyList,
  PasskeySummary,
  Plan,
  PlanAssignment,
  PlanInput,
  PlanList,
  Property,
  PropertyCreate,
  PropertyKeysetPage,
  PropertyList,
  PropertyType,
  PublicPropertyCreate,
  RateLimited,
  RateLimitRecord,
  RegistrationOptions,
  RenameBody,
  SecretRotation,
  SessionList,
  SessionSummary,
  SetPasswordBody,
  SignInBody,
  SignInResponse,
  SignUpAccepted,
  SignUpBody,
  StaticPage,
  StaticPageEventData,
  StaticPageInput,
  StaticPageList,
  StaticPageSummary,
  TokenLimits,
  Transaction,
  TransactionImport,
  TransactionImportRow,
  TransactionPage,
  Unit,
  UnitEventData,
  UnitList,
  UnitPatch,
  UserSummary,
  Webhook,
  WebhookCreate,
  WebhookDelivery,
  WebhookDeliveryList,
  WebhookList,
  WebhookPatch,
  WebhookSummary,
  WebhookWithSecret,
} from './schema-types.js';

/**
 * A query as a caller writes it: the service reads every parameter as
 * text, the client also takes numbers and booleans and writes them as text.
 */
export type QueryOf<T> = {
  [K in keyof T]?: Loose<NonNullable<T[K]>>;
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
 * A passthrough object without its `[key: string]: unknown` index, so
 * @simplewebauthn's interfaces (`RegistrationResponseJSON` from the
 * browser's `startRegistration()`) can be passed as they are.
 */
export type Closed<T> = T extends readonly unknown[]
  ? T
  : T extends object
    ? { [K in keyof T as string extends K ? never : K]: Closed<T[K]> }
    : T;

export type PropertyListQuery = QueryOf<generated.PropertyListQueryText>;
export type ArchiveBody = NonNullable<generated.ArchiveBodyInput>;
export type UnitListQuery = QueryOf<generated.UnitListQueryText>;
export type UnitCreate = NonNullable<generated.UnitCreateInput>;
export type NeighbourhoodQuery = QueryOf<generated.NeighbourhoodQueryText>;
export type MultiListingUnitQuery = QueryOf<generated.MultiListingUnitQueryText>;
export type TransactionQuery = QueryOf<generated.TransactionQueryText>;
export type EventQuery = QueryOf<generated.EventQueryText>;
export type SecurityLogQuery = QueryOf<generated.SecurityLogQueryText>;
export type AuditQuery = QueryOf<generated.AuditQueryText>;
export type AccountSearchQuery = QueryOf<generated.AccountSearchQueryText>;
export type WebhookSummaryQuery = QueryOf<generated.WebhookSummaryQueryText>;
export type RegistrationOptionsBody = NonNullable<generated.RegistrationOptionsBodyInput>;
export type RegisterBody = Closed<generated.RegisterBodyInput>;
export type AuthenticateBody = Closed<generated.AuthenticateBodyInput>;
export type AuthenticateOptionsBody = NonNullable<generated.AuthenticateOptionsBodyInput>;

/** A 201 without a body: the new resource's address from `Location`, and its id (last segment). */
export interface Created {
  location: string;
  id: string;
}
