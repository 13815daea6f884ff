/**
 * What the measured requests read, and the endpoint list with the performance
 * targets (docs/performance.md; ratios of the bare Bun.serve ceiling measured in the same run).
 *
 * Reads rotate over many keys so the figures are not those of one hot row:
 * property ids picked at random from the whole table, the ten largest cities
 * with two types, two unit features. Missing data (a static page, customer
 * transactions) is created through the service's own API.
 */
import { Database } from 'bun:sqlite';
import type { Endpoint } from './run';

export interface FixtureContext {
  base: string;
  headers: Record<string, string>;
  databasePath: string;
}

/** How many property ids the GET /properties/{id} requests rotate over. */
const READ_IDS = 2000;
const LIST_CITIES = [
  'madrid',
  'barcelona',
  'bilbao',
  'valencia',
  'granada',
  'seville',
  'brussels',
  'dublin',
  'london',
  'rome',
];
const LIST_TYPES = ['apartment', 'studio'];
/** Narrow searches: wheelchairAccessible (0.5 % of the properties have it), pool (5 %). */
export const BENCH_FEATURES = [
  { name: 'wheelchairAccessible', value: 'true' },
  { name: 'pool', value: 'true' },
];
export const BENCH_CUSTOMERS = 200;
const TRANSACTIONS_PER_CUSTOMER = 250;
const benchCustomer = (n: number) => `bench-customer-${String(n).padStart(4, '0')}`;

function randomPropertyIds(databasePath: string, count: number): string[] {
  const db = new Database(databasePath, { readonly: true });
  try {
    const { max } = db
      .query<{ max: number | null }, []>('SELECT max(seq) AS max FROM properties')
      .get()!;
    if (!max) throw new Error('no properties in the database: seed it first');
    const seqs = Array.from({ length: count }, () => 1 + Math.floor(Math.random() * max));
    return db
      .query<{ id: string }, [string]>(
        'SELECT id FROM properties WHERE seq IN (SELECT value FROM json_each(?))',
      )
      .all(JSON.stringify(seqs))
      .map((row) => row.id)
      .sort(() => Math.random() - 0.5);
  } finally {
    db.close();
  }
}

async function call(ctx: FixtureContext, method: string, path: string, body?: unknown) {
  const response = await fetch(`${ctx.base}${path}`, {
    method,
    headers: {
      ...ctx.headers,
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await response.text();
  return { status: response.status, body: text ? (JSON.parse(text) as unknown) : undefined };
}

async function expectOk(ctx: FixtureContext, path: string) {
  const { status, body } = await call(ctx, 'GET', path);
  if (status !== 200)
    throw new Error(`fixture check GET ${path}: ${status} ${JSON.stringify(body)}`);
  return body as Record<string, unknown>;
}

/** The static page the bench reads, created through the API when the seed did not import it. */
async function ensureStaticPage(ctx: FixtureContext, slug: string) {
  if ((await call(ctx, 'GET', `/content/static-pages/${slug}`)).status === 200) return;
  const { status } = await call(ctx, 'PUT', `/content/static-pages/${slug}`, {
    language: 'en',
    published: true,
    title: 'About us',
    metaTitle: 'About us',
    metaDescription: 'Who we are',
    category: 'company',
    group: '',
    content: 'We list properties in 106 cities.',
    accounting: {},
    seoMetaData: {},
  });
  if (status !== 201 && status !== 200) throw new Error(`could not create static page: ${status}`);
}

/** Customer transactions over two years, imported once through the admin API. */
async function ensureTransactions(ctx: FixtureContext) {
  const probe = await call(
    ctx,
    'GET',
    `/api/v1/c/transactions?customer_id=${benchCustomer(0)}&per_page=1`,
  );
  const total = (probe.body as { pagination?: { total?: number } }).pagination?.total ?? 0;
  if (total > 0) return;
  const day = 24 * 3600 * 1000;
  const start = Date.UTC(2025, 0, 1);
  for (let customer = 0; customer < BENCH_CUSTOMERS; customer += 10) {
    const rows = [];
    for (let c = customer; c < customer + 10; c++) {
      for (let i = 0; i < TRANSACTIONS_PER_CUSTOMER; i++) {
        rows.push({
          customer_id: benchCustomer(c),
          booking_id: `BK-${c}-${i}`,
          amount: ((((c + 1) * 7919 * (i + 1)) % 200_000) / 100 + 10).toFixed(2),
          currency: 'EUR',
          pay_date: new Date(start + ((i * 730) / TRANSACTIONS_PER_CUSTOMER) * day)
            .toISOString()
            .slice(0, 10),
          status: i % 10 === 0 ? 'refunded' : 'paid',
          description: `Booking ${i} of customer ${c}`,
        });
      }
    }
    const { status, body } = await call(ctx, 'POST', '/api/v1/admin/transactions', rows);
    if (status !== 201) throw new Error(`transaction import: ${status} ${JSON.stringify(body)}`);
  }
}

/** A POST /listings/properties body as a client sends it. */
export const CREATE_BODY = {
  type: 'apartment',
  ownerId: '00000000-0000-7000-8000-000000000001',
  location: {
    addressLine1: 'Calle de Alcalá 123',
    addressLine2: '2º izquierda',
    city: 'Madrid',
    cityId: 'madrid',
    postalCode: '28009',
    latitude: 40.4237,
    longitude: -3.6768,
  },
  yearOfConstruction: 1998,
  totalUnits: 5,
  rentableUnits: 3,
  isVisitable: true,
};

export async function prepareFixtures(ctx: FixtureContext): Promise<Endpoint[]> {
  const ids = randomPropertyIds(ctx.databasePath, READ_IDS);
  const listPaths = LIST_CITIES.flatMap((city) =>
    LIST_TYPES.map((type) => `/listings/properties?cityIds=${city}&type=${type}&sort=-_id`),
  );
  const featurePaths = BENCH_FEATURES.map(
    ({ name, value }) =>
      `/listings/properties?features[0][name]=${name}&features[0][value]=${value}`,
  );
  for (const path of [...listPaths, ...featurePaths]) {
    const page = await expectOk(ctx, path);
    if (page.count !== 30) throw new Error(`${path}: ${page.count} items, the bench wants 30`);
  }
  await expectOk(ctx, `/listings/properties/${ids[0]}`);
  await ensureStaticPage(ctx, 'about');

  const endpoints: Endpoint[] = [
    {
      name: 'GET /listings/properties/{id}',
      path: `/listings/properties/${ids[0]}`,
      paths: ids.map((id) => `/listings/properties/${id}`),
      target: 0.5,
    },
    {
      name: 'GET /listings/properties city+type, sort, 30 items',
      path: listPaths[0]!,
      paths: listPaths,
      target: 0.1,
      p99TargetMs: 50,
    },
    {
      name: 'GET /listings/properties features filter',
      path: featurePaths[0]!,
      paths: featurePaths,
      target: 0.05,
    },
    {
      name: 'POST /listings/properties',
      path: '/listings/properties',
      method: 'POST',
      body: JSON.stringify(CREATE_BODY),
      target: 0.06,
    },
    {
      name: 'GET /content/static-pages/{slug} (cached)',
      path: '/content/static-pages/about',
      target: 0.6,
    },
  ];

  const limits = await call(ctx, 'GET', '/api/v1/tokens/limits');
  if (limits.status === 404) {
    console.log('  (customer API not present: tokens/limits and transactions skipped)');
    return endpoints;
  }
  await ensureTransactions(ctx);
  const transactions = Array.from(
    { length: 20 },
    (_, n) =>
      `/api/v1/c/transactions?customer_id=${benchCustomer(n * 7)}&pay_date_from=2025-04-01&pay_date_to=2025-12-31`,
  );
  for (const path of transactions) await expectOk(ctx, path);
  endpoints.push(
    { name: 'GET /api/v1/tokens/limits', path: '/api/v1/tokens/limits', target: 0.4 },
    {
      name: 'GET /api/v1/c/transactions date filter',
      path: transactions[0]!,
      paths: transactions,
      target: 0.1,
    },
  );
  return endpoints;
}
