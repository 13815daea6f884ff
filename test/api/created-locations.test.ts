/**
 * Every operation of /docs/json that answers 201, performed with a valid
 * body: the `Location` it answers is read back by the same caller (200), as
 * is the `Location` of its idempotent replay; a 201 without a `Location` is
 * documented without one. A new 201 operation fails here until it has a
 * request below.
 */
import { expect, test } from 'bun:test';
import { sqliteUnderTest } from '../accounts/stores';
import type { SignedIn } from '../accounts/support';
import type { RequestOptions } from '../support/harness';
import { BACKUPS_COPY_THE_FILE, onPostgres } from '../support/postgres-mode';

const ctx = await sqliteUnderTest.app();

type Json = Record<string, unknown>;
interface Operation {
  operationId: string;
  parameters?: Json[];
  requestBody?: { content: Record<string, { example?: unknown }> };
  responses: Record<string, { headers?: Record<string, unknown> }>;
}
interface Document {
  paths: Record<string, Record<string, Operation>>;
}

/** One create as sent: the concrete path, its body and who sends it. */
interface Create {
  path: string;
  body?: unknown;
  caller: RequestOptions;
}

const document = (await ctx.request<Document>('GET', '/docs/json')).body;
const CUSTOMER = 'created-locations';
const customer: RequestOptions = { token: await ctx.tokenFor(CUSTOMER) };
const employee: RequestOptions = { token: await ctx.tokenFor('ops', 'employee') };
let made = 0;
/** Unique per call, so a create never meets the one before it. */
const fresh = (stem: string) => `${stem}-${++made}`;

const operationsById = new Map(
  Object.entries(document.paths).flatMap(([path, item]) =>
    Object.entries(item).map(([method, operation]) => [
      operation.operationId,
      { path, method, operation },
    ]),
  ),
);
const exampleOf = (operationId: string) =>
  operationsById.get(operationId)?.operation.requestBody?.content['application/json']?.example as
    | Json
    | Json[];

/** The documented example, owned by the customer that sends it (a customer creates only its own). */
const propertyOf = (operationId: string) => ({
  ...(exampleOf(operationId) as Json),
  ownerId: CUSTOMER,
});

async function createdProperty(): Promise<string> {
  const res = await ctx.request('POST', '/listings/properties', {
    ...customer,
    body: propertyOf('createProperty'),
  });
  expect([res.status, res.body]).toEqual([201, undefined]);
  return res.headers.get('location')!.split('/').pop()!;
}

async function passkeyRegistration(): Promise<Create> {
  const session: SignedIn = await ctx.newUser();
  const options = await ctx.registrationOptions(session);
  const response = await ctx.newAuthenticator().createCredential(options);
  return {
    path: '/auth/passkey/register',
    body: { response, name: 'Laptop' },
    caller: { headers: { cookie: session.cookie, origin: 'http://localhost:3000' } },
  };
}

/** How to perform each 201 operation of the document, by operationId. */
const creates: Record<string, () => Promise<Create>> = {
  createProperty: async () => ({
    path: '/listings/properties',
    body: propertyOf('createProperty'),
    caller: customer,
  }),
  createPublicProperty: async () => ({
    path: '/listings/public/properties',
    body: propertyOf('createPublicProperty'),
    caller: customer,
  }),
  createUnit: async () => ({
    path: `/listings/properties/${await createdProperty()}/units`,
    body: exampleOf('createUnit'),
    caller: customer,
  }),
  createAdditionalData: async () => ({
    path: '/listings/properties/additional-data',
    body: { ...(exampleOf('createAdditionalData') as Json), id: await createdProperty() },
    caller: customer,
  }),
  createWebhook: async () => ({
    path: '/listings/webhooks',
    // A public address literal: the example's host name does not resolve here.
    body: { ...(exampleOf('createWebhook') as Json), url: 'https://93.184.215.14/hooks' },
    caller: customer,
  }),
  putStaticPage: async () => ({
    path: `/content/static-pages/${fresh('about')}`,
    body: exampleOf('putStaticPage'),
    caller: employee,
  }),
  createPlan: async () => ({
    path: '/api/v1/admin/plans',
    body: { ...(exampleOf('createPlan') as Json), slug: fresh('pro') },
    caller: employee,
  }),
  importTransactions: async () => ({
    path: '/api/v1/admin/transactions',
    body: (exampleOf('importTransactions') as Json[]).map((row) => ({
      ...row,
      booking_id: fresh('BK'),
    })),
    caller: employee,
  }),
  registerPasskey: passkeyRegistration,
  createUser: async () => ({
    path: '/admin/users',
    body: { ...(exampleOf('createUser') as Json), email: `${fresh('ops')}@example.com` },
    caller: employee,
  }),
  createBackup: async () => ({ path: '/admin/backups', caller: employee }),
};

/** Operations whose create the PostgreSQL run cannot perform, and why. */
const sqliteOnlyCreates: Record<string, string> = { createBackup: BACKUPS_COPY_THE_FILE };

const answering201 = [...operationsById.values()].filter(
  ({ operation }) => operation.responses['201'] !== undefined,
);
const declaresLocation = (operation: Operation) =>
  Object.keys(operation.responses['201']!.headers ?? {}).includes('Location');
const idempotent = (operation: Operation) =>
  (operation.parameters ?? []).some((parameter) =>
    String(parameter.$ref).endsWith('/IdempotencyKey'),
  );

test('every 201 operation of the document has a request here, and nothing else does', () => {
  const ids = answering201.map(({ operation }) => operation.operationId).sort();
  expect(Object.keys(creates).sort()).toEqual(ids);
  expect(ids.length).toBeGreaterThanOrEqual(11);
});

for (const { path: documented, method, operation } of answering201) {
  const id = operation.operationId;
  const skipped = onPostgres ? sqliteOnlyCreates[id] : undefined;
  test.skipIf(skipped !== undefined)(
    `${method.toUpperCase()} ${documented} (${id}): its Location reads back 200, as documented${skipped ? ` (SQLite only: ${skipped})` : ''}`,
    async () => {
      const create = creates[id];
      if (!create) throw new Error(`no request for the 201 operation ${id}: add one to creates`);
      const { path, body, caller } = await create();
      const first = await ctx.request(method.toUpperCase(), path, { ...caller, body });
      expect([id, first.status]).toEqual([id, 201]);
      const location = first.headers.get('location');
      expect([id, location !== null]).toEqual([id, declaresLocation(operation)]);
      if (location !== null) {
        const read = await ctx.request('GET', location, caller);
        expect([id, location, read.status]).toEqual([id, location, 200]);
      }
    },
  );
}

for (const { path: documented, method, operation } of answering201.filter(({ operation }) =>
  idempotent(operation),
)) {
  const id = operation.operationId;
  test(`${method.toUpperCase()} ${documented} (${id}) replayed: the same Location, read back 200`, async () => {
    const { path, body, caller } = await creates[id]!();
    const options = {
      ...caller,
      body,
      headers: { ...caller.headers, 'idempotency-key': fresh(id) },
    };
    const first = await ctx.request(method.toUpperCase(), path, options);
    const replay = await ctx.request(method.toUpperCase(), path, options);
    expect([id, first.status, replay.status]).toEqual([id, 201, 201]);
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    const location = replay.headers.get('location');
    expect(location).toBe(first.headers.get('location'));
    if (location !== null) {
      const read = await ctx.request('GET', location, caller);
      expect([id, location, read.status]).toEqual([id, location, 200]);
    }
  });
}
