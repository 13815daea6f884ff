/**
 * A fresh project's program using the packed client (`npm pack` in
 * client/, installed from the tarball): creates, reads, iterates pages,
 * catches typed errors. Type-checked with TypeScript 5 and run with Node
 * against a started service (test/slow/client-package.slow.ts).
 *
 * Environment: BASE_URL, EMPLOYEE_TOKEN, CUSTOMER_TOKEN, CUSTOMER_ID, and
 * SILENT_URL (a server that never answers).
 */
import {
  ApiError,
  createClient,
  ProblemError,
  type Property,
  type PropertyCreate,
  type RetryEvent,
  TimeoutError,
} from '@listings-service/client';

declare const process: { env: Record<string, string | undefined>; exitCode?: number };

const env = (name: string): string => {
  const value = process.env[name];
  if (!value) throw new Error(`${name} is not set`);
  return value;
};
const baseUrl = env('BASE_URL');
const ownerId = env('CUSTOMER_ID');
const employee = createClient({ baseUrl, token: env('EMPLOYEE_TOKEN'), retryDelays: false });
const customer = createClient({ baseUrl, token: env('CUSTOMER_TOKEN'), retryDelays: false });

function check(condition: unknown, message: string): asserts condition {
  if (!condition) throw new Error(message);
}

const body = (addressLine1: string): PropertyCreate => ({
  type: 'apartment',
  ownerId,
  location: {
    addressLine1,
    city: 'Bilbao',
    cityId: 'bilbao',
    postalCode: '48001',
    latitude: 43.263,
    longitude: -2.935,
  },
  totalUnits: 2,
  rentableUnits: 1,
});

// Creates (one with a retry-safe key), then a typed read.
const ids: string[] = [];
for (const street of ['Gran Vía 1', 'Gran Vía 2', 'Gran Vía 3']) {
  const { id } = await employee.listings.properties.create(body(street), { idempotent: true });
  ids.push(id);
}
const first: Property = await customer.listings.properties.get(ids[0]!);
check(first.totalUnits === 2 && first.location.country === 'ES', 'the read differs');

// The iterator follows _links.next: three properties, one per page.
const seen: string[] = [];
for await (const property of customer.listings.properties.all({
  cityIds: ['bilbao'],
  itemsPerPage: 1,
  published: false,
})) {
  seen.push(property.id);
}
check(
  ids.every((id) => seen.includes(id)),
  `the iterator saw ${seen.length} properties`,
);

// Transactions through the envelope iterator.
await employee.customer.admin.importTransactions([
  {
    customer_id: ownerId,
    booking_id: 'B-1',
    amount: '10.00',
    currency: 'EUR',
    pay_date: '2026-11-01',
    status: 'paid',
  },
  {
    customer_id: ownerId,
    booking_id: 'B-2',
    amount: 20,
    currency: 'EUR',
    pay_date: '2026-11-02',
    status: 'paid',
  },
]);
let transactions = 0;
for await (const transaction of customer.customer.transactions.all({ per_page: 1 })) {
  check(typeof transaction.amount === 'string', 'an amount is not a decimal string');
  transactions++;
}

// Error classes: a problem outside /api/v1, the customer API's shape inside.
let problem = '';
try {
  await customer.listings.properties.get('no-such-property');
} catch (error) {
  if (error instanceof ProblemError) problem = `${error.status} ${error.title}`;
}
check(problem === '404 Not Found', `expected a 404 ProblemError, got "${problem}"`);
let refused = '';
try {
  await customer.customer.transactions.list({ per_page: 1000 });
} catch (error) {
  if (error instanceof ApiError) refused = `${error.status} ${Object.keys(error.errors ?? {})}`;
}
check(refused === '422 per_page', `expected a 422 ApiError naming per_page, got "${refused}"`);

// A conditional read: the ETag, then 304 while the property is unchanged.
const read = await customer.listings.properties.getIfChanged(ids[0]!);
const again = await customer.listings.properties.getIfChanged(ids[0]!, {
  ifNoneMatch: read.etag ?? undefined,
});
check(!read.notModified && again.notModified, 'the second read was not a 304');

// A timeout per attempt and the retry hook, against a server that takes
// requests and never answers them.
const retries: RetryEvent[] = [];
const hasty = createClient({
  baseUrl: env('SILENT_URL'),
  timeoutMs: 100,
  retryDelays: [0],
  onRetry: (retry) => retries.push(retry),
});
let timedOut = '';
try {
  await hasty.health();
} catch (error) {
  if (error instanceof TimeoutError) timedOut = `${error.name} after ${error.attempts}`;
}
check(
  timedOut === 'TimeoutError after 2' && retries.length === 1,
  `expected a TimeoutError after one retry, got "${timedOut}"`,
);

console.log(
  `client package OK: created ${ids.length}, iterated ${seen.length}, ` +
    `transactions ${transactions}, ${problem}, ${refused}, 304, ${timedOut}`,
);
