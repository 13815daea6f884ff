import { afterAll, describe, expect, test } from 'bun:test';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createServer, type TLSSocket } from 'node:tls';
import { deliverWebhooks } from '@/webhooks/deliver';
import { propertyEvent } from '../events/stores';
import { STAFF } from './fairness-support';
import { startReceiver, webhooksContext } from './support';

const FIXTURES = join(import.meta.dir, '../fixtures/webhook-tls');
const CA = readFileSync(join(FIXTURES, 'ca.pem'), 'utf8');

const receiver = startReceiver();
/** Listens on 127.0.0.2, the port of `receiver`: where a second lookup's answer would lead. */
const trap = Bun.serve({
  hostname: '127.0.0.2',
  port: Number(new URL(receiver.url()).port),
  fetch: (request) => {
    trapped.push(request.url);
    return new Response('trapped');
  },
});
const trapped: string[] = [];

/**
 * A TLS receiver for `hooks.example` (a certificate the test CA signed) on
 * 127.0.0.1 that records the server name each client sent and the Host
 * header, and answers 204.
 */
const tlsSeen: { serverName: string | false | null; host: string | undefined }[] = [];
const tlsServer = createServer(
  {
    cert: readFileSync(join(FIXTURES, 'hooks.example.pem')),
    key: readFileSync(join(FIXTURES, 'hooks.example.key')),
  },
  (socket: TLSSocket) => {
    let head = '';
    socket.on('data', (chunk) => {
      head += chunk;
      if (!head.includes('\r\n\r\n')) return;
      tlsSeen.push({
        serverName: socket.servername,
        host: /\r\nhost: ([^\r]*)/i.exec(head)?.[1],
      });
      socket.end('HTTP/1.1 204 No Content\r\nconnection: close\r\n\r\n');
    });
  },
);
await new Promise<void>((resolve) => tlsServer.listen(0, '127.0.0.1', resolve));
const tlsPort = (tlsServer.address() as { port: number }).port;

afterAll(() => {
  receiver.stop();
  trap.stop(true);
  tlsServer.close();
});

/** A resolver that answers `first` once, then `later` on every other call, and counts the calls. */
function rebinding(first: string, later: string) {
  const calls: string[] = [];
  return {
    calls,
    resolve: async (host: string) => {
      calls.push(host);
      return [calls.length === 1 ? first : later];
    },
  };
}

/** An app with one employee endpoint at `url` (created in the store: the name is fictional) and one event for it. */
async function oneDelivery(url: string) {
  const ctx = await webhooksContext();
  const endpoint = await ctx.deps.stores.webhooks.createEndpoint(
    STAFF,
    { url },
    ctx.clock(),
    ctx.config.webhookQuotas.endpointsPerCustomer,
  );
  await ctx.deps.stores.events.appendEvents([
    { event: propertyEvent('p', 'owner-1'), now: ctx.clock() },
  ]);
  const log = async () => (await ctx.deps.stores.webhooks.listDeliveries(STAFF, endpoint.id))[0]!;
  return { ctx, log };
}

describe('an attempt connects to the address it vetted', () => {
  test('one lookup per attempt; the request reaches the vetted address with the Host of the URL, never a second answer', async () => {
    receiver.received.length = 0;
    const port = new URL(receiver.url()).port;
    const { ctx, log } = await oneDelivery(`http://hooks.test:${port}/hook`);
    const dns = rebinding('127.0.0.1', '127.0.0.2');
    const run = await deliverWebhooks({
      store: ctx.deps.stores.webhooks,
      clock: ctx.clock,
      quotas: ctx.config.webhookQuotas,
      policy: ctx.config.webhooks,
      resolve: dns.resolve,
    });
    expect(run).toMatchObject({ attempted: 1, succeeded: 1 });
    expect(dns.calls).toEqual(['hooks.test']);
    expect(receiver.received).toHaveLength(1);
    expect(receiver.received[0]!.headers.host).toBe(`hooks.test:${port}`);
    expect(trapped).toEqual([]);
    expect(await log()).toMatchObject({ status: 'succeeded', responseStatus: 200 });
  });

  test('without WEBHOOKS_ALLOW_PRIVATE, a name that answers public then private never reaches a private socket', async () => {
    receiver.received.length = 0;
    const port = new URL(receiver.url()).port;
    const { ctx, log } = await oneDelivery(`http://rebind.test:${port}/hook`);
    const dns = rebinding('93.184.215.14', '127.0.0.1');
    const run = await deliverWebhooks({
      store: ctx.deps.stores.webhooks,
      clock: ctx.clock,
      quotas: ctx.config.webhookQuotas,
      policy: { allowHttp: true, allowPrivate: false },
      resolve: dns.resolve,
      // The public address may not answer at all here: the attempt ends soon either way.
      timeoutMs: 300,
    });
    expect(run).toMatchObject({ attempted: 1, failed: 1 });
    expect(dns.calls).toEqual(['rebind.test']);
    expect(receiver.received).toEqual([]);
    expect(trapped).toEqual([]);
    expect(['connection failed', 'no answer within 0.3 s']).toContain((await log()).error ?? '');
  });

  test('over https to a pinned address: SNI and the certificate check use the URL’s name, the Host header keeps it', async () => {
    tlsSeen.length = 0;
    const { ctx, log } = await oneDelivery(`https://hooks.example:${tlsPort}/hook`);
    const dns = rebinding('127.0.0.1', '127.0.0.2');
    const run = await deliverWebhooks({
      store: ctx.deps.stores.webhooks,
      clock: ctx.clock,
      quotas: ctx.config.webhookQuotas,
      policy: { allowHttp: false, allowPrivate: true },
      resolve: dns.resolve,
      trustedCa: CA,
    });
    expect(run).toMatchObject({ attempted: 1, succeeded: 1 });
    expect(dns.calls).toEqual(['hooks.example']);
    expect(tlsSeen).toEqual([{ serverName: 'hooks.example', host: `hooks.example:${tlsPort}` }]);
    expect(await log()).toMatchObject({ status: 'succeeded', responseStatus: 204 });
  });

  test('a certificate that is not for the URL’s name fails the attempt before any request: "certificate not accepted"', async () => {
    tlsSeen.length = 0;
    const { ctx, log } = await oneDelivery(`https://other.example:${tlsPort}/hook`);
    const run = await deliverWebhooks({
      store: ctx.deps.stores.webhooks,
      clock: ctx.clock,
      quotas: ctx.config.webhookQuotas,
      policy: { allowHttp: false, allowPrivate: true },
      resolve: async () => ['127.0.0.1'],
      trustedCa: CA,
    });
    expect(run).toMatchObject({ attempted: 1, failed: 1 });
    expect(tlsSeen).toEqual([]);
    expect(await log()).toMatchObject({
      responseStatus: null,
      error: 'certificate not accepted',
    });
  });

  test('an unknown CA fails the same way (the system CAs are used when none is given)', async () => {
    const { ctx, log } = await oneDelivery(`https://hooks.example:${tlsPort}/hook`);
    await deliverWebhooks({
      store: ctx.deps.stores.webhooks,
      clock: ctx.clock,
      quotas: ctx.config.webhookQuotas,
      policy: { allowHttp: false, allowPrivate: true },
      resolve: async () => ['127.0.0.1'],
    });
    expect((await log()).error).toBe('certificate not accepted');
  });
});
