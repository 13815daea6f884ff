import { afterAll, describe, expect, test } from 'bun:test';
import { onEvents } from '@/events/signal';
import { createLogger } from '@/logger';
import { type DeliveryContext, deliverWebhooks } from '@/webhooks/deliver';
import { SLOW_LANE_AFTER_FAILURES } from '@/webhooks/deliveries';
import { FairQueue, ownerShareOf, reserveOf, slowLaneShareOf } from '@/webhooks/fair-queue';
import { propertyEvent } from '../events/stores';
import { attemptsOf, customer, hangingReceiver, STAFF } from './fairness-support';
import { startReceiver, webhooksContext } from './support';

const hanging = hangingReceiver();
const quick = startReceiver();
afterAll(() => {
  hanging.stop();
  quick.stop();
});

/** Breaks a deadlock only: a scheduler that waits on A's attempts would otherwise hang the test. */
const DEADLOCK_BREAKER_MS = 10_000;

/**
 * Customer A with `endpoints` endpoints on the hanging receiver and
 * `backlog` events queued for each; customer B with one endpoint on the
 * quick receiver.
 */
async function twoCustomers({ endpoints = 20, backlog = 3 } = {}) {
  const ctx = await webhooksContext();
  const store = ctx.deps.stores.webhooks;
  hanging.reset();
  quick.received.length = 0;
  quick.answerWith(null);
  const a: string[] = [];
  for (let i = 0; i < endpoints; i++) {
    a.push(
      (
        await store.createEndpoint(
          customer('owner-a'),
          { url: hanging.url(`/a${i}`) },
          ctx.clock(),
          ctx.config.webhookQuotas.endpointsPerCustomer,
        )
      ).id,
    );
  }
  const b = (
    await store.createEndpoint(
      customer('owner-b'),
      { url: quick.url('/b') },
      ctx.clock(),
      ctx.config.webhookQuotas.endpointsPerCustomer,
    )
  ).id;
  const append = (owner: string, count: number) =>
    ctx.deps.stores.events.appendEvents(
      Array.from({ length: count }, (_, i) => ({
        event: propertyEvent(`${owner}-${i}-${crypto.randomUUID()}`, owner),
        now: ctx.clock(),
      })),
    );
  await append('owner-a', backlog);
  const delivery = (options: Partial<DeliveryContext> = {}): DeliveryContext => ({
    store,
    clock: ctx.clock,
    quotas: ctx.config.webhookQuotas,
    policy: ctx.config.webhooks,
    timeoutMs: 60_000,
    ...options,
  });
  return { ctx, store, a, b, append, delivery };
}

describe('fair webhook delivery', () => {
  test("customer A's 20 endpoints accept and never answer, 60 deliveries queued: customer B's delivery goes out in the same run, without waiting for A's attempts", async () => {
    const { store, a, b, append, delivery } = await twoCustomers();
    // B's event is the newest: oldest-first scheduling would serve all of A's first.
    await append('owner-b', 1);
    const run = deliverWebhooks(delivery({ concurrency: 8 }));
    const breaker = setTimeout(hanging.release, DEADLOCK_BREAKER_MS);
    await quick.receivedCount(1);
    // B arrived while every one of A's attempts so far is still unanswered.
    const holdingWhenBArrived = hanging.holding();
    const aWhenBArrived = await attemptsOf(store, a);
    hanging.release();
    clearTimeout(breaker);
    expect(holdingWhenBArrived).toBe(hanging.arrived.slice(0, holdingWhenBArrived).length);
    expect(holdingWhenBArrived).toBeGreaterThan(0);
    // A holds at most its share of the pool: a quarter, 2 of 8.
    expect(holdingWhenBArrived).toBeLessThanOrEqual(2);
    // None of A's 60 deliveries was recorded yet: B did not wait for A's backlog.
    expect(aWhenBArrived).toEqual({ attempts: 0, untouched: 60 });
    expect(await run).toEqual({ queued: 61, attempted: 61, succeeded: 61, failed: 0 });
    expect((await store.listDeliveries(STAFF, b))[0]).toMatchObject({ status: 'succeeded' });
    // One attempt per endpoint at a time: each endpoint's three went one after another.
    expect(new Set(hanging.arrived).size).toBe(20);
  }, 30_000);

  test('a run never waits on its slowest attempt: while one of A’s hangs, B’s three deliveries go one after another', async () => {
    const { a, append, delivery } = await twoCustomers({ endpoints: 1, backlog: 1 });
    await append('owner-b', 3);
    const run = deliverWebhooks(delivery({ concurrency: 2 }));
    const breaker = setTimeout(hanging.release, DEADLOCK_BREAKER_MS);
    await quick.receivedCount(3);
    const holding = hanging.holding();
    hanging.release();
    clearTimeout(breaker);
    expect(holding).toBe(1);
    expect(a).toHaveLength(1);
    expect(await run).toMatchObject({ attempted: 4, succeeded: 4 });
  }, 30_000);

  test('events that commit while a run is held up are queued and sent by that run', async () => {
    const { append, delivery } = await twoCustomers({ endpoints: 20, backlog: 2 });
    const run = deliverWebhooks(delivery({ concurrency: 4, onEvents }));
    const breaker = setTimeout(hanging.release, DEADLOCK_BREAKER_MS);
    // The run is busy: A's share of the pool hangs, the rest of A's backlog waits.
    await hanging.until(() => hanging.holding() === ownerShareOf(4));
    await append('owner-b', 1);
    await quick.receivedCount(1);
    const holding = hanging.holding();
    hanging.release();
    clearTimeout(breaker);
    expect(holding).toBe(1);
    expect(await run).toEqual({ queued: 41, attempted: 41, succeeded: 41, failed: 0 });
  }, 30_000);

  test('shutdown: nothing new starts; the attempts in flight finish and are recorded', async () => {
    const { store, a, delivery } = await twoCustomers({ endpoints: 20, backlog: 1 });
    const stop = new AbortController();
    const run = deliverWebhooks(delivery({ concurrency: 4, signal: stop.signal }));
    await hanging.until(() => hanging.holding() === ownerShareOf(4));
    stop.abort();
    hanging.release();
    expect(await run).toMatchObject({ attempted: 1, succeeded: 1 });
    expect(hanging.arrived).toHaveLength(1);
    expect(await attemptsOf(store, a)).toEqual({ attempts: 1, untouched: 19 });
  });

  test('the slow lane: 5 customers × 20 endpoints that never answer hold at most a quarter of the slots; another customer’s delivery starts while they all still hang, and a success brings an endpoint back', async () => {
    const ctx = await webhooksContext();
    const store = ctx.deps.stores.webhooks;
    hanging.reset();
    quick.received.length = 0;
    quick.answerWith(null);
    const create = async (owner: string, url: string) =>
      (
        await store.createEndpoint(
          customer(owner),
          { url },
          ctx.clock(),
          ctx.config.webhookQuotas.endpointsPerCustomer,
        )
      ).id;
    const hung: string[] = [];
    for (let o = 0; o < 5; o++) {
      for (let i = 0; i < 20; i++) hung.push(await create(`hung-${o}`, hanging.url(`/h${o}-${i}`)));
    }
    const healthy = await create('healthy', quick.url('/healthy'));
    const append = (owner: string, count: number) =>
      ctx.deps.stores.events.appendEvents(
        Array.from({ length: count }, (_, i) => ({
          event: propertyEvent(`${owner}-${i}-${crypto.randomUUID()}`, owner),
          now: ctx.clock(),
        })),
      );
    // Each hung endpoint fails SLOW_LANE_AFTER_FAILURES attempts in a row (a short timeout).
    for (let o = 0; o < 5; o++) await append(`hung-${o}`, SLOW_LANE_AFTER_FAILURES);
    const delivery = (timeoutMs: number, options: Partial<DeliveryContext> = {}) =>
      ({
        store,
        clock: ctx.clock,
        quotas: ctx.config.webhookQuotas,
        policy: ctx.config.webhooks,
        timeoutMs,
        concurrency: 8,
        ...options,
      }) satisfies DeliveryContext;
    const failing = SLOW_LANE_AFTER_FAILURES * hung.length;
    expect(await deliverWebhooks(delivery(50, { concurrency: 32 }))).toMatchObject({
      attempted: failing,
      failed: failing,
    });
    hanging.release();
    hanging.reset();
    // Their retries fall due; each of them hangs now until released.
    ctx.clock.advance(30_000);
    const stop = new AbortController();
    const run = deliverWebhooks(delivery(60_000, { onEvents, signal: stop.signal }));
    const breaker = setTimeout(hanging.release, DEADLOCK_BREAKER_MS);
    const lane = slowLaneShareOf(8);
    await hanging.until(() => hanging.holding() === lane);
    await append('healthy', 1);
    await quick.receivedCount(1);
    const holdingWhenHealthyArrived = hanging.holding();
    const startedWhenHealthyArrived = hanging.arrived.length;
    stop.abort();
    hanging.release();
    clearTimeout(breaker);
    // The slow lane was full and every attempt in it still hanging: the
    // healthy delivery took one of the other slots at once. (Without the
    // lane, four of the five customers' shares fill all 8 slots.)
    expect(holdingWhenHealthyArrived).toBe(lane);
    expect(startedWhenHealthyArrived).toBe(lane);
    expect(await run).toMatchObject({ queued: 1, attempted: lane + 1, succeeded: lane + 1 });
    expect((await store.listDeliveries(STAFF, healthy))[0]).toMatchObject({ status: 'succeeded' });
    // The two answered at last left the slow lane; the others are still in it.
    const answered = await store.dueEndpoints(ctx.clock(), 1000, false);
    expect(answered).toHaveLength(lane);
    expect(answered.every((one) => hung.includes(one.endpointId))).toBe(true);
    expect(await store.dueEndpoints(ctx.clock(), 1000, true)).toHaveLength(hung.length - lane);
  }, 60_000);

  test('a refused address reads the same whatever is behind it: no status, no duration, one reason; the operator log has the cause', async () => {
    const ctx = await webhooksContext();
    const store = ctx.deps.stores.webhooks;
    const lines: string[] = [];
    const logger = createLogger('debug', (line) => lines.push(line));
    const closed = Bun.serve({ hostname: '127.0.0.1', port: 0, fetch: () => new Response() });
    const closedPort = closed.port;
    closed.stop(true);
    const urls = [
      hanging.url('/listening'),
      `http://127.0.0.1:${closedPort}/closed`,
      'http://internal.example/hook',
      'http://nowhere.example/hook',
    ];
    const endpoints = [];
    for (const url of urls) {
      endpoints.push(
        (
          await store.createEndpoint(
            STAFF,
            { url },
            ctx.clock(),
            ctx.config.webhookQuotas.endpointsPerCustomer,
          )
        ).id,
      );
    }
    await ctx.deps.stores.events.appendEvents([
      { event: propertyEvent('p', 'owner-1'), now: ctx.clock() },
    ]);
    hanging.reset();
    const run = await deliverWebhooks({
      store,
      clock: ctx.clock,
      quotas: ctx.config.webhookQuotas,
      logger,
      policy: { allowHttp: true, allowPrivate: false },
      resolve: async (host) => {
        if (host === 'internal.example') return ['10.0.0.7'];
        throw new Error(`getaddrinfo ENOTFOUND ${host}`);
      },
    });
    expect(run).toMatchObject({ attempted: 4, failed: 4 });
    expect(hanging.arrived).toEqual([]);
    const logs = [];
    for (const id of endpoints) {
      const [entry] = await store.listDeliveries(STAFF, id);
      const { id: _, eventId: __, ...shown } = entry!;
      logs.push(shown);
    }
    expect(logs).toEqual(
      Array(4).fill({
        eventType: 'property.created',
        status: 'pending',
        attempts: 1,
        responseStatus: null,
        durationMs: 0,
        error: 'refused: address not allowed',
        lastAttemptAt: new Date(ctx.clock()).toISOString(),
        nextAttemptAt: new Date(ctx.clock() + 30_000).toISOString(),
        createdAt: new Date(ctx.clock()).toISOString(),
      }),
    );
    const causes = lines.filter((line) => line.includes('webhook attempt failed'));
    expect(causes).toHaveLength(4);
    expect(causes.join('\n')).toContain('10.0.0.7 (private use)');
    expect(causes.join('\n')).toContain('ENOTFOUND nowhere.example');
  });
});

describe('the order in which endpoints get a slot', () => {
  const endpoint = (owner: string | null, i: number, slow = false) => ({
    endpointId: `${owner ?? 'staff'}-${i}`,
    ownerId: owner,
    slow,
  });

  test('round-robin across owners whatever their number of endpoints, each owner at most its share, one attempt per endpoint', () => {
    const queue = new FairQueue(2);
    const a = Array.from({ length: 20 }, (_, i) => endpoint('owner-a', i));
    queue.offer([...a, endpoint('owner-b', 0), endpoint('owner-b', 1), endpoint(null, 0)]);
    const started = [];
    for (let next = queue.next(); next; next = queue.next()) {
      queue.started(next);
      started.push(next.endpointId);
    }
    // Owners alternate (A, B, the employees, ...), each stopping at 2 in flight.
    expect(started).toEqual(['owner-a-0', 'owner-b-0', 'staff-0', 'owner-a-1', 'owner-b-1']);
    // A frees a slot: A's next endpoint goes, the one started least recently.
    queue.finished(a[0]!);
    expect(queue.next()?.endpointId).toBe('owner-a-2');
  });

  test('the owner with fewer attempts in flight goes first; ties to the one served longest ago', () => {
    const queue = new FairQueue(8);
    queue.offer([endpoint('owner-a', 0), endpoint('owner-a', 1), endpoint('owner-a', 2)]);
    for (const _ of [0, 1]) queue.started(queue.next()!);
    queue.offer([endpoint('owner-b', 0), endpoint('owner-c', 0)]);
    expect(queue.next()?.endpointId).toBe('owner-b-0');
    queue.started(endpoint('owner-b', 0));
    expect(queue.next()?.endpointId).toBe('owner-c-0');
  });

  test('past the reserve only owners with nothing in flight start: four owners with hanging attempts leave a slot for a fifth', () => {
    // The pool of 32: an owner 8, the reserve 8, so owners with attempts in flight fill 24.
    const queue = new FairQueue(8, 8, 32 - reserveOf(32));
    const hostile = ['a', 'b', 'c', 'd', 'e'].flatMap((o) =>
      Array.from({ length: 20 }, (_, i) => endpoint(`hostile-${o}`, i)),
    );
    queue.offer(hostile);
    let inFlight = 0;
    for (let next = queue.next(); next && inFlight < 32; next = queue.next()) {
      queue.started(next);
      inFlight++;
    }
    // Every hostile owner has attempts in flight: they stop at 24 and leave 8 slots free.
    expect(inFlight).toBe(24);
    queue.offer([endpoint('victim', 0)]);
    expect(queue.next()?.endpointId).toBe('victim-0');
  });

  test('an owner’s share is a quarter of the pool, at least one', () => {
    expect([1, 3, 4, 8, 32, 100].map(ownerShareOf)).toEqual([1, 1, 1, 2, 8, 25]);
  });

  test('the slow lane takes at most its share, whoever owns its endpoints; the other endpoints take the rest', () => {
    const queue = new FairQueue(8, 2);
    const slow = Array.from({ length: 5 }, (_, o) => endpoint(`owner-${o}`, 0, true));
    queue.offer([...slow, endpoint('owner-x', 0), endpoint('owner-y', 0)]);
    const started = [];
    for (let next = queue.next(); next; next = queue.next()) {
      queue.started(next);
      started.push(next.endpointId);
    }
    expect(started).toEqual(['owner-0-0', 'owner-1-0', 'owner-x-0', 'owner-y-0']);
    // A slow attempt that succeeded frees the lane; its endpoint is back among the others.
    queue.finished({ ...slow[0]!, slow: false });
    expect(queue.next()?.endpointId).toBe('owner-2-0');
  });
});
