import { afterEach, describe, expect, test } from 'bun:test';
import { TokenService } from '@/auth/tokens';
import { spawnService } from '../support/service-process';

/**
 * Long polls of the change feed over a real socket, against `bun src/index.ts`
 * with an idle timeout of 2 s (IDLE_TIMEOUT_SECONDS) so that a wait longer
 * than it is quick to show: only a socket shows whether the server closes a
 * silent connection. The 25 s poll at the default timeout is in
 * test/slow/long-poll.slow.ts.
 */
const JWT_SECRET = 'long-poll-test-secret-0123456789-abcdefghijkl';
const IDLE_TIMEOUT_SECONDS = 2;
/** Past the idle timeout by more than Bun's check interval (a few seconds). */
const LONG_WAIT = 3 * IDLE_TIMEOUT_SECONDS;
const EMPTY = { data: [], next_cursor: null, has_more: false };

const running: { kill(): void }[] = [];
afterEach(() => {
  for (const proc of running.splice(0)) proc.kill();
});

async function start() {
  const service = await spawnService({
    JWT_SECRET,
    WORKERS: 'off',
    IDLE_TIMEOUT_SECONDS: String(IDLE_TIMEOUT_SECONDS),
  });
  running.push(service.proc);
  const tokens = new TokenService(JWT_SECRET);
  // One caller a poll: a caller may hold only EVENTS_LONG_POLLS_PER_CALLER open at once.
  let callers = 0;
  const poll = async (wait: number) =>
    fetch(`${service.url}/listings/events?wait=${wait}`, {
      headers: {
        authorization: `Bearer ${await tokens.issue(`ops-${callers++}`, 'employee', 600)}`,
      },
    });
  return { ...service, poll };
}

/**
 * Sends `request` on a raw keep-alive connection and resolves when the
 * server closes it: when the answer came and when the close, in ms from the start.
 */
function rawExchange(url: string, request: string) {
  const { hostname, port } = new URL(url);
  const started = performance.now();
  let received = '';
  let answeredAt = Number.NaN;
  return new Promise<{ received: string; answeredAt: number; closedAt: number }>(
    (resolve, reject) => {
      Bun.connect({
        hostname,
        port: Number(port),
        socket: {
          open: (socket) => void socket.write(request),
          data: (_socket, data) => {
            received += new TextDecoder().decode(data);
            if (Number.isNaN(answeredAt)) answeredAt = performance.now() - started;
          },
          close: () => resolve({ received, answeredAt, closedAt: performance.now() - started }),
          error: (_socket, error) => reject(error),
        },
      }).catch(reject);
    },
  );
}

describe('long polls outlast the idle timeout', () => {
  test('a wait three times the idle timeout is answered, empty, after its wait', async () => {
    const { poll } = await start();
    const started = performance.now();
    const res = await poll(LONG_WAIT);
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual(EMPTY);
    expect(performance.now() - started).toBeGreaterThanOrEqual(LONG_WAIT * 1000 - 50);
  }, 30_000);

  test('100 long polls at once are all answered after their wait', async () => {
    const { poll } = await start();
    const answers = await Promise.all(
      Array.from({ length: 100 }, () =>
        poll(LONG_WAIT).then(async (res) => ({
          status: res.status,
          body: await res.json(),
        })),
      ),
    );
    expect(answers).toEqual(Array.from({ length: 100 }, () => ({ status: 200, body: EMPTY })));
  }, 30_000);

  test('once a long poll is answered, its idle connection is held to the idle timeout again', async () => {
    const { url } = await start();
    const token = await new TokenService(JWT_SECRET).issue('ops', 'employee', 600);
    const wait = 2 * IDLE_TIMEOUT_SECONDS;
    const exchange = await rawExchange(
      url,
      `GET /listings/events?wait=${wait} HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${token}\r\n\r\n`,
    );
    expect(exchange.received).toMatch(/^HTTP\/1\.1 200 /);
    // The poll's allowance (its wait + 10 s) would keep the idle connection 14 s;
    // the server's timeout closes it within a few seconds (Bun checks every few).
    expect(exchange.closedAt - exchange.answeredAt).toBeLessThan(10_000);
  }, 30_000);
});

describe('shutdown', () => {
  test('SIGTERM answers 100 long polls of 30 s at once', async () => {
    const { poll, proc, logged, url } = await start();
    const polls = Array.from({ length: 100 }, () => poll(30));
    // The server takes connections in order: once a later one is answered, the polls are in.
    await Bun.sleep(500);
    expect((await fetch(`${url}/health`)).status).toBe(200);
    const signalled = performance.now();
    proc.kill('SIGTERM');
    const answers = await Promise.all(
      polls.map((pending) =>
        pending.then(async (res) => ({ status: res.status, body: await res.json() })),
      ),
    );
    expect(answers).toEqual(Array.from({ length: 100 }, () => ({ status: 200, body: EMPTY })));
    // Well before the 30 s wait: the stop released them.
    expect(performance.now() - signalled).toBeLessThan(10_000);
    expect(await proc.exited).toBe(0);
    await logged('"msg":"stopped"');
  }, 30_000);
});
