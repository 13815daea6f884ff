import { afterAll, expect, test } from 'bun:test';
import { TokenService } from '@/auth/tokens';
import { tempDir } from '../support/harness';
import { spawnService } from '../support/service-process';
import { employeeToken, JWT_SECRET, randomProperty, seeded } from './support';

/**
 * Long polls of 25 s over a real socket against `bun src/index.ts` at the
 * default idle timeout (10 s): each must be answered, one empty at the end
 * of its wait, one by an event appended a second before its end. The quick
 * suite shows the same with a 2 s idle timeout (test/server/long-poll.test.ts).
 */
const WAIT_SECONDS = 25;

const service = await spawnService({
  JWT_SECRET,
  WORKERS: 'off',
  DATABASE_PATH: `${tempDir()}/app.db`,
});
afterAll(() => service.proc.kill());
const employee = { authorization: `Bearer ${await employeeToken()}` };
// A customer sees the events of their own properties only: none here.
const customer = {
  authorization: `Bearer ${await new TokenService(JWT_SECRET).issue('slow-customer', 'customer', 3600)}`,
};

async function poll(headers: Record<string, string>, after?: string) {
  const started = performance.now();
  const cursor = after === undefined ? '' : `&after=${after}`;
  const res = await fetch(`${service.url}/listings/events?wait=${WAIT_SECONDS}${cursor}`, {
    headers,
  });
  const body = (await res.json()) as {
    data: unknown[];
    next_cursor: string | null;
    has_more: boolean;
  };
  return { status: res.status, body, seconds: (performance.now() - started) / 1000 };
}

/** An employee writes a property (of another owner than the customer); its event follows. */
async function createProperty(marker: string) {
  const res = await fetch(`${service.url}/listings/properties`, {
    method: 'POST',
    headers: { ...employee, 'content-type': 'application/json' },
    body: JSON.stringify(randomProperty(seeded(1), marker)),
  });
  expect(res.status).toBe(201);
}

test(`a ${WAIT_SECONDS} s long poll is answered: empty at the end of its wait, or by an event at 24 s`, async () => {
  const emptyPoll = poll(customer);
  const eventPoll = poll(employee);
  await Bun.sleep((WAIT_SECONDS - 1) * 1000);
  await createProperty('Long poll street');
  const [empty, withEvent] = await Promise.all([emptyPoll, eventPoll]);

  expect(withEvent.status).toBe(200);
  expect(withEvent.body.data.length).toBe(1);
  expect(withEvent.seconds).toBeGreaterThanOrEqual(WAIT_SECONDS - 1);
  expect(empty.status).toBe(200);
  expect(empty.body).toEqual({ data: [], next_cursor: null, has_more: false });
  expect(empty.seconds).toBeGreaterThanOrEqual(WAIT_SECONDS - 0.05);
  console.log(
    `a ${WAIT_SECONDS} s long poll (idle timeout 10 s): answered by an event after ${withEvent.seconds.toFixed(1)} s, answered empty after ${empty.seconds.toFixed(1)} s`,
  );
}, 90_000);

test('a connection that sends half a request is closed however long a poll may wait', async () => {
  const { hostname, port } = new URL(service.url);
  const started = performance.now();
  const closedAfter = await new Promise<number>((resolve, reject) => {
    Bun.connect({
      hostname,
      port: Number(port),
      socket: {
        open: (socket) =>
          void socket.write('GET /listings/events?wait=30 HTTP/1.1\r\nHost: 127.0.0.1\r\n'),
        data: () => {},
        close: () => resolve((performance.now() - started) / 1000),
        error: (_socket, error) => reject(error),
      },
    }).catch(reject);
  });
  // Bun closes a connection without a whole request after about 12 s, whatever the idle timeout.
  expect(closedAfter).toBeLessThan(20);
  console.log(`half a request: closed after ${closedAfter.toFixed(1)} s`);
}, 60_000);
