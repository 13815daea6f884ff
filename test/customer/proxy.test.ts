import { describe, expect, test } from 'bun:test';
import { recordPeerAddress } from '@/api/request/peer';
import { BASE, createTestApp, manualClock } from '../support/harness';
import { tooMany } from './support';

const TRANSACTIONS = '/api/v1/c/transactions';
/** The harness clock starts at 2026-11-22T12:00:00Z. */
const NEXT_MINUTE = '2026-11-22T12:01:00+00:00';
const LIMIT = { RATE_LIMIT_ANONYMOUS_PER_MINUTE: '3' };

/** An anonymous customer-API call as a proxy would pass it on. */
const anonymous = (ctx: ReturnType<typeof createTestApp>, forwardedFor?: string) =>
  ctx.request('GET', TRANSACTIONS, {
    headers: forwardedFor === undefined ? {} : { 'x-forwarded-for': forwardedFor },
  });

describe('the anonymous per-IP limit behind a proxy', () => {
  test('a spoofed left-most X-Forwarded-For entry does not buy a new budget', async () => {
    // In-process requests come from loopback, a trusted proxy; a second proxy sits in 10/8.
    const ctx = createTestApp({
      env: { ...LIMIT, TRUST_PROXY: 'true', TRUSTED_PROXIES: '127.0.0.0/8, 10.0.0.0/8' },
      clock: manualClock(),
    });
    for (let i = 0; i < 3; i++) {
      expect((await anonymous(ctx, `192.0.2.${i}, 198.51.100.9`)).status).toBe(401);
    }
    const refused = await anonymous(ctx, '192.0.2.200, 198.51.100.9');
    expect(refused.status).toBe(429);
    expect(refused.body).toEqual(tooMany('minute', 3, 3, 60, NEXT_MINUTE));
    // Whatever the client writes on the left, it is counted by what the proxy appended.
    expect((await anonymous(ctx, '198.51.100.10, 198.51.100.9')).status).toBe(429);
    expect((await anonymous(ctx, '198.51.100.9')).status).toBe(429);
    // Trusted hops after it (a second proxy inside) change nothing.
    expect((await anonymous(ctx, '1.1.1.1, 198.51.100.9, 10.0.0.7')).status).toBe(429);
    // Another client, as the proxy reports it, has its own budget.
    expect((await anonymous(ctx, '198.51.100.9, 198.51.100.10')).status).toBe(401);
  });

  test('a peer that is not a trusted proxy is counted itself, whatever it forwards', async () => {
    const ctx = createTestApp({ env: { ...LIMIT, TRUST_PROXY: 'true' }, clock: manualClock() });
    const fromPeer = (forwardedFor: string) => {
      const request = new Request(`${BASE}${TRANSACTIONS}`, {
        headers: { accept: 'application/json', 'x-forwarded-for': forwardedFor },
      });
      recordPeerAddress(request, '203.0.113.50');
      return ctx.fetch(request);
    };
    for (let i = 0; i < 3; i++) expect((await fromPeer(`198.51.100.${i}`)).status).toBe(401);
    expect((await fromPeer('198.51.100.99')).status).toBe(429);
    // Loopback (a trusted proxy) forwarding another client is not affected.
    expect((await anonymous(ctx, '198.51.100.99')).status).toBe(401);
  });

  test('TRUSTED_PROXIES narrows who may forward', async () => {
    const ctx = createTestApp({
      env: { ...LIMIT, TRUST_PROXY: 'true', TRUSTED_PROXIES: '10.0.0.0/8' },
      clock: manualClock(),
    });
    // Loopback is not listed: its X-Forwarded-For is ignored and it is the client.
    for (let i = 0; i < 3; i++) {
      expect((await anonymous(ctx, `198.51.100.${i}`)).status).toBe(401);
    }
    expect((await anonymous(ctx, '198.51.100.99')).status).toBe(429);
  });

  test('without TRUST_PROXY the header is ignored', async () => {
    const ctx = createTestApp({ env: LIMIT, clock: manualClock() });
    for (let i = 0; i < 3; i++) {
      expect((await anonymous(ctx, `198.51.100.${i}`)).status).toBe(401);
    }
    expect((await anonymous(ctx, '198.51.100.99')).status).toBe(429);
  });

  test('without a proxy the socket peer is counted the same way: an IPv6 peer by its /64, a mapped IPv4 peer as IPv4', async () => {
    const ctx = createTestApp({ env: LIMIT, clock: manualClock() });
    const fromPeer = (peer: string) => {
      const request = new Request(`${BASE}${TRANSACTIONS}`, {
        headers: { accept: 'application/json' },
      });
      recordPeerAddress(request, peer);
      return ctx.fetch(request);
    };
    for (const peer of ['2001:db8:9::1', '2001:db8:9:0:aa::2', '2001:DB8:9::3']) {
      expect((await fromPeer(peer)).status).toBe(401);
    }
    expect((await fromPeer('2001:db8:9::4')).status).toBe(429);
    expect((await fromPeer('2001:db8:9:1::1')).status).toBe(401);
    // A dual-stack socket reports an IPv4 client in its mapped form.
    for (const peer of ['::ffff:192.0.2.9', '192.0.2.9', '::ffff:192.0.2.9']) {
      expect((await fromPeer(peer)).status).toBe(401);
    }
    expect((await fromPeer('192.0.2.9')).status).toBe(429);
  });
});
