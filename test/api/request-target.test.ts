import { afterEach, describe, expect, test } from 'bun:test';
import { connect } from 'node:net';
import { pathOf, routesAsWritten } from '@/api/request/url';
import { serve } from '../customer/support';
import { createTestApp, problemOf } from '../support/harness';

const UNROUTABLE = problemOf(
  400,
  'The request target and the Host header do not form a URL this service can route',
);

const servers: { stop: () => void }[] = [];
afterEach(() => {
  for (const server of servers.splice(0)) server.stop();
});

/** One raw HTTP/1.1 exchange on loopback, as a client that writes its own Host header would send it. */
function rawExchange(
  port: number,
  head: string,
): Promise<{ status: number; head: string; body: string }> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1', () => socket.write(`${head}\r\n\r\n`));
    let text = '';
    socket.setEncoding('utf8');
    socket.on('data', (chunk: string) => {
      text += chunk;
    });
    socket.on('error', reject);
    socket.setTimeout(5000, () => socket.destroy(new Error('no answer within 5 s')));
    socket.on('close', () => {
      const [headPart = '', ...rest] = text.split('\r\n\r\n');
      const status = Number(headPart.split(' ')[1]);
      resolve({ status, head: headPart.toLowerCase(), body: rest.join('\r\n\r\n') });
    });
  });
}

describe('the request target: one path for the router and everything around it', () => {
  test('over a socket, Host: a with /xy/api/v1/… is refused with 400 and counted nowhere', async () => {
    const ctx = createTestApp({ env: { RATE_LIMIT_ANONYMOUS_PER_MINUTE: '2' } });
    const http = serve(ctx.fetch);
    servers.push(http);
    const port = http.server.port!;
    const sneaky = [
      'GET /xy/api/v1/c/transactions HTTP/1.1\r\nHost: a\r\nConnection: close',
      'GET /a?x=/api/v1/c/transactions HTTP/1.1\r\nHost: a\r\nConnection: close',
      'GET /xy/api/v1/c/transactions HTTP/1.1\r\nHost: a:80\r\nConnection: close',
      'GET /xy/api/v1/c/transactions HTTP/1.0',
    ];
    for (const head of sneaky) {
      const answer = await rawExchange(port, head);
      expect({ head, status: answer.status, body: JSON.parse(answer.body) }).toEqual({
        head,
        status: 400,
        body: UNROUTABLE,
      });
      expect(answer.head).toContain('content-type: application/problem+json');
      expect(answer.head).not.toContain('ratelimit');
    }
    // The usual Host is still counted from the first request: 401, 401, then 429.
    const normal = 'GET /api/v1/c/transactions HTTP/1.1\r\nHost: localhost\r\nConnection: close';
    const statuses = [];
    for (let i = 0; i < 3; i++) statuses.push((await rawExchange(port, normal)).status);
    expect(statuses).toEqual([401, 401, 429]);
  });

  test('in process, a short host or a fragment is refused before the fast lane and Elysia', async () => {
    const ctx = createTestApp();
    for (const url of [
      'http://a/xy/api/v1/c/transactions',
      'https://b/xy/listings/properties',
      'http://localhost/api/v1/c/transactions#top',
    ]) {
      const response = await ctx.fetch(new Request(url));
      expect({ url, status: response.status, body: await response.json() }).toEqual({
        url,
        status: 400,
        body: UNROUTABLE,
      });
      expect(response.headers.get('x-request-id')).toBeString();
      expect(response.headers.get('x-content-type-options')).toBe('nosniff');
    }
    const full = await ctx.fullPipeline(new Request('http://ab/api/v1/c/transactions'));
    expect(full.status).toBe(400);
    expect(await full.json()).toEqual(UNROUTABLE);
  });

  test('hosts of four characters and more (three over https) route as before', async () => {
    const ctx = createTestApp();
    for (const url of ['http://abcd/health', 'https://abc/health', 'http://[::1]/health']) {
      expect({ url, status: (await ctx.fetch(new Request(url))).status }).toEqual({
        url,
        status: 200,
      });
    }
  });

  test('whenever a URL is let through, the router path is the parsed path', () => {
    const hosts = [
      'a',
      'ab',
      'abc',
      'abcd',
      'a:1',
      'a:80',
      'ab:1',
      '[::1]',
      'localhost',
      'x.y',
      '127.0.0.1:3000',
    ];
    const paths = [
      '/',
      '/xy/api/v1/c',
      '/api/v1/c?x=/a',
      '/a?b?c',
      '/%61pi/v1',
      '//api/v1',
      '/a#b/api/v1',
      '/?/api',
    ];
    let admitted = 0;
    for (const scheme of ['http://', 'https://']) {
      for (const host of hosts) {
        for (const path of paths) {
          const url = new Request(`${scheme}${host}${path}`).url;
          if (!routesAsWritten(url)) continue;
          admitted += 1;
          expect({ url, path: pathOf(url) }).toEqual({ url, path: new URL(url).pathname });
        }
      }
    }
    expect(admitted).toBeGreaterThan(40);
    expect(routesAsWritten('/api/v1/c/transactions')).toBe(false);
    expect(routesAsWritten('http://a/xy/api/v1/c/transactions')).toBe(false);
  });
});
