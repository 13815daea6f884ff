/**
 * What the measured requests read, and the endpoint list with the performance
 * targets (docs/performance.md; ratios of the bare Bun.serve ceiling measured in the same run).
 *
 * Reads are shaped like real use, each request picking its key at random:
 * a property id from the whole table (a million of them), a list of every
 * city × type with three sorts and three pages (1,272 queries), two narrow
 * unit-feature searches in both directions over five pages, 200 customers'
 * transactions over four date windows. Missing data (a static page, customer
 * transactions) is created through the service's own API. Each endpoint has a
 * target with the read caches on and one with them off (`offTarget`).
 */
import { Database } from 'bun:sqlite';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { CITY_IDS } from '@/listings/cities';
import { PROPERTY_TYPES } from '@/listings/properties/schemas';
import { random as seededRandom } from '../scripts/seed';

/** One benchmarked request shape, with its targets. */
export interface Endpoint {
  name: string;
  path: string;
  /** Paths the requests rotate over (keys spread over the table); `path` when absent. */
  paths?: string[];
  /** A file of path suffixes each request picks one of at random (`WrkOptions.lines`). */
  lines?: { file: string; prefix: string; zipf?: boolean };
  /** A point read measured also against a server with READ_CACHE=off (`--read-cache compare`). */
  pointRead?: boolean;
  /** How many distinct keys the requests pick from. */
  keys?: number;
  /** A read: measured with the background writes of `--mix`, held to the p99 target. */
  read?: boolean;
  method?: 'GET' | 'POST';
  body?: string;
  /** Target as a ratio of the ceiling's requests/s (docs/performance.md). */
  target?: number;
  /** Target with READ_CACHE=off. */
  offTarget?: number;
  /** Extra target: p99 under this many ms. */
  p99TargetMs?: number;
}

export interface FixtureContext {
  base: string;
  headers: Record<string, string>;
  databasePath: string;
  /** Where the id and path files for wrk go. */
  workDir: string;
}

/** Sorts the list requests rotate over: each walks the (city_id, type, id) index. */
const LIST_SORTS = ['-_id', '_id', '-type'];
const LIST_PAGES = [1, 2, 3];
/** Narrow searches: wheelchairAccessible (0.5 % of the properties have it), pool (5 %). */
export const BENCH_FEATURES = [
  { name: 'wheelchairAccessible', value: 'true' },
  { name: 'pool', value: 'true' },
];
const FEATURE_PAGES = [1, 2, 3, 4, 5];
/** Date windows the transaction requests rotate over (every customer with each). */
const TRANSACTION_WINDOWS = [
  ['2025-04-01', '2025-12-31'],
  ['2025-01-01', '2025-06-30'],
  ['2025-07-01', '2026-06-30'],
  ['2026-01-01', '2026-12-31'],
];
/** Customers whose tokens make the background customer-API calls of `--mix`. */
export const BACKGROUND_CUSTOMERS = 50;
/** Units the background edits rotate over. */
const EDITED_UNITS = 5000;
export const BENCH_CUSTOMERS = 200;
const TRANSACTIONS_PER_CUSTOMER = 250;
export const benchCustomer = (n: number) => `bench-customer-${String(n).padStart(4, '0')}`;

/**
 * Every property id, one a line in table order, for wrk to pick from at
 * random: GET /properties/{id} reads are spread uniformly over the whole
 * table, as the traffic of many visitors is, not over a hot pool.
 */
export function writePropertyIds(
  databasePath: string,
  file: string,
): { count: number; first: string } {
  const db = new Database(databasePath, { readonly: true });
  try {
    const ids = db
      .query<{ id: string }, []>('SELECT id FROM properties ORDER BY seq')
      .all()
      .map((row) => row.id);
    if (ids.length === 0) throw new Error('no properties in the database: seed it first');
    writeFileSync(file, `${ids.join('\n')}\n`);
    // The same ids in a fixed random order: the Zipf reads' ranks, the popular
    // ones spread over the table rather than its oldest rows.
    const next = seededRandom(35);
    for (let i = ids.length - 1; i > 0; i--) {
      const j = Math.floor(next() * (i + 1));
      [ids[i], ids[j]] = [ids[j]!, ids[i]!];
    }
    writeFileSync(zipfFileOf(file), `${ids.join('\n')}\n`);
    return { count: ids.length, first: ids[Math.floor(ids.length / 2)]! };
  } finally {
    db.close();
  }
}

const zipfFileOf = (file: string) => file.replace(/\.txt$/, '-by-rank.txt');

/** Live units of live properties, picked at random over the table: what `--mix` edits. */
export function unitsToEdit(databasePath: string): [string, string][] {
  const db = new Database(databasePath, { readonly: true });
  try {
    const { max } = db.query<{ max: number }, []>('SELECT max(seq) AS max FROM properties').get()!;
    const seqs = Array.from({ length: EDITED_UNITS }, () => 1 + Math.floor(Math.random() * max));
    return db
      .query<{ id: string; unit: string | null }, [string]>(
        `SELECT p.id, (SELECT u.id FROM units u WHERE u.property_id = p.id AND u.deleted_at IS NULL
           ORDER BY u.id LIMIT 1) AS unit FROM properties p
         WHERE p.seq IN (SELECT value FROM json_each(?)) AND p.archived = 0`,
      )
      .all(JSON.stringify(seqs))
      .flatMap((row): [string, string][] => (row.unit === null ? [] : [[row.id, row.unit]]));
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

const writeLines = (file: string, lines: string[]) => {
  writeFileSync(file, `${lines.join('\n')}\n`);
  return file;
};

export async function prepareFixtures(ctx: FixtureContext): Promise<Endpoint[]> {
  const ids = writePropertyIds(ctx.databasePath, join(ctx.workDir, 'property-ids.txt'));
  const listPaths = CITY_IDS.flatMap((city) =>
    PROPERTY_TYPES.flatMap((type) =>
      LIST_SORTS.flatMap((sort) =>
        LIST_PAGES.map(
          (page) => `/listings/properties?cityIds=${city}&type=${type}&sort=${sort}&page=${page}`,
        ),
      ),
    ),
  );
  const featurePaths = BENCH_FEATURES.flatMap(({ name, value }) =>
    ['_id', '-_id'].flatMap((sort) =>
      FEATURE_PAGES.map(
        (page) =>
          `/listings/properties?features[0][name]=${name}&features[0][value]=${value}&sort=${sort}&page=${page}`,
      ),
    ),
  );
  for (const path of [listPaths[0]!, featurePaths[0]!]) {
    const page = await expectOk(ctx, path);
    if (page.count !== 30) throw new Error(`${path}: ${page.count} items, the bench wants 30`);
  }
  await expectOk(ctx, `/listings/properties/${ids.first}`);
  await ensureStaticPage(ctx, 'about');

  const endpoints: Endpoint[] = [
    {
      name: 'GET /listings/properties/{id}, uniform over the table',
      path: `/listings/properties/${ids.first}`,
      lines: { file: join(ctx.workDir, 'property-ids.txt'), prefix: '/listings/properties/' },
      keys: ids.count,
      target: 0.45,
      offTarget: 0.3,
      read: true,
      pointRead: true,
    },
    {
      name: 'GET /listings/properties/{id}, Zipf (s = 1) over the table',
      path: `/listings/properties/${ids.first}`,
      lines: {
        file: zipfFileOf(join(ctx.workDir, 'property-ids.txt')),
        prefix: '/listings/properties/',
        zipf: true,
      },
      keys: ids.count,
      read: true,
      pointRead: true,
    },
    {
      name: 'GET /listings/properties city × type × sort × page',
      path: listPaths[0]!,
      lines: { file: writeLines(join(ctx.workDir, 'lists.txt'), listPaths), prefix: '' },
      keys: listPaths.length,
      target: 0.25,
      offTarget: 0.08,
      read: true,
    },
    {
      name: 'GET /listings/properties features filter',
      path: featurePaths[0]!,
      lines: { file: writeLines(join(ctx.workDir, 'features.txt'), featurePaths), prefix: '' },
      keys: featurePaths.length,
      target: 0.1,
      offTarget: 0.04,
      read: true,
    },
    {
      name: 'POST /listings/properties (5 units)',
      path: '/listings/properties',
      method: 'POST',
      body: JSON.stringify(CREATE_BODY),
      target: 0.08,
      offTarget: 0.08,
    },
    {
      name: 'POST /listings/properties (30 units)',
      path: '/listings/properties',
      method: 'POST',
      body: JSON.stringify({ ...CREATE_BODY, totalUnits: 30, rentableUnits: 20 }),
    },
    {
      name: 'GET /content/static-pages/{slug} (cached)',
      path: '/content/static-pages/about',
      target: 0.6,
      offTarget: 0.6,
      read: true,
    },
  ];

  const limits = await call(ctx, 'GET', '/api/v1/tokens/limits');
  if (limits.status === 404) {
    console.log('  (customer API not present: tokens/limits and transactions skipped)');
    return endpoints;
  }
  await ensureTransactions(ctx);
  const transactions = Array.from({ length: BENCH_CUSTOMERS }, (_, n) =>
    TRANSACTION_WINDOWS.map(
      ([from, to]) =>
        `/api/v1/c/transactions?customer_id=${benchCustomer(n)}&pay_date_from=${from}&pay_date_to=${to}`,
    ),
  ).flat();
  await expectOk(ctx, transactions[0]!);
  endpoints.push(
    {
      name: 'GET /api/v1/tokens/limits',
      path: '/api/v1/tokens/limits',
      target: 0.5,
      offTarget: 0.5,
      read: true,
    },
    {
      name: 'GET /api/v1/c/transactions date filter',
      path: transactions[0]!,
      lines: {
        file: writeLines(join(ctx.workDir, 'transactions.txt'), transactions),
        prefix: '',
      },
      keys: transactions.length,
      target: 0.25,
      offTarget: 0.1,
      read: true,
    },
  );
  return endpoints;
}
