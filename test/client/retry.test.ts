import { describe, expect, test } from 'bun:test';
import {
  DEFAULT_RETRY_DELAYS,
  NetworkError,
  ProblemError,
  RateLimitError,
  retryAfterSeconds,
  retryDelay,
} from '../../client/src';
import { problemOf } from '../support/harness';
import { propertyBody, serviceUnderTest } from './support';

const svc = await serviceUnderTest();

/** A client whose waits are recorded, with a fetch that can fail before reaching the service. */
function clientWithFaults(fault: (request: Request, call: number) => Response | Error | null) {
  let calls = 0;
  const { client, sleeps } = svc.recording({
    token: svc.employeeToken,
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

describe('delays', () => {
  const policy = (random: number) => ({
    delays: DEFAULT_RETRY_DELAYS,
    jitter: 0.1,
    random: () => random,
  });

  test('30 s, 60 s, 2 min, 5 min with ±10 % jitter', () => {
    expect([1, 2, 3, 4].map((n) => retryDelay(n, null, policy(0.5)))).toEqual([
      30_000, 60_000, 120_000, 300_000,
    ]);
    expect([1, 2, 3, 4].map((n) => retryDelay(n, null, policy(0)))).toEqual([
      27_000, 54_000, 108_000, 270_000,
    ]);
    expect([1, 2, 3, 4].map((n) => retryDelay(n, null, policy(1)))).toEqual([
      33_000, 66_000, 132_000, 330_000,
    ]);
  });

  test("the server's Retry-After when it asks for more, never less than it asked", () => {
    expect(retryDelay(1, 45, policy(0))).toBe(45_000);
    expect(retryDelay(1, 45, policy(1))).toBe(48_000);
    expect(retryDelay(2, 45, policy(0.5))).toBe(60_000);
  });

  test('Retry-After as seconds or an HTTP date', () => {
    expect(retryAfterSeconds('120')).toBe(120);
    expect(retryAfterSeconds(null)).toBeNull();
    const now = Date.UTC(2026, 0, 1, 12, 0, 0);
    expect(retryAfterSeconds('Thu, 01 Jan 2026 12:01:30 GMT', now)).toBe(90);
  });
});

describe('network errors and 503', () => {
  test('a GET is retried after network errors and 503s, then answers', async () => {
    const { id } = await svc.employee.listings.properties.create(propertyBody('owner-r'));
    const faults = clientWithFaults((_, call) =>
      call === 1 ? new TypeError('connection refused') : call === 2 ? unavailable() : null,
    );
    expect((await faults.client.listings.properties.get(id)).id).toBe(id);
    expect(faults.sleeps).toEqual([30_000, 60_000]);
  });

  test('a GET gives up after the fourth retry with a NetworkError', async () => {
    const faults = clientWithFaults(() => new TypeError('connection refused'));
    const error = await faults.client.listings.properties.get('x').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(NetworkError);
    expect((error as NetworkError).attempts).toBe(5);
    expect(faults.sleeps).toEqual([30_000, 60_000, 120_000, 300_000]);
  });

  test('a 503 that lasts is thrown as the typed error after the retries', async () => {
    const faults = clientWithFaults(() => unavailable());
    await expect(faults.client.listings.properties.get('x')).rejects.toMatchObject({ status: 503 });
    expect(faults.calls()).toBe(5);
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
    expect(faults.sleeps).toEqual([30_000, 60_000]);
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
});

describe('429 from the real rate limiter', () => {
  const NOON = Date.UTC(2026, 10, 22, 12, 0, 0);

  /**
   * A customer on a plan of `limits`, whose quota is used up by one call at
   * 12:00:00; the clock then stands still at 12:00:45, so every retry is
   * refused too and the waits are all the client's own choice.
   */
  async function exhaustedCustomer(limits: { minute?: number; hour?: number }, random: number) {
    const service = await serviceUnderTest({}, NOON);
    const plan = await service.employee.customer.admin.plans.create({
      name: 'Tiny',
      slug: 'tiny',
      limits,
    });
    await service.employee.customer.admin.assignPlan('cust-limited', { planId: plan.id });
    const { client, sleeps } = service.recording({
      token: await service.tokenFor('cust-limited'),
      random: () => random,
    });
    await client.customer.transactions.list();
    service.clock.advance(45_000);
    return { client, sleeps };
  }

  test('retried after 30 s, 60 s, 2 min, 5 min (± jitter), then a RateLimitError with the report', async () => {
    const { client, sleeps } = await exhaustedCustomer({ minute: 1 }, 0.25);
    const error = await client.customer.transactions.list().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RateLimitError);
    const limited = error as RateLimitError;
    // random 0.25 → 95 % of each step; the service asked for 15 s, less than every step.
    expect(sleeps).toEqual([28_500, 57_000, 114_000, 285_000]);
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

  test("the service's longer Retry-After is waited instead", async () => {
    const { client, sleeps } = await exhaustedCustomer({ hour: 1 }, 0);
    const error = await client.customer.transactions.list().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RateLimitError);
    // The hour window resets at 13:00: 3555 s from 12:00:45.
    expect(sleeps).toEqual([3_555_000, 3_555_000, 3_555_000, 3_555_000]);
    expect((error as RateLimitError).rateLimit).toMatchObject({
      window: 'hour',
      resets_in_seconds: 3555,
    });
  });
});
