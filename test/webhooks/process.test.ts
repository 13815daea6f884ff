import { Database } from 'bun:sqlite';
import { afterAll, describe, expect, test } from 'bun:test';
import { join } from 'node:path';
import { TokenService } from '@/auth/tokens';
import { propertyBody } from '../listings/support';
import { tempDir } from '../support/harness';
import { spawnService } from '../support/service-process';
import { type Received, verify } from './support';

const SECRET = 'k'.repeat(48);

/** The service over `databasePath`, delivering every second, and an employee's calls. */
async function startService(databasePath: string) {
  const service = await spawnService({
    JWT_SECRET: SECRET,
    DATABASE_PATH: databasePath,
    WEBHOOKS_ALLOW_HTTP: 'true',
    WEBHOOKS_ALLOW_PRIVATE: 'true',
    JOB_WEBHOOK_DELIVERY_CRON: '* * * * * *',
  });
  const token = await new TokenService(SECRET).issue('ops', 'employee', 600);
  const call = (method: string, path: string, body?: unknown) =>
    fetch(`${service.url}${path}`, {
      method,
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
  return { ...service, call };
}

/** A receiver whose answers the test releases one by one; `next()` resolves at the next request. */
function gatedReceiver() {
  const received: Received[] = [];
  const waiting: ((request: Received) => void)[] = [];
  const gates: ((response: Response) => void)[] = [];
  const server = Bun.serve({
    hostname: '127.0.0.1',
    port: 0,
    async fetch(request) {
      const entry = {
        path: new URL(request.url).pathname,
        headers: Object.fromEntries(request.headers),
        body: await request.text(),
      };
      received.push(entry);
      waiting.shift()?.(entry);
      const gate = Promise.withResolvers<Response>();
      gates.push(gate.resolve);
      return gate.promise;
    },
  });
  afterAll(() => server.stop(true));
  return {
    url: `http://127.0.0.1:${server.port}/hook`,
    received,
    next: () => new Promise<Received>((resolve) => waiting.push(resolve)),
    answer: (status: number) => gates.shift()?.(new Response(null, { status })),
  };
}

const property = propertyBody({ ownerId: 'owner-p' });

function deliveryRows(databasePath: string) {
  const db = new Database(databasePath, { readonly: true });
  try {
    return db.query('SELECT status, attempts FROM webhook_deliveries ORDER BY id').all();
  } finally {
    db.close();
  }
}

describe('webhook delivery across process ends', () => {
  test('kill -9 during an attempt loses nothing: after a restart the attempt is repeated once and recorded', async () => {
    const databasePath = join(tempDir(), 'app.db');
    const receiver = gatedReceiver();
    let service = await startService(databasePath);
    const created = await service.call('POST', '/listings/webhooks', { url: receiver.url });
    const { secret } = (await created.json()) as { secret: string };
    const first = receiver.next();
    expect((await service.call('POST', '/listings/properties', property)).status).toBe(201);
    const inFlight = await first;
    service.proc.kill('SIGKILL');
    await service.proc.exited;
    receiver.answer(200); // Too late: nobody is listening for it.

    const again = receiver.next();
    service = await startService(databasePath);
    const repeated = await again;
    receiver.answer(200);
    expect(repeated.headers['webhook-id']).toBe(inFlight.headers['webhook-id']);
    expect(repeated.body).toBe(inFlight.body);
    const timestamp = Number(repeated.headers['webhook-timestamp']) * 1000;
    expect(verify(repeated, secret, timestamp)).toMatchObject({ type: 'property.created' });
    service.proc.kill('SIGTERM');
    expect(await service.proc.exited).toBe(0);
    expect(deliveryRows(databasePath)).toEqual([{ status: 'succeeded', attempts: 1 }]);
    expect(receiver.received).toHaveLength(2);
  }, 30_000);

  test('SIGTERM during an attempt lets it finish and records it: nothing is left to send twice', async () => {
    const databasePath = join(tempDir(), 'app.db');
    const receiver = gatedReceiver();
    const service = await startService(databasePath);
    await service.call('POST', '/listings/webhooks', { url: receiver.url });
    const first = receiver.next();
    await service.call('POST', '/listings/properties', property);
    await first;
    service.proc.kill('SIGTERM');
    await service.logged('"msg":"shutting down"');
    // The stop waits for the attempt in flight; its answer, given only now, is recorded.
    receiver.answer(204);
    expect(await service.proc.exited).toBe(0);
    expect(deliveryRows(databasePath)).toEqual([{ status: 'succeeded', attempts: 1 }]);
    expect(receiver.received).toHaveLength(1);
  }, 30_000);
});
