import { expect } from 'bun:test';
import { problemOf, type RequestOptions, type TestResponse } from './harness';

/** An app the guards are checked on: the harness's, or a suite's built on it. */
export interface GuardedApp {
  request(method: string, path: string, options?: RequestOptions): Promise<TestResponse>;
  tokenFor(sub: string, aud?: 'customer' | 'employee'): string | Promise<string>;
}

export interface GuardOptions {
  /** Sent with every method but GET: the refusal comes before the body is read. */
  body?: unknown;
  /** The customer's token (default: a fresh one of `c1`). */
  token?: string;
  /** `customer`: the customer API's Laravel `{message}` bodies instead of problem+json. */
  family?: 'problem' | 'customer';
}

const LARAVEL = { 401: 'Unauthenticated.', 403: 'This action is unauthorized.' } as const;

const bodyOf = (status: 401 | 403, family: GuardOptions['family']) =>
  family === 'customer' ? { message: LARAVEL[status] } : problemOf(status);

/** `GET /admin/mail` → the request's method and path. */
function split(route: string): [method: string, path: string] {
  const space = route.indexOf(' ');
  return [route.slice(0, space), route.slice(space + 1)];
}

async function refused(
  app: GuardedApp,
  route: string,
  status: 401 | 403,
  { body, token, family }: GuardOptions,
) {
  const [method, path] = split(route);
  const res = await app.request(method, path, {
    ...(token === undefined ? {} : { token }),
    ...(method === 'GET' || body === undefined ? {} : { body }),
  });
  expect({ route, status: res.status, body: res.body }).toEqual({
    route,
    status,
    body: bodyOf(status, family),
  });
}

/** Each route (`'GET /admin/mail'`) answers a caller without credentials 401, with its exact body. */
export async function expectAnonymousRefused(
  app: GuardedApp,
  routes: readonly string[],
  options: GuardOptions = {},
) {
  for (const route of routes) await refused(app, route, 401, { ...options, token: undefined });
}

/** Each route answers a customer 403, with its exact body. */
export async function expectCustomerRefused(
  app: GuardedApp,
  routes: readonly string[],
  options: GuardOptions = {},
) {
  const token = options.token ?? (await app.tokenFor('c1', 'customer'));
  for (const route of routes) await refused(app, route, 403, { ...options, token });
}

/**
 * The routes' required role, checked before anything else: `any` caller
 * refuses only the anonymous (401); `employee` refuses customers too (403).
 */
export async function expectAuthGuards(
  app: GuardedApp,
  role: 'any' | 'employee',
  routes: readonly string[],
  options: GuardOptions = {},
) {
  await expectAnonymousRefused(app, routes, options);
  if (role === 'employee') await expectCustomerRefused(app, routes, options);
}
