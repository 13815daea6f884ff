import { expect, setSystemTime } from 'bun:test';
import { Webhook } from 'standardwebhooks';
import * as webhookDelivery from '@/workers/webhook-delivery';
import { listingsContext } from '../listings/support';
import type { TestContext } from '../support/harness';

export interface Received {
  path: string;
  headers: Record<string, string>;
  body: string;
}

/**
 * A real receiver on 127.0.0.1: records every request and answers with the
 * next status of `statuses` (then 200), or whatever `answer` returns.
 */
export function startReceiver() {
  const received: Received[] = [];
  const statuses: number[] = [];
  const waiting: { count: number; resolve: () => void }[] = [];
  let answer: ((request: Request) => Response | Promise<Response>) | null = null;
  const server = Bun.serve({
    hostname: '127.0.0.1',
    port: 0,
    async fetch(request) {
      received.push({
        path: new URL(request.url).pathname,
        headers: Object.fromEntries(request.headers),
        body: await request.text(),
      });
      for (const waiter of waiting.filter((w) => received.length >= w.count)) {
        waiting.splice(waiting.indexOf(waiter), 1);
        waiter.resolve();
      }
      if (answer) return answer(request);
      return new Response('ok', { status: statuses.shift() ?? 200 });
    },
  });
  return {
    url: (path = '/hook') => `http://127.0.0.1:${server.port}${path}`,
    received,
    statuses,
    /** Resolves once `count` requests have arrived in all. */
    receivedCount: (count: number) =>
      received.length >= count
        ? Promise.resolve()
        : new Promise<void>((resolve) => waiting.push({ count, resolve })),
    answerWith(handler: typeof answer) {
      answer = handler;
    },
    stop: () => server.stop(true),
  };
}

/**
 * Verifies one request with the independent `standardwebhooks` package; its
 * timestamp tolerance reads the system time, set to the service clock's.
 */
export function verify(received: Received, secret: string, now: number): unknown {
  setSystemTime(new Date(now));
  try {
    return new Webhook(secret).verify(received.body, received.headers);
  } finally {
    setSystemTime();
  }
}

export const LOCAL_WEBHOOKS = { WEBHOOKS_ALLOW_HTTP: 'true', WEBHOOKS_ALLOW_PRIVATE: 'true' };

/** A listings context whose webhooks may use plain http to 127.0.0.1 (the test receiver). */
export const webhooksContext = () => listingsContext({ env: LOCAL_WEBHOOKS });

/** One run of the delivery job, the way the scheduler runs it. */
export const deliver = (ctx: { deps: Parameters<typeof webhookDelivery.run>[0] }) =>
  webhookDelivery.run(ctx.deps);

/** Every call on the endpoint at `path` answers 404 to `token`: it is someone else's. */
export async function expectHiddenFrom(
  ctx: Pick<TestContext, 'request'>,
  path: string,
  token: string,
) {
  for (const [method, suffix] of [
    ['GET', ''],
    ['PATCH', ''],
    ['DELETE', ''],
    ['POST', '/rotate-secret'],
    ['GET', '/deliveries'],
  ] as const) {
    const res = await ctx.request(method, `${path}${suffix}`, {
      token,
      ...(method === 'PATCH' ? { body: { enabled: false } } : {}),
    });
    expect([method, suffix, res.status]).toEqual([method, suffix, 404]);
  }
}
