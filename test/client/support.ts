import { afterAll } from 'bun:test';
import { recordPeerAddress } from '@/api/request/peer';
import { type ClientOptions, createClient } from '../../client/src';
import { createTestApp, manualClock } from '../support/harness';

export const PUBLIC_ORIGIN = 'http://localhost:3000';

/**
 * The real service on a loopback socket (Bun.serve over the harness's app,
 * its own fresh database), and clients pointed at it whose waits are recorded
 * instead of slept. Stopped after the file's tests.
 */
export async function serviceUnderTest(env: Record<string, string> = {}, startAt = Date.now()) {
  const clock = manualClock(startAt);
  const ctx = createTestApp({ env: { PUBLIC_ORIGIN, ...env }, clock });
  const server = Bun.serve({
    port: 0,
    hostname: '127.0.0.1',
    fetch: (request, srv) => {
      recordPeerAddress(request, srv.requestIP(request)?.address);
      return ctx.fetch(request);
    },
  });
  afterAll(() => server.stop(true));
  const baseUrl = `http://127.0.0.1:${server.port}`;

  /** A client of this service whose waits are recorded in `sleeps`, never slept. */
  const recording = (options: Partial<ClientOptions> = {}) => {
    const sleeps: number[] = [];
    const client = createClient({
      baseUrl,
      sleep: async (ms) => {
        sleeps.push(ms);
      },
      random: () => 0.5,
      ...options,
    });
    return { client, sleeps };
  };
  const clientWith = (options: Partial<ClientOptions> = {}) => recording(options).client;

  const employeeToken = await ctx.tokenFor('employee-1', 'employee');
  return {
    ...ctx,
    clock,
    baseUrl,
    recording,
    clientWith,
    employeeToken,
    /** A client holding an employee token. */
    employee: clientWith({ token: employeeToken }),
    /** A client with no token. */
    anonymous: clientWith(),
    customer: async (sub: string) => clientWith({ token: await ctx.tokenFor(sub, 'customer') }),
  };
}

/**
 * A real HTTP server on a loopback socket in front of `upstream`: `answer`
 * sees each request (numbered from 1) and answers it itself, or with null
 * lets it through to `upstream` unchanged. `requests` counts what arrived.
 * Stopped after the file's tests.
 */
export function faultyProxy(
  upstream: string,
  answer: (request: Request, n: number) => Response | Promise<Response> | null,
) {
  const seen: { method: string; path: string }[] = [];
  const server = Bun.serve({
    port: 0,
    hostname: '127.0.0.1',
    fetch: async (request) => {
      const url = new URL(request.url);
      seen.push({ method: request.method, path: url.pathname });
      const own = answer(request, seen.length);
      if (own) return own;
      const body =
        request.method === 'GET' || request.method === 'HEAD'
          ? undefined
          : await request.arrayBuffer();
      return fetch(`${upstream}${url.pathname}${url.search}`, {
        method: request.method,
        headers: request.headers,
        body,
      });
    },
  });
  afterAll(() => server.stop(true));
  return { baseUrl: `http://127.0.0.1:${server.port}`, seen, requests: () => seen.length };
}

/** A valid POST /properties body. */
export const propertyBody = <O extends object = object>(
  ownerId: string,
  overrides: O = {} as O,
) => ({
  type: 'apartment' as const,
  ownerId,
  location: {
    addressLine1: 'Calle Mayor 5',
    city: 'Madrid',
    cityId: 'madrid' as const,
    postalCode: '28013',
    latitude: 40.4168,
    longitude: -3.7038,
  },
  ...overrides,
});

/** Collects an async iterable. */
export async function collect<T>(items: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const item of items) out.push(item);
  return out;
}
