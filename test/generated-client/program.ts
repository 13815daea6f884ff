/**
 * A client of the listings service generated from its /docs/json
 * (openapi-typescript → generated/schema.d.ts) and called with openapi-fetch,
 * as any team would: numbers and booleans where the API takes them, typed
 * answers and typed errors. Type-checked with TypeScript 5, then run against
 * a started service (test/slow/generated-client.slow.ts).
 *
 * Environment: BASE_URL, EMPLOYEE_TOKEN, CUSTOMER_TOKEN, CUSTOMER_ID.
 */
import createClient from 'openapi-fetch';
import type { components, paths } from './generated/schema';

type Problem = components['schemas']['Problem'];

/** Run by Bun or Node; only the environment is read. */
declare const process: { env: Record<string, string | undefined> };

const env = (name: string): string => {
  const value = process.env[name];
  if (!value) throw new Error(`${name} is not set`);
  return value;
};
const baseUrl = env('BASE_URL');
const customerId = env('CUSTOMER_ID');
const employee = createClient<paths>({
  baseUrl,
  headers: { authorization: `Bearer ${env('EMPLOYEE_TOKEN')}` },
});
const customer = createClient<paths>({
  baseUrl,
  headers: { authorization: `Bearer ${env('CUSTOMER_TOKEN')}` },
});

function check(condition: unknown, message: string): asserts condition {
  if (!condition) throw new Error(message);
}

// Create: numbers and booleans in the body, a retry-safe key in a header.
const created = await employee.POST('/listings/properties', {
  params: { header: { 'Idempotency-Key': `generated-${Date.now()}` } },
  body: {
    type: 'apartment',
    ownerId: customerId,
    location: {
      addressLine1: 'Calle Mayor 5',
      city: 'Madrid',
      cityId: 'madrid',
      postalCode: '28013',
      latitude: 40.4168,
      longitude: -3.7038,
    },
    totalUnits: 3,
    rentableUnits: 2,
    isVisitable: true,
    yearOfConstruction: 1998,
  },
});
check(created.response.status === 201, `create answered ${created.response.status}`);
const location = created.response.headers.get('location');
check(location, 'create answered no Location');
const id = location.split('/').pop()!;

// Read: the answer is typed, numbers are numbers.
const read = await customer.GET('/listings/properties/{id}', { params: { path: { id } } });
check(read.data, `read answered ${read.response.status}`);
const units: number = read.data.totalUnits;
check(units === 3 && read.data.rentableUnits === 2, 'read counters differ from the create');

// List with filters: an array, an enum, an integer, a boolean, paging.
const list = await employee.GET('/listings/properties', {
  params: {
    query: {
      cityIds: ['madrid', 'bilbao'],
      type: 'apartment',
      numRentableUnits: 2,
      published: false,
      archived: false,
      page: 1,
      itemsPerPage: 5,
      sort: '-_id',
    },
  },
});
check(list.data, `list answered ${list.response.status}`);
const listed = list.data._embedded['svc:properties'].map((property) => property.id);
check(listed.includes(id), 'the new property is not in the filtered list');

// Transactions: an employee imports, the customer lists with typed filters.
const imported = await employee.POST('/api/v1/admin/transactions', {
  body: [
    {
      customer_id: customerId,
      booking_id: 'BK-1',
      amount: '120.50',
      currency: 'EUR',
      pay_date: '2026-11-02',
      status: 'paid',
    },
    {
      customer_id: customerId,
      booking_id: 'BK-2',
      amount: 15,
      currency: 'EUR',
      pay_date: '2026-11-20',
      status: 'paid',
    },
  ],
});
check(imported.data?.imported === 2, `import answered ${imported.response.status}`);
const page = await customer.GET('/api/v1/c/transactions', {
  params: { query: { page: 1, per_page: 10, amount_from: 100, pay_date_from: '2026-11-01' } },
});
check(page.data, `transactions answered ${page.response.status}`);
check(
  page.data.pagination.total === 1,
  `expected 1 transaction, got ${page.data.pagination.total}`,
);
check(page.data.data[0]?.amount === '120.50', 'the amount is not the exact decimal');

// Limits: the usage report, and the rate-limit headers every answer carries.
const limits = await customer.GET('/api/v1/tokens/limits');
check(limits.data, `limits answered ${limits.response.status}`);
const remaining: number = limits.data.rate_limits.limits[0]!.remaining;
check(limits.response.headers.get('ratelimit'), 'no RateLimit header');

// Errors are typed too: a problem body here, the customer API's shape there.
const missing = await customer.GET('/listings/properties/{id}', {
  params: { path: { id: 'no-such-property' } },
});
const problem: Problem | undefined = missing.error;
check(missing.response.status === 404 && problem?.title === 'Not Found', 'expected a 404 problem');
const tooBig = await customer.GET('/api/v1/c/transactions', {
  params: { query: { per_page: 1000 } },
});
check(tooBig.response.status === 422, `per_page=1000 answered ${tooBig.response.status}`);
const fields = tooBig.error && 'errors' in tooBig.error ? Object.keys(tooBig.error.errors) : [];
check(fields.includes('per_page'), 'the 422 does not name per_page');

console.log(
  `generated client OK: created ${id}, listed ${listed.length}, ` +
    `transactions ${page.data.pagination.total}, remaining ${remaining}, ` +
    `404 "${problem?.title}", 422 on ${fields.join(',')}`,
);
