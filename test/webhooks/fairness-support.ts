import type { Caller } from '@/auth/tokens';
import type { WebhookStore } from '@/webhooks/store';

export const customer = (sub: string) => ({ sub, aud: 'customer' }) as Caller;
export const STAFF = { sub: 'employee-1', aud: 'employee' } as Caller;

/**
 * A real receiver on 127.0.0.1 that accepts every request and answers none
 * until `release()` (then it answers 200 at once, those held included).
 * `until(test)` resolves once `test()` holds, checked at each arrival.
 */
export function hangingReceiver() {
  const held: ((response: Response) => void)[] = [];
  /** Paths in the order the requests arrived. */
  const arrived: string[] = [];
  const checks: { test: () => boolean; resolve: () => void }[] = [];
  let released = false;
  const server = Bun.serve({
    hostname: '127.0.0.1',
    port: 0,
    // Held requests stay open however long the test holds them.
    idleTimeout: 0,
    async fetch(request) {
      await request.text();
      arrived.push(new URL(request.url).pathname);
      const answer = released
        ? new Response('ok')
        : new Promise<Response>((resolve) => held.push(resolve));
      for (const check of checks.filter((c) => c.test())) {
        checks.splice(checks.indexOf(check), 1);
        check.resolve();
      }
      return answer;
    },
  });
  return {
    url: (path: string) => `http://127.0.0.1:${server.port}${path}`,
    port: () => server.port,
    arrived,
    /** Requests open and unanswered now. */
    holding: () => held.length,
    until: (test: () => boolean) =>
      test() ? Promise.resolve() : new Promise<void>((resolve) => checks.push({ test, resolve })),
    /** Holds requests again, with nothing arrived. */
    reset() {
      released = false;
      arrived.length = 0;
    },
    release() {
      released = true;
      for (const answer of held.splice(0)) answer(new Response('ok'));
    },
    stop: () => server.stop(true),
  };
}

/** The attempts recorded for each of `endpointIds`, summed. */
export async function attemptsOf(store: WebhookStore, endpointIds: readonly string[]) {
  let attempts = 0;
  let pending = 0;
  for (const id of endpointIds) {
    for (const delivery of await store.listDeliveries(STAFF, id)) {
      attempts += delivery.attempts;
      if (delivery.attempts === 0) pending++;
    }
  }
  return { attempts, untouched: pending };
}
