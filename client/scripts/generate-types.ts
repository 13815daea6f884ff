/**
 * Writes client/src/schema-types.ts: the TypeScript types of every request
 * and answer of the service, generated from the server's own zod schemas
 * (z.toJSONSchema, then JSON Schema to TypeScript), so the published client
 * is self-contained (no import of the server) and still tied to the schemas.
 * `npm run client:types` regenerates it; the client's build runs it first;
 * test/client/build.test.ts fails when the committed file differs from a
 * fresh generation, and test/client/types.test.ts when a type differs from
 * its schema.
 */
import { z } from 'zod';
import * as accountSessions from '@/accounts/schemas';
import * as accounts from '@/api/accounts/schemas';
import * as admin from '@/api/admin/schemas';
import * as customer from '@/api/customer/schemas';
import { TokenLimits } from '@/api/customer/tokens/schemas';
import { Health } from '@/api/health/schemas';
import { PropertyKeysetPage, PropertyList } from '@/api/listings/properties/routes';
import { UnitList } from '@/api/listings/units/routes';
import * as audit from '@/audit/schemas';
import * as content from '@/content/schemas';
import * as customerAdmin from '@/customer/admin/schemas';
import * as transactions from '@/customer/transactions/schemas';
import * as events from '@/events/schemas';
import * as additionalData from '@/listings/additional-data/schemas';
import * as multiListing from '@/listings/multi-listing-units/schemas';
import * as neighbourhoods from '@/listings/neighbourhoods/schemas';
import { PropertyListQuery } from '@/listings/properties/list-query';
import * as properties from '@/listings/properties/schemas';
import * as units from '@/listings/units/schemas';
import * as webhooks from '@/webhooks/schemas';

type Io = 'input' | 'output';
type Json = Record<string, unknown>;

/** Each type of the client: its name, the schema and which side of it (what is sent or answered). */
const TYPES: [name: string, schema: z.ZodType, io: Io][] = [
  ['Property', properties.Property, 'output'],
  ['PropertyType', properties.PropertyType, 'output'],
  ['CityId', properties.CityId, 'output'],
  ['PropertyCreate', properties.PropertyCreate, 'input'],
  ['PublicPropertyCreate', properties.PublicPropertyCreate, 'input'],
  ['PropertyList', PropertyList, 'output'],
  ['PropertyKeysetPage', PropertyKeysetPage, 'output'],
  ['PropertyListQueryText', PropertyListQuery, 'input'],
  ['ArchiveBodyInput', properties.ArchiveBody, 'input'],
  ['ConvertBody', properties.ConvertBody, 'input'],
  ['LocationUpdate', properties.LocationUpdate, 'input'],
  ['NeighbourhoodAssignment', properties.NeighbourhoodAssignment, 'input'],
  ['OwnerChange', properties.OwnerChange, 'input'],
  ['InformationBody', properties.InformationBody, 'input'],
  ['Unit', units.Unit, 'output'],
  ['UnitList', UnitList, 'output'],
  ['UnitListQueryText', units.UnitListQuery, 'input'],
  ['UnitCreateInput', units.UnitCreate, 'input'],
  ['UnitPatch', units.UnitPatch, 'input'],
  ['Neighbourhood', neighbourhoods.Neighbourhood, 'output'],
  ['NeighbourhoodList', neighbourhoods.NeighbourhoodList, 'output'],
  ['NeighbourhoodQueryText', neighbourhoods.NeighbourhoodQuery, 'input'],
  ['NeighbourhoodBody', neighbourhoods.NeighbourhoodBody, 'input'],
  ['MultiListingUnit', multiListing.MultiListingUnit, 'output'],
  ['MultiListingUnitList', multiListing.MultiListingUnitList, 'output'],
  ['MultiListingUnitQueryText', multiListing.MultiListingUnitQuery, 'input'],
  ['CounterBody', multiListing.CounterBody, 'input'],
  ['AdditionalData', additionalData.AdditionalData, 'output'],
  ['AdditionalDataCreate', additionalData.AdditionalDataCreate, 'input'],
  ['AdditionalDataPut', additionalData.AdditionalDataPut, 'input'],
  ['AdditionalDataWritten', additionalData.AdditionalDataWritten, 'output'],
  ['EventType', events.EventType, 'output'],
  ['Event', events.Event, 'output'],
  ['EventPage', events.EventPage, 'output'],
  ['AdditionalDataEventData', events.AdditionalDataEventData, 'output'],
  ['UnitEventData', events.UnitEventData, 'output'],
  ['StaticPageEventData', events.StaticPageEventData, 'output'],
  ['EventQueryText', events.EventQuery, 'input'],
  ['Webhook', webhooks.Webhook, 'output'],
  ['WebhookWithSecret', webhooks.WebhookWithSecret, 'output'],
  ['WebhookList', webhooks.WebhookList, 'output'],
  ['WebhookCreate', webhooks.WebhookCreate, 'input'],
  ['WebhookPatch', webhooks.WebhookPatch, 'input'],
  ['SecretRotation', webhooks.SecretRotation, 'output'],
  ['WebhookDelivery', webhooks.Delivery, 'output'],
  ['WebhookDeliveryList', webhooks.DeliveryList, 'output'],
  ['StaticPage', content.StaticPage, 'output'],
  ['StaticPageSummary', content.StaticPageSummary, 'output'],
  ['StaticPageList', content.StaticPageList, 'output'],
  ['StaticPageInput', content.StaticPageInput, 'input'],
  ['SignUpBody', accounts.SignUpBody, 'input'],
  ['SignInBody', accounts.SignInBody, 'input'],
  ['UserSummary', accounts.UserSummary, 'output'],
  ['SignUpAccepted', accounts.SignUpAccepted, 'output'],
  ['SignInResponse', accounts.SignInResponse, 'output'],
  ['PasskeySummary', accounts.PasskeySummary, 'output'],
  ['PasskeyList', accounts.PasskeyList, 'output'],
  ['RenameBody', accounts.RenameBody, 'input'],
  ['RegistrationOptions', accounts.RegistrationOptions, 'output'],
  ['AuthenticationOptions', accounts.AuthenticationOptions, 'output'],
  ['RegisterBodyInput', accounts.RegisterBody, 'input'],
  ['AuthenticateBodyInput', accounts.AuthenticateBody, 'input'],
  ['AuthenticateOptionsBodyInput', accounts.AuthenticateOptionsBody, 'input'],
  ['RegistrationOptionsBodyInput', accounts.RegistrationOptionsBody, 'input'],
  ['SessionSummary', accountSessions.SessionSummary, 'output'],
  ['SessionList', accountSessions.SessionList, 'output'],
  ['ChangePasswordBody', accounts.ChangePasswordBody, 'input'],
  ['NewUserBody', accounts.NewUserBody, 'input'],
  ['SetPasswordBody', accounts.SetPasswordBody, 'input'],
  ['AccountSummary', accountSessions.AccountSummary, 'output'],
  ['AccountPage', accountSessions.AccountPage, 'output'],
  ['AccountSearchQueryText', accountSessions.AccountSearchQuery, 'input'],
  ['AccountChangeBody', accountSessions.AccountChangeBody, 'input'],
  ['AuditEvent', audit.AuditEvent, 'output'],
  ['AuditPage', audit.AuditPage, 'output'],
  ['AdminAuditPage', audit.AdminAuditPage, 'output'],
  ['SecurityLogQueryText', audit.SecurityLogQuery, 'input'],
  ['AuditQueryText', audit.AuditQuery, 'input'],
  ['RateLimitRecord', customer.WindowRecord, 'output'],
  ['RateLimited', customer.RateLimited, 'output'],
  ['LaravelMessage', customer.Message, 'output'],
  ['LaravelValidation', customer.ValidationFailed, 'output'],
  ['TokenLimits', TokenLimits, 'output'],
  ['Transaction', transactions.Transaction, 'output'],
  ['TransactionPage', transactions.TransactionPage, 'output'],
  ['TransactionQueryText', transactions.TransactionQuery, 'input'],
  ['Plan', customerAdmin.Plan, 'output'],
  ['PlanList', customerAdmin.PlanList, 'output'],
  ['PlanInput', customerAdmin.PlanInput, 'input'],
  ['PlanAssignment', customerAdmin.PlanAssignment, 'input'],
  ['EmployeeRateLimit', customerAdmin.EmployeeRateLimit, 'input'],
  ['TransactionImportRow', customerAdmin.ImportRow, 'input'],
  ['TransactionImport', customerAdmin.ImportBody, 'input'],
  ['Imported', customerAdmin.Imported, 'output'],
  ['JobList', admin.JobList, 'output'],
  ['JobRunResult', admin.JobRunResult, 'output'],
  ['BackupList', admin.BackupList, 'output'],
  ['WebhookSummary', webhooks.WebhookSummary, 'output'],
  ['WebhookSummaryQueryText', webhooks.WebhookSummaryQuery, 'input'],
  ['Health', Health, 'output'],
];

const IDENTIFIER = /^[A-Za-z_$][\w$]*$/;
const key = (name: string) => (IDENTIFIER.test(name) ? name : JSON.stringify(name));
const pad = (depth: number) => '  '.repeat(depth);

/** A JSON Schema (as z.toJSONSchema writes it) as a TypeScript type. */
function typeOf(schema: Json, defs: Json, depth: number): string {
  if (typeof schema.$ref === 'string') {
    const target = defs[schema.$ref.replace('#/$defs/', '')] as Json | undefined;
    return target && depth < 12 ? typeOf(target, defs, depth) : 'unknown';
  }
  if ('const' in schema) return JSON.stringify(schema.const);
  if (Array.isArray(schema.enum)) return schema.enum.map((v) => JSON.stringify(v)).join(' | ');
  const union = (schema.anyOf ?? schema.oneOf) as Json[] | undefined;
  if (union) return union.map((s) => wrap(typeOf(s, defs, depth))).join(' | ');
  if (Array.isArray(schema.type)) {
    return schema.type.map((t) => wrap(typeOf({ ...schema, type: t }, defs, depth))).join(' | ');
  }
  switch (schema.type) {
    case 'string':
      return 'string';
    case 'number':
    case 'integer':
      return 'number';
    case 'boolean':
      return 'boolean';
    case 'null':
      return 'null';
    case 'array': {
      if (Array.isArray(schema.prefixItems)) {
        return `[${(schema.prefixItems as Json[]).map((s) => typeOf(s, defs, depth)).join(', ')}]`;
      }
      return `${wrap(typeOf((schema.items ?? {}) as Json, defs, depth))}[]`;
    }
    case 'object':
      return objectOf(schema, defs, depth);
    default:
      return 'unknown';
  }
}

const wrap = (type: string) => (/[|&\s]/.test(type) && !/^[{[]/.test(type) ? `(${type})` : type);

function objectOf(schema: Json, defs: Json, depth: number): string {
  const properties = (schema.properties ?? {}) as Record<string, Json>;
  const required = new Set((schema.required ?? []) as string[]);
  const lines = Object.entries(properties).map(([name, property]) => {
    const doc =
      typeof property.description === 'string'
        ? `${pad(depth + 1)}/** ${property.description} */\n`
        : '';
    const optional = required.has(name) ? '' : '?';
    return `${doc}${pad(depth + 1)}${key(name)}${optional}: ${typeOf(property, defs, depth + 1)};`;
  });
  const extra = schema.additionalProperties;
  if (extra !== undefined && extra !== false) {
    const value = extra === true ? 'unknown' : typeOf(extra as Json, defs, depth + 1);
    lines.push(`${pad(depth + 1)}[key: string]: ${value};`);
  }
  return lines.length === 0 ? '{}' : `{\n${lines.join('\n')}\n${pad(depth)}}`;
}

/** The whole generated module, as text. */
export function clientTypesSource(): string {
  const parts = [
    '// Generated by client/scripts/generate-types.ts from the service’s zod schemas; do not edit.',
    '// `npm run client:types` regenerates it (the client’s build does).',
    '',
  ];
  for (const [name, schema, io] of TYPES) {
    const json = z.toJSONSchema(schema, { io, unrepresentable: 'any', reused: 'inline' }) as Json;
    const defs = (json.$defs ?? {}) as Json;
    const side = io === 'input' ? 'sent' : 'answered';
    parts.push(`/** ${name}: as ${side} (${io} of its schema). */`);
    parts.push(`export type ${name} = ${typeOf(json, defs, 0)};`, '');
  }
  return parts.join('\n');
}

export const CLIENT_TYPES_FILE = new URL('../src/schema-types.ts', import.meta.url).pathname;

if (import.meta.main) {
  await Bun.write(CLIENT_TYPES_FILE, clientTypesSource());
  console.log(`wrote ${CLIENT_TYPES_FILE}`);
}
