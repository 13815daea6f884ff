/**
 * `bun run bench:webhook-fairness`: the delay of one customer's webhook
 * delivery while another customer's endpoints hang (docs/events-and-webhooks.md).
 * Starts the real server (workers on, deliveries every 10 s and on each
 * commit, the default 10 s attempt timeout and pool), gives customer A
 * `--endpoints` endpoints on a receiver that accepts every request and never
 * answers, queues `--backlog` events for each, waits until A's attempts
 * hang, then creates one property of customer B and measures from B's 201
 * to the request at B's receiver. Exits 1 when B waited for any of A's
 * attempts to time out (another of A's started first), or a whole attempt
 * timeout: what a scheduler that sends in batches and waits for the
 * slowest would do.
 *
 *   bun run bench:webhook-fairness [-- --endpoints 20 --backlog 3]
 */
import { parseArgs } from 'node:util';
import { TokenService } from '@/auth/tokens';
import { ATTEMPT_TIMEOUT_MS } from '@/webhooks/attempt';
import { propertyBody } from '../test/listings/support';
import { spawnService } from '../test/support/service-process';
import { hangingReceiver } from '../test/webhooks/fairness-support';

const { values } = parseArgs({
  args: Bun.argv.slice(2).filter((arg) => arg !== '--'),
  options: {
    endpoints: { type: 'string', default: '20' },
    backlog: { type: 'string', default: '3' },
  },
});
const endpoints = Number(values.endpoints);
const backlog = Number(values.backlog);
const secret = 'bench-secret-bench-secret-bench-secret-0123456789';

const hanging = hangingReceiver();
let arrivedAt = 0;
/** A's requests that had arrived when B's did. */
let arrivedAWhenB = 0;
const arrivedB = Promise.withResolvers<void>();
const receiverB = Bun.serve({
  hostname: '127.0.0.1',
  port: 0,
  async fetch(request) {
    await request.text();
    arrivedAt = performance.now();
    arrivedAWhenB = hanging.arrived.length;
    arrivedB.resolve();
    return new Response(null, { status: 204 });
  },
});

const service = await spawnService({
  JWT_SECRET: secret,
  WEBHOOKS_ALLOW_HTTP: 'true',
  WEBHOOKS_ALLOW_PRIVATE: 'true',
});
const tokens = new TokenService(secret);
const employee = await tokens.issue('ops', 'employee', 600);
const call = async (token: string, method: string, path: string, body: unknown) => {
  const res = await fetch(`${service.url}${path}`, {
    method,
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  if (res.status !== 201) throw new Error(`${method} ${path}: ${res.status} ${await res.text()}`);
};

try {
  const ownerA = await tokens.issue('owner-a', 'customer', 600);
  const ownerB = await tokens.issue('owner-b', 'customer', 600);
  for (let i = 0; i < endpoints; i++) {
    await call(ownerA, 'POST', '/listings/webhooks', { url: hanging.url(`/a${i}`) });
  }
  await call(ownerB, 'POST', '/listings/webhooks', {
    url: `http://127.0.0.1:${receiverB.port}/b`,
  });
  for (let i = 0; i < backlog; i++) {
    await call(employee, 'POST', '/listings/properties', propertyBody({ ownerId: 'owner-a' }));
  }
  // The run is stuck on A: as many of A's attempts hang as A may have in flight.
  await hanging.until(() => hanging.holding() >= Math.min(endpoints, 8));
  const holdingBefore = hanging.holding();
  const started = performance.now();
  await call(employee, 'POST', '/listings/properties', propertyBody({ ownerId: 'owner-b' }));
  let giveUp: Timer | undefined;
  await Promise.race([
    arrivedB.promise,
    new Promise((resolve) => {
      giveUp = setTimeout(resolve, 3 * ATTEMPT_TIMEOUT_MS);
    }),
  ]);
  clearTimeout(giveUp);
  const delayMs = arrivedAt === 0 ? Number.POSITIVE_INFINITY : arrivedAt - started;
  // A is at its share of the pool: another of A's attempts starts only when one times out.
  const startedAfter = arrivedAWhenB - holdingBefore;
  console.log(
    `delay of one customer's delivery while another's ${endpoints} endpoints hang: ${
      Number.isFinite(delayMs) ? `${delayMs.toFixed(1)} ms` : 'never (30 s)'
    } (A: ${endpoints * backlog} deliveries queued, ${holdingBefore} attempts hanging, ${startedAfter} more of A's started before B's arrived; attempt timeout ${ATTEMPT_TIMEOUT_MS / 1000} s)`,
  );
  if (!(delayMs < ATTEMPT_TIMEOUT_MS) || startedAfter > 0) {
    console.error('B waited for A: the delivery run is not fair');
    process.exitCode = 1;
  }
} finally {
  hanging.release();
  service.proc.kill('SIGTERM');
  await service.proc.exited;
  hanging.stop();
  receiverB.stop(true);
}
