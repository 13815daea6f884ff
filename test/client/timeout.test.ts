import { afterAll, describe, expect, test } from 'bun:test';
import { NetworkError, type RetryEvent, TimeoutError } from '../../client/src';
import { propertyBody, serviceUnderTest } from './support';

const svc = await serviceUnderTest();

/**
 * A real server that takes every request and never answers it (or, with
 * `halfway`, sends the headers and the start of a body, then nothing more).
 * `requests` counts what arrived; `onRequest` is told of each.
 */
function silentServer({ halfway = false, onRequest = () => {} } = {}) {
  let requests = 0;
  const server = Bun.serve({
    port: 0,
    hostname: '127.0.0.1',
    fetch: () => {
      requests++;
      onRequest();
      if (!halfway) return new Promise<Response>(() => {});
      const body = new ReadableStream({
        start: (controller) => controller.enqueue(new TextEncoder().encode('{"id":')),
      });
      return new Response(body, { headers: { 'content-type': 'application/json' } });
    },
  });
  afterAll(() => server.stop(true));
  return { baseUrl: `http://127.0.0.1:${server.port}`, requests: () => requests };
}

describe('a request timeout', () => {
  test('a server that never answers: a TimeoutError after the timeout of each attempt', async () => {
    const silent = silentServer();
    const events: RetryEvent[] = [];
    const { client, sleeps } = svc.recording({
      baseUrl: silent.baseUrl,
      timeoutMs: 50,
      onRetry: (event) => events.push(event),
    });
    const error = await client.listings.properties.get('p-1').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TimeoutError);
    // A timeout is a failure on the way: whoever catches NetworkError catches it too.
    expect(error).toBeInstanceOf(NetworkError);
    expect(error).toMatchObject({
      name: 'TimeoutError',
      timeoutMs: 50,
      attempts: 4,
      delays: [200, 500, 1_000],
      message: 'No answer within 50 ms, 4 attempt(s)',
    });
    expect(silent.requests()).toBe(4);
    expect(sleeps).toEqual([200, 500, 1_000]);
    expect(events.map((event) => [event.attempt, event.error?.name])).toEqual([
      [1, 'TimeoutError'],
      [2, 'TimeoutError'],
      [3, 'TimeoutError'],
    ]);
  });

  test('the timeout covers the body too: an answer that stalls halfway times out', async () => {
    const stalled = silentServer({ halfway: true });
    const client = svc.clientWith({ baseUrl: stalled.baseUrl, timeoutMs: 50 });
    const error = await client.listings.properties.get('p-1', { retry: false }).catch((e) => e);
    expect(error).toBeInstanceOf(TimeoutError);
    expect(error).toMatchObject({ attempts: 1, delays: [] });
    expect(stalled.requests()).toBe(1);
  });

  test("a call's timeoutMs overrides the client's", async () => {
    const silent = silentServer();
    const client = svc.clientWith({ baseUrl: silent.baseUrl, timeoutMs: false });
    const error = await client.listings.properties
      .get('p-1', { timeoutMs: 30, retry: false })
      .catch((e: unknown) => e);
    expect(error).toMatchObject({ name: 'TimeoutError', timeoutMs: 30, attempts: 1 });
  });

  test('a POST without an Idempotency-Key that times out is not sent again', async () => {
    const silent = silentServer();
    const { client, sleeps } = svc.recording({ baseUrl: silent.baseUrl, timeoutMs: 50 });
    const error = await client.listings.properties
      .create(propertyBody('owner-t'))
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TimeoutError);
    expect(silent.requests()).toBe(1);
    expect(sleeps).toEqual([]);
  });

  test("the caller's own abort is the caller's: its reason, no retry, no TimeoutError", async () => {
    const caller = new AbortController();
    const silent = silentServer({ onRequest: () => caller.abort(new Error('the user left')) });
    const client = svc.clientWith({ baseUrl: silent.baseUrl, timeoutMs: 60_000 });
    const error = await client.listings.properties
      .get('p-1', { signal: caller.signal })
      .catch((e: unknown) => e);
    expect(error).not.toBeInstanceOf(NetworkError);
    expect(error).toMatchObject({ message: 'the user left' });
    expect(silent.requests()).toBe(1);
  });

  test('an answer within the timeout is the answer', async () => {
    const { id } = await svc.employee.listings.properties.create(propertyBody('owner-t'));
    const client = svc.clientWith({ token: svc.employeeToken, timeoutMs: 10_000 });
    expect((await client.listings.properties.get(id)).id).toBe(id);
  });
});
