import type { Db } from '@/db/sqlite/client';
import type { BulkPropertyInput } from '@/listings/properties/bulk';
import { insertPropertiesBulk } from '@/listings/properties/sqlite-bulk';
import { createTestApp, type TestAppOptions, type TestContext } from '../support/harness';

export const OWNER = 'owner-1';
export const OTHER_OWNER = 'owner-2';

/** A fresh app and database with an employee and two customers' tokens. */
export async function listingsContext(options: TestAppOptions = {}) {
  const ctx = createTestApp(options);
  return {
    ...ctx,
    employee: await ctx.tokenFor('employee-1', 'employee'),
    customer: await ctx.tokenFor(OWNER, 'customer'),
    otherCustomer: await ctx.tokenFor(OTHER_OWNER, 'customer'),
  };
}
export type ListingsContext = Awaited<ReturnType<typeof listingsContext>>;

/** A valid POST /properties body. */
export function propertyBody(overrides: Record<string, unknown> = {}) {
  return {
    type: 'apartment',
    ownerId: OWNER,
    location: {
      addressLine1: 'Calle Mayor 5',
      city: 'Madrid',
      cityId: 'madrid',
      postalCode: '28013',
      latitude: 40.4168,
      longitude: -3.7038,
    },
    ...overrides,
  };
}

/** Creates through the API and answers the new id. */
export async function postProperty(
  ctx: ListingsContext,
  overrides: Record<string, unknown> = {},
  token = ctx.employee,
): Promise<string> {
  const res = await ctx.request('POST', '/listings/properties', {
    body: propertyBody(overrides),
    token,
  });
  if (res.status !== 201) throw new Error(`create failed: ${res.status} ${res.text}`);
  return res.headers.get('location')!.split('/').pop()!;
}

export type PropertySeed = Partial<BulkPropertyInput>;

/** A property to insert straight into a store (fast factory for list tests). */
export function propertySeed(overrides: PropertySeed = {}): BulkPropertyInput {
  return {
    type: 'apartment',
    ownerId: OWNER,
    source: 'outbound',
    ...overrides,
    location: {
      addressLine1: 'Calle Mayor 5',
      city: 'Madrid',
      cityId: 'madrid',
      postalCode: '28013',
      latitude: 40.4,
      longitude: -3.7,
      ...overrides.location,
    },
  };
}

/** Inserts straight into the database (fast factory for list tests). */
export function makeProperty(db: Db, overrides: PropertySeed = {}): string {
  return insertPropertiesBulk(db, [propertySeed(overrides)]).ids[0]!;
}

/** Inserts straight into the app's listings store, whichever database it is on; answers the id. */
export async function addProperty(
  ctx: Pick<TestContext, 'deps'>,
  overrides: PropertySeed = {},
): Promise<string> {
  const [id] = await ctx.deps.stores.listings.insertProperties([propertySeed(overrides)]);
  return id!;
}

/** Rows of a query on the app's database, SQLite or PostgreSQL (`?` placeholders on both). */
export async function rowsOf<T = Record<string, unknown>>(
  ctx: Pick<TestContext, 'db' | 'deps'>,
  text: string,
  ...params: (string | number)[]
): Promise<T[]> {
  const { postgres } = ctx.deps;
  if (!postgres) return ctx.db.$client.query<T, (string | number)[]>(text).all(...params);
  let n = 0;
  return (await postgres.unsafe(
    text.replace(/\?/g, () => `$${++n}`),
    params,
  )) as T[];
}

/** The rows of a table in the app's database, SQLite or PostgreSQL. */
export async function countRows(ctx: Pick<TestContext, 'db' | 'deps'>, table: string) {
  const [row] = await rowsOf<{ n: number }>(ctx, `SELECT count(*) AS n FROM ${table}`);
  return Number(row!.n);
}

export const count = (db: Db, table: string) =>
  (db.$client.query(`SELECT count(*) AS n FROM ${table}`).get() as { n: number }).n;
