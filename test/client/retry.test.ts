import { describe, expect, test } from 'bun:test';
import {
  type ClientOptions,
  DEFAULT_RATE_LIMIT_DELAYS,
  DEFAULT_RETRY_DELAYS,
  HttpError,
  NetworkError,
  ProblemError,
  RateLimitError,
  type RetryEvent,
  retryAfterSeconds,
  retryDelay,
} from '../../client/src';
import { problemOf } from '../support/harness';
import { faultyProxy, propertyBody, serviceUnderTest } from './support';

const svc = await serviceUnderTest();

/** A client whose waits are recorded, with a fetch that can fail before reaching the service. */
function clientWithFaults(
  fault: (request: Request, call: number) => Response | Error | null,
  options: Partial<ClientOptions> = {},
) {
  let calls = 0;
  const { client, sleeps } = svc.recording({
    token: svc.employeeToken,
    ...options,
    fetch: async (request) => {
      const injected = fault(request, ++calls);
      if (injected instanceof Error) throw injected;
      return injected ?? fetch(request);
    },
  });
  return { client, sleeps, calls: () => calls };
}

const unavailable = () =>
  Response.json(problemOf(503), {
    status: 503,
    headers: { 'content-type': 'application/problem+json' },
  });

/** What a gateway in front of the service answers: a text body and a `Retry-After`. */
const gateway = (status: 502 | 504, retryAfter: string) =>
  new Response(`${status} from the gateway`, {
    status,
    headers: { 'content-type': 'text/plain', 'retry-after': retryAfter },
  });

/** A client of the service behind `proxy` whose retries are told to `events`. */
function behind(proxy: { baseUrl: string }, options: { maxRetryDelayMs?: number } = {}) {
  const events: RetryEvent[] = [];
  const { client, sleeps } = svc.recording({
    baseUrl: proxy.baseUrl,
    token: svc.employeeToken,
    onRetry: (event) => events.push(event),
    ...options,
  });
  return { client, sleeps, events };
}

describe('delays', () => {
  const policy = (delays: readonly number[], random: number) => ({
    delays,
    jitter: 0.1,
    random: () => random,
    maxDelay: 300_000,
  });

  test('failures on the way: 200 ms, 500 ms, 1 s with ±10 % jitter', () => {
    const steps = (random: number) =>
      [1, 2, 3].map((n) => retryDelay(n, null, policy(DEFAULT_RETRY_DELAYS, random)));
    expect(steps(0.5)).toEqual([200, 500, 1_000]);
    expect(steps(0)).toEqual([180, 450, 900]);
    expect(steps(1)).toEqual([220, 550, 1_100]);
  });

  test('429: 30 s, 60 s, 2 min, 5 min with ±10 % jitter', () => {
    const steps = (random: number) =>
      [1, 2, 3, 4].map((n) => retryDelay(n, null, policy(DEFAULT_RATE_LIMIT_DELAYS, random)));
    expect(steps(0.5)).toEqual([30_000, 60_000, 120_000, 300_000]);
    expect(steps(0)).toEqual([27_000, 54_000, 108_000, 270_000]);
  });

  test("the server's Retry-After when it asks for more, never less than it asked", () => {
    expect(retryDelay(1, 45, policy(DEFAULT_RATE_LIMIT_DELAYS, 0))).toBe(45_000);
    expect(retryDelay(1, 45, policy(DEFAULT_RATE_LIMIT_DELAYS, 1))).toBe(48_000);
    expect(retryDelay(2, 45, policy(DEFAULT_RATE_LIMIT_DELAYS, 0.5))).toBe(60_000);
    expect(retryDelay(1, 2, policy(DEFAULT_RETRY_DELAYS, 0.5))).toBe(2_010);
  });

  test('never longer than maxDelay; a server asking for more is not retried (null)', () => {
    const capped = { ...policy(DEFAULT_RATE_LIMIT_DELAYS, 1), maxDelay: 40_000 };
    expect(retryDelay(2, null, capped)).toBe(40_000);
    expect(retryDelay(1, 40, capped)).toBe(40_000);
    expect(retryDelay(1, 41, capped)).toBeNull();
  });

  test('Retry-After as seconds or an HTTP date', () => {
    expect(retryAfterSeconds('120')).toBe(120);
    expect(retryAfterSeconds(null)).toBeNull();
    expect(retryAfterSeconds('soon')).toBeNull();
    const now = Date.UTC(2026, 0, 1, 12, 0, 0);
    expect(retryAfterSeconds('Thu, 01 Jan 2026 12:01:30 GMT', now)).toBe(90);
    expect(retryAfterSeconds('Thu, 01 Jan 2026 11:59:00 GMT', now)).toBe(0);
  });
});

describe('502 and 504 from a gateway in front of the service', () => {
  test('a GET waits each Retry-After, tells onRetry, then answers', async () => {
    const { id } = await svc.employee.listings.properties.create(propertyBody('owner-gw'));
    const proxy = faultyProxy(svc.baseUrl, (_, n) =>
      n === 1 ? gateway(502, '2') : n === 2 ? gateway(504, '0') : null,
    );
    const { client, sleeps, events } = behind(proxy);
    expect((await client.listings.properties.get(id)).id).toBe(id);
    expect(proxy.requests()).toBe(3);
    // random 0.5: 2 s asked, plus half the jitter of the 200 ms step; then the 500 ms step.
    expect(sleeps).toEqual([2_010, 500]);
    const url = `${proxy.baseUrl}/listings/properties/${id}`;
    expect(events).toEqual([
      { attempt: 1, delayMs: 2_010, status: 502, method: 'GET', url },
      { attempt: 2, delayMs: 500, status: 504, method: 'GET', url },
    ]);
  });

  test('three retries, then the last answer as an HttpError with its text body', async () => {
    const proxy = faultyProxy(svc.baseUrl, () => gateway(504, '0'));
    const { client, sleeps, events } = behind(proxy);
    const error = await client.listings.properties.get('x').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(HttpError);
    expect(error).toMatchObject({ status: 504, body: '504 from the gateway' });
    expect(proxy.requests()).toBe(4);
    expect(sleeps).toEqual([200, 500, 1_000]);
    expect(events.map((event) => event.attempt)).toEqual([1, 2, 3]);
  });

  test('a Retry-After date beyond maxRetryDelayMs is not waited: the answer at once', async () => {
    const later = new Date(Date.now() + 3_600_000).toUTCString();
    const proxy = faultyProxy(svc.baseUrl, () => gateway(502, later));
    const { client, sleeps, events } = behind(proxy, { maxRetryDelayMs: 60_000 });
    await expect(client.listings.properties.get('x')).rejects.toMatchObject({ status: 502 });
    expect(proxy.requests()).toBe(1);
    expect(sleeps).toEqual([]);
    expect(events).toEqual([]);
  });

  test('a POST without an Idempotency-Key is sent once: a 502 or 504 may hide a done write', async () => {
    const proxy = faultyProxy(svc.baseUrl, (_, n) => gateway(n === 1 ? 502 : 504, '0'));
    const { client, sleeps, events } = behind(proxy);
    const create = () => client.listings.properties.create(propertyBody('owner-nokey'));
    await expect(create()).rejects.toMatchObject({ status: 502 });
    await expect(create()).rejects.toMatchObject({ status: 504 });
    expect(proxy.seen).toEqual([
      { method: 'POST', path: '/listings/properties' },
      { method: 'POST', path: '/listings/properties' },
    ]);
    expect(sleeps).toEqual([]);
    expect(events).toEqual([]);
  });

  test('a POST with an Idempotency-Key is retried through the gateway and created once', async () => {
    const proxy = faultyProxy(svc.baseUrl, (_, n) => (n === 1 ? gateway(502, '0') : null));
    const { client, events } = behind(proxy);
    const created = await client.listings.properties.create(propertyBody('owner-gw-key'), {
      idempotent: true,
    });
    expect(proxy.requests()).toBe(2);
    expect(events).toMatchObject([{ attempt: 1, status: 502, method: 'POST' }]);
    const page = await svc.employee.listings.properties.list({ ownerId: 'owner-gw-key' });
    expect(page._embedded['svc:properties']?.map((p) => p.id)).toEqual([created.id]);
  });

  test('a PATCH is never repeated', async () => {
    const proxy = faultyProxy(svc.baseUrl, () => gateway(502, '0'));
    const { client, events } = behind(proxy);
    await expect(client.admin.users.update('u-1', { disabled: true })).rejects.toMatchObject({
      status: 502,
    });
    expect(proxy.seen).toEqual([{ method: 'PATCH', path: '/admin/users/u-1' }]);
    expect(events).toEqual([]);
  });
});

describe('network errors and 503', () => {
  test('a connection refused by a real socket: three retries, then a NetworkError', async () => {
    const closed = Bun.serve({ port: 0, hostname: '127.0.0.1', fetch: () => new Response() });
    const baseUrl = `http://127.0.0.1:${closed.port}`;
    closed.stop(true);
    const events: RetryEvent[] = [];
    const { client, sleeps } = svc.recording({ baseUrl, onRetry: (e) => events.push(e) });
    const error = await client.listings.properties.get('x').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(NetworkError);
    expect(error).toMatchObject({ attempts: 4, delays: [200, 500, 1_000] });
    expect(sleeps).toEqual([200, 500, 1_000]);
    expect(events.map(({ attempt, status, error }) => [attempt, status, error?.name])).toEqual([
      [1, undefined, 'NetworkError'],
      [2, undefined, 'NetworkError'],
      [3, undefined, 'NetworkError'],
    ]);
  });

  test('a GET is retried after a network error and a 503, then answers', async () => {
    const { id } = await svc.employee.listings.properties.create(propertyBody('owner-r'));
    const faults = clientWithFaults((_, call) =>
      call === 1 ? new TypeError('connection refused') : call === 2 ? unavailable() : null,
    );
    expect((await faults.client.listings.properties.get(id)).id).toBe(id);
    expect(faults.sleeps).toEqual([200, 500]);
  });

  test('a 503 that lasts is thrown as the typed error after the retries', async () => {
    const faults = clientWithFaults(() => unavailable());
    const error = await faults.client.listings.properties.get('x').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ProblemError);
    expect(error).toMatchObject({ status: 503 });
    expect(faults.calls()).toBe(4);
  });

  test('retry: false makes one attempt', async () => {
    const faults = clientWithFaults(() => unavailable());
    await expect(
      faults.client.listings.properties.get('x', { retry: false }),
    ).rejects.toMatchObject({ status: 503 });
    expect(faults.calls()).toBe(1);
  });

  test('a POST without an Idempotency-Key is never repeated', async () => {
    const network = clientWithFaults(() => new TypeError('connection reset'));
    const lost = await network.client.listings.properties
      .create(propertyBody('owner-r'))
      .catch((e: unknown) => e);
    expect(lost).toBeInstanceOf(NetworkError);
    expect(network.calls()).toBe(1);

    const busy = clientWithFaults(() => unavailable());
    const refused = await busy.client.listings.properties
      .create(propertyBody('owner-r'))
      .catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(ProblemError);
    expect(busy.calls()).toBe(1);
    expect(busy.sleeps).toEqual([]);
  });

  test('a POST with an Idempotency-Key is retried and created once', async () => {
    const faults = clientWithFaults((_, call) => (call <= 2 ? unavailable() : null));
    const created = await faults.client.listings.properties.create(propertyBody('owner-key'), {
      idempotencyKey: 'create-owner-key-1',
    });
    expect(faults.sleeps).toEqual([200, 500]);
    const page = await svc.employee.listings.properties.list({ ownerId: 'owner-key' });
    expect(page._embedded['svc:properties']?.map((p) => p.id)).toEqual([created.id]);
  });

  test('an Idempotency-Key is refused where the service does not honour one', async () => {
    await expect(
      svc.anonymous.auth.signUp({ email: 'x@example.com', password: 'long enough' }, {
        idempotent: true,
      } as never),
    ).rejects.toBeInstanceOf(TypeError);
  });

  test('retryDelays: false turns every retry off, 429s included', async () => {
    const tooMany = () => Response.json({ message: 'Too Many Attempts.' }, { status: 429 });
    const faults = clientWithFaults((_, call) => (call === 1 ? unavailable() : tooMany()), {
      retryDelays: false,
    });
    await expect(faults.client.listings.properties.get('x')).rejects.toMatchObject({ status: 503 });
    await expect(faults.client.listings.properties.get('x')).rejects.toBeInstanceOf(RateLimitError);
    expect(faults.calls()).toBe(2);
    expect(faults.sleeps).toEqual([]);
  });
});

describe('429 from the real rate limiter', () => {
  const NOON = Date.UTC(2026, 10, 22, 12, 0, 0);

  /**
   * A customer on a plan of `limits`, whose quota is used up by one call at
   * 12:00:00; the clock then stands still at 12:00:45, so every retry is
   * refused too and the waits are all the client's own choice.
   */
  async function exhaustedCustomer(
    limits: { minute?: number; hour?: number },
    random: number,
    maxRetryDelayMs?: number,
  ) {
    const service = await serviceUnderTest({}, NOON);
    const plan = await service.employee.customer.admin.plans.create({
      name: 'Tiny',
      slug: 'tiny',
      limits,
    });
    await service.employee.customer.admin.assignPlan('cust-limited', { planId: plan.id });
    const events: RetryEvent[] = [];
    const { client, sleeps } = service.recording({
      token: await service.tokenFor('cust-limited'),
      random: () => random,
      onRetry: (event) => events.push(event),
      ...(maxRetryDelayMs === undefined ? {} : { maxRetryDelayMs }),
    });
    await client.customer.transactions.list();
    service.clock.advance(45_000);
    return { client, sleeps, events, baseUrl: service.baseUrl };
  }

  test('retried after 30 s, 60 s, 2 min, 5 min (± jitter), then a RateLimitError with the report', async () => {
    const { client, sleeps, events, baseUrl } = await exhaustedCustomer({ minute: 1 }, 0.25);
    const error = await client.customer.transactions.list().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RateLimitError);
    const limited = error as RateLimitError;
    // random 0.25 → 95 % of each step; the service asked for 15 s, less than every step.
    expect(sleeps).toEqual([28_500, 57_000, 114_000, 285_000]);
    expect(events).toEqual(
      sleeps.map((delayMs, i) => ({
        attempt: i + 1,
        delayMs,
        status: 429,
        method: 'GET',
        url: `${baseUrl}/api/v1/c/transactions`,
      })),
    );
    expect(limited.attempts).toBe(5);
    expect(limited.delays).toEqual(sleeps);
    expect(limited.retryAfter).toBe(15);
    expect(limited.rateLimit).toEqual({
      window: 'minute',
      limit: 1,
      used: 1,
      remaining: 0,
      resets_in_seconds: 15,
      resets_at: '2026-11-22T12:01:00+00:00',
    });
    expect(limited.message).toBe(
      'Rate limited: gave up after 5 attempts (waited 29 s, 57 s, 114 s, 285 s); minute window: 1/1 used, resets in 15 s at 2026-11-22T12:01:00+00:00',
    );
  });

  test("the service's longer Retry-After is waited instead, up to maxRetryDelayMs", async () => {
    const { client, sleeps } = await exhaustedCustomer({ hour: 1 }, 0, 4_000_000);
    const error = await client.customer.transactions.list().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RateLimitError);
    // The hour window resets at 13:00: 3555 s from 12:00:45.
    expect(sleeps).toEqual([3_555_000, 3_555_000, 3_555_000, 3_555_000]);
    expect((error as RateLimitError).rateLimit).toMatchObject({
      window: 'hour',
      resets_in_seconds: 3555,
    });
  });

  test('a Retry-After past the default 5 min is not waited: the RateLimitError at once', async () => {
    const { client, sleeps } = await exhaustedCustomer({ hour: 1 }, 0);
    const error = await client.customer.transactions.list().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RateLimitError);
    expect(error).toMatchObject({ attempts: 1, delays: [], retryAfter: 3555 });
    expect(sleeps).toEqual([]);
  });
});
