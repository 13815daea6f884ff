import { describe, expect, test } from 'bun:test';
import type { z } from 'zod';
import type * as sessions from '@/accounts/schemas';
import type * as accounts from '@/api/accounts/schemas';
import type * as admin from '@/api/admin/schemas';
import type * as customer from '@/api/customer/schemas';
import type { TokenLimits } from '@/api/customer/tokens/schemas';
import type { PropertyList } from '@/api/listings/properties/routes';
import type { UnitList } from '@/api/listings/units/routes';
import type * as audit from '@/audit/schemas';
import type * as content from '@/content/schemas';
import type * as customerAdmin from '@/customer/admin/schemas';
import type * as transactions from '@/customer/transactions/schemas';
import type * as events from '@/events/schemas';
import type * as additionalData from '@/listings/additional-data/schemas';
import type * as multiListing from '@/listings/multi-listing-units/schemas';
import type * as neighbourhoods from '@/listings/neighbourhoods/schemas';
import type * as properties from '@/listings/properties/schemas';
import type * as units from '@/listings/units/schemas';
import type * as webhooks from '@/webhooks/schemas';
import type * as client from '../../client/src';
import { type ListingsServiceClient, queryString, type RateLimitError } from '../../client/src';

/** True only when A and B are the same type (not merely assignable). */
type Equal<A, B> =
  (<T>() => T extends A ? 1 : 2) extends <T>() => T extends B ? 1 : 2 ? true : false;
const same = <A, B>(proof: Equal<A, B>) => proof;
/** True when every value of `Given` is a value of `Wanted`. */
const accepts = <Wanted, Given>(proof: Given extends Wanted ? true : false) => proof;

type C = ListingsServiceClient;
type Answer<F extends (...args: never[]) => unknown> = Awaited<ReturnType<F>>;
type Arg<F extends (...args: never[]) => unknown, N extends number> = Parameters<F>[N];

/**
 * Compile-time proof that the client speaks the server's own schemas: each
 * call's body is the route's zod input and each answer the route's zod output.
 * `tsc --noEmit` fails here when the client drifts.
 */
describe('the client uses the server schemas', () => {
  test('listings', () => {
    const p = {} as C['listings']['properties'];
    same<Arg<typeof p.create, 0>, z.input<typeof properties.PropertyCreate>>(true);
    same<Arg<typeof p.createPublic, 0>, z.input<typeof properties.PublicPropertyCreate>>(true);
    same<Answer<typeof p.get>, z.output<typeof properties.Property>>(true);
    same<
      Answer<typeof p.getIfChanged>,
      | { notModified: false; etag: string | null; body: z.output<typeof properties.Property> }
      | { notModified: true; etag: string | null }
    >(true);
    same<Answer<typeof p.list>, z.output<typeof PropertyList>>(true);
    same<Arg<typeof p.convert, 1>, z.input<typeof properties.ConvertBody>>(true);
    same<Arg<typeof p.move, 1>, z.input<typeof properties.LocationUpdate>>(true);
    same<Arg<typeof p.changeInformation, 1>, z.input<typeof properties.InformationBody>>(true);
    same<Arg<typeof p.changeOwner, 1>, z.input<typeof properties.OwnerChange>>(true);
    same<Arg<typeof p.assignNeighbourhood, 1>, z.input<typeof properties.NeighbourhoodAssignment>>(
      true,
    );
    const u = {} as C['listings']['units'];
    same<Answer<typeof u.get>, z.output<typeof units.Unit>>(true);
    same<Answer<typeof u.list>, z.output<typeof UnitList>>(true);
    same<Arg<typeof u.update, 2>, z.input<typeof units.UnitPatch>>(true);
    const m = {} as C['listings']['multiListingUnits'];
    same<Answer<typeof m.get>, z.output<typeof multiListing.MultiListingUnit>>(true);
    same<Answer<typeof m.list>, z.output<typeof multiListing.MultiListingUnitList>>(true);
    same<Arg<typeof m.set, 1>, z.input<typeof multiListing.CounterBody>>(true);
    const n = {} as C['listings']['neighbourhoods'];
    same<Answer<typeof n.list>, z.output<typeof neighbourhoods.NeighbourhoodList>>(true);
    same<Arg<typeof n.put, 1>, z.input<typeof neighbourhoods.NeighbourhoodBody>>(true);
    const a = {} as C['listings']['additionalData'];
    same<Arg<typeof a.create, 0>, z.input<typeof additionalData.AdditionalDataCreate>>(true);
    same<Answer<typeof a.get>, z.output<typeof additionalData.AdditionalData>>(true);
    same<Answer<typeof a.put>, z.output<typeof additionalData.AdditionalDataWritten>>(true);
  });

  test('events and webhooks', () => {
    const e = {} as C['listings']['events'];
    same<Answer<typeof e.list>, z.output<typeof events.EventPage>>(true);
    same<client.UnitEventData, z.output<typeof events.UnitEventData>>(true);
    same<client.AdditionalDataEventData, z.output<typeof events.AdditionalDataEventData>>(true);
    same<client.StaticPageEventData, z.output<typeof events.StaticPageEventData>>(true);
    const w = {} as C['webhooks'];
    same<Arg<typeof w.create, 0>, z.input<typeof webhooks.WebhookCreate>>(true);
    same<Answer<typeof w.create>, z.output<typeof webhooks.WebhookWithSecret>>(true);
    same<Arg<typeof w.update, 1>, z.input<typeof webhooks.WebhookPatch>>(true);
    same<Answer<typeof w.get>, z.output<typeof webhooks.Webhook>>(true);
    same<Answer<typeof w.list>, z.output<typeof webhooks.WebhookList>>(true);
    same<Answer<typeof w.rotateSecret>, z.output<typeof webhooks.SecretRotation>>(true);
    same<Answer<typeof w.deliveries>, z.output<typeof webhooks.DeliveryList>>(true);
    same<Answer<typeof w.redeliver>, z.output<typeof webhooks.Delivery>>(true);
    expect(true).toBe(true);
  });

  test('customer API', () => {
    const c = {} as C['customer'];
    same<Answer<typeof c.tokenLimits>, z.output<typeof TokenLimits>>(true);
    same<Answer<typeof c.transactions.list>, z.output<typeof transactions.TransactionPage>>(true);
    const a = c.admin;
    same<Answer<typeof a.plans.list>, z.output<typeof customerAdmin.PlanList>>(true);
    same<Arg<typeof a.plans.create, 0>, z.input<typeof customerAdmin.PlanInput>>(true);
    same<Answer<typeof a.plans.update>, z.output<typeof customerAdmin.Plan>>(true);
    same<Arg<typeof a.assignPlan, 1>, z.input<typeof customerAdmin.PlanAssignment>>(true);
    same<Arg<typeof a.setEmployeeRateLimit, 1>, z.input<typeof customerAdmin.EmployeeRateLimit>>(
      true,
    );
    same<Arg<typeof a.importTransactions, 0>, z.input<typeof customerAdmin.ImportBody>>(true);
    same<Answer<typeof a.importTransactions>, z.output<typeof customerAdmin.Imported>>(true);
    same<RateLimitError['rateLimit'], z.output<typeof customer.WindowRecord> | null>(true);
  });

  test('static pages, accounts, admin', () => {
    const s = {} as C['staticPages'];
    same<Answer<typeof s.get>, z.output<typeof content.StaticPage>>(true);
    same<Answer<typeof s.list>, z.output<typeof content.StaticPageList>>(true);
    same<Arg<typeof s.put, 1>, z.input<typeof content.StaticPageInput>>(true);
    const auth = {} as C['auth'];
    same<Arg<typeof auth.signUp, 0>, z.input<typeof accounts.SignUpBody>>(true);
    same<Answer<typeof auth.signUp>, z.output<typeof accounts.SignUpAccepted>>(true);
    same<Answer<typeof auth.signIn>, z.output<typeof accounts.SignInResponse>>(true);
    same<Answer<typeof auth.me>, z.output<typeof accounts.UserSummary>>(true);
    const k = auth.passkeys;
    same<Answer<typeof k.registrationOptions>, z.output<typeof accounts.RegistrationOptions>>(true);
    // WebAuthn results pass through: whatever the client takes, the server's schema takes too.
    accepts<z.input<typeof accounts.RegisterBody>, Arg<typeof k.register, 0>>(true);
    accepts<z.input<typeof accounts.AuthenticateBody>, Arg<typeof k.authenticate, 0>>(true);
    same<Answer<typeof k.authenticate>, z.output<typeof accounts.SignInResponse>>(true);
    same<Answer<typeof k.list>, z.output<typeof accounts.PasskeyList>>(true);
    same<Arg<typeof k.rename, 1>, z.input<typeof accounts.RenameBody>>(true);
    const jobs = {} as C['admin']['jobs'];
    same<Answer<typeof jobs.list>, z.output<typeof admin.JobList>>(true);
    same<Answer<typeof jobs.run>, z.output<typeof admin.JobRunResult>>(true);
    same<Answer<typeof auth.sessions.list>, z.output<typeof sessions.SessionList>>(true);
    same<Answer<typeof auth.securityLog>, z.output<typeof audit.AuditPage>>(true);
    same<Answer<C['admin']['audit']>, z.output<typeof audit.AdminAuditPage>>(true);
    const backups = {} as C['admin']['backups'];
    same<Answer<typeof backups.list>, z.output<typeof admin.BackupList>>(true);
    same<Answer<typeof backups.create>, z.output<typeof admin.JobRunResult>>(true);
    same<Answer<typeof backups.download>, Response>(true);
    same<Answer<C['admin']['webhookSummary']>, z.output<typeof webhooks.WebhookSummary>>(true);
    accepts<z.input<typeof webhooks.WebhookSummaryQuery>, Arg<C['admin']['webhookSummary'], 0>>(
      true,
    );
    same<Arg<typeof auth.changePassword, 0>, z.input<typeof accounts.ChangePasswordBody>>(true);
    const users = {} as C['admin']['users'];
    same<Arg<typeof users.create, 0>, z.input<typeof accounts.NewUserBody>>(true);
    same<Answer<typeof users.create>, z.output<typeof accounts.UserSummary>>(true);
    same<Answer<typeof users.search>, z.output<typeof sessions.AccountPage>>(true);
    same<Answer<typeof users.get>, z.output<typeof sessions.AccountSummary>>(true);
    same<Arg<typeof users.update, 1>, z.input<typeof sessions.AccountChangeBody>>(true);
    same<Answer<typeof users.update>, z.output<typeof sessions.AccountSummary>>(true);
    same<Arg<typeof users.setPassword, 1>, z.input<typeof accounts.SetPasswordBody>>(true);
    accepts<Arg<typeof users.search, 0>, z.input<typeof sessions.AccountSearchQuery>>(true);
    accepts<z.input<typeof accounts.RegistrationOptionsBody>, Arg<typeof k.registrationOptions, 0>>(
      true,
    );
    expect(true).toBe(true);
  });
});

describe('query strings', () => {
  test('arrays repeat the key, features are indexed, numbers and booleans are text', () => {
    expect(
      queryString({
        cityIds: ['madrid', 'bilbao'],
        features: [{ name: 'balcony', value: 'yes' }, { category: 'comfort' }],
        published: true,
        itemsPerPage: 3,
        ownerId: undefined,
      }),
    ).toBe(
      '?cityIds=madrid&cityIds=bilbao&features%5B0%5D%5Bname%5D=balcony&features%5B0%5D%5Bvalue%5D=yes&features%5B1%5D%5Bcategory%5D=comfort&published=true&itemsPerPage=3',
    );
    expect(queryString({})).toBe('');
  });
});

describe('run time', () => {
  test('the client bundles for a browser on its own: no server module, no dependency', async () => {
    const build = await Bun.build({
      entrypoints: [`${import.meta.dir}/../../client/src/index.ts`],
      target: 'browser',
    });
    expect(build.success).toBe(true);
    const [bundle] = build.outputs;
    const code = await bundle!.text();
    expect(code).not.toMatch(/^import |\brequire\(|\$ZodType|bun:sqlite|drizzle|elysia/m);
    expect(code.length).toBeLessThan(40_000);
  });
});
