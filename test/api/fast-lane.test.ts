import { describe, expect, test } from 'bun:test';
import { PROBLEMS_ONLY } from '@/api/error-family';
import { type FastRoute, withFastLane } from '@/api/fast-lane';
import { problemOf } from '@/api/problem';
import { fail } from '@/kernel/errors';
import { createLogger } from '@/logger';
import { BASE } from '../support/harness';

function lane(routes: FastRoute[], corsOrigins: string[] = []) {
  const lines: Record<string, unknown>[] = [];
  const fastAnswers: string[] = [];
  const onFastAnswer = (request: Request) => fastAnswers.push(new URL(request.url).pathname);
  const logger = createLogger('info', (line) => lines.push(JSON.parse(line)));
  const fallbackCalls: string[] = [];
  const fallback = (request: Request) => {
    fallbackCalls.push(`${request.method} ${new URL(request.url).pathname}`);
    return new Response('full', { status: 299 });
  };
  const fetch = withFastLane(routes, fallback, {
    ...{ logger, corsOrigins, onFastAnswer },
    errorFamilyOf: PROBLEMS_ONLY,
  });
  return { fetch, lines, fallbackCalls, fastAnswers };
}

const hello: FastRoute = {
  prefix: '/hello/',
  answer: (_request, rest, search) =>
    rest === 'world' && search === ''
      ? { status: 200, body: '{"hi":1}', headers: { 'content-type': 'application/json' } }
      : undefined,
};

/** A JSON body of `size` bytes, answered at once or after an await (as every answer on PostgreSQL). */
const sized = (size: number): FastRoute => {
  const body = new TextEncoder().encode(`"${'a'.repeat(size - 2)}"`);
  const answer = { status: 200, body, headers: { 'content-type': 'application/json' } };
  return {
    prefix: '/sized/',
    answer: (_request, rest) => (rest === 'later' ? Bun.sleep(1).then(() => answer) : answer),
  };
};

describe('withFastLane', () => {
  test('a large answer that comes after an await is written whole to a direct stream; at once, as it is', async () => {
    const { fetch } = lane([sized(30_000), { ...sized(4_000), prefix: '/small/' }]);
    // Over a socket: Bun writes a body handed over after the request's turn in 2 KB pieces.
    using server = Bun.serve({ port: 0, hostname: '127.0.0.1', fetch });
    const get = async (path: string) => {
      const res = await globalThis.fetch(`${server.url}${path.slice(1)}`);
      return {
        length: res.headers.get('content-length'),
        chunked: res.headers.get('transfer-encoding') === 'chunked',
        bytes: (await res.arrayBuffer()).byteLength,
      };
    };
    expect(await get('/sized/later')).toEqual({ length: null, chunked: true, bytes: 30_000 });
    expect(await get('/sized/now')).toEqual({ length: '30000', chunked: false, bytes: 30_000 });
    expect(await get('/small/later')).toEqual({ length: '4000', chunked: false, bytes: 4_000 });
  });

  test('a fast answer carries the security headers, a request id and one log line', async () => {
    const { fetch, lines, fallbackCalls, fastAnswers } = lane([hello]);
    const res = await fetch(
      new Request(`${BASE}/hello/world`, { headers: { 'x-request-id': 'abc.1' } }),
    );
    expect(res.status).toBe(200);
    expect(await res.text()).toBe('{"hi":1}');
    expect(Object.fromEntries(res.headers)).toEqual({
      'content-type': 'application/json',
      'x-content-type-options': 'nosniff',
      'referrer-policy': 'no-referrer',
      'x-frame-options': 'DENY',
      'cross-origin-opener-policy': 'same-origin',
      'x-request-id': 'abc.1',
    });
    expect(fallbackCalls).toEqual([]);
    expect(fastAnswers).toEqual(['/hello/world']);
    expect(lines).toEqual([
      {
        time: expect.any(String),
        level: 'info',
        msg: 'request',
        requestId: 'abc.1',
        method: 'GET',
        path: '/hello/world',
        status: 200,
        durationMs: expect.any(Number),
      },
    ]);
  });

  test('declined, other methods, other paths and over-long URLs go to the full pipeline', async () => {
    const { fetch, fallbackCalls, lines } = lane([hello]);
    const paths = [
      '/hello/there',
      '/hello/world?x=1',
      '/elsewhere',
      `/hello/world?${'a'.repeat(9000)}`,
    ];
    for (const path of paths) expect((await fetch(new Request(`${BASE}${path}`))).status).toBe(299);
    await fetch(new Request(`${BASE}/hello/world`, { method: 'POST', body: '{}' }));
    expect(fallbackCalls).toEqual([
      'GET /hello/there',
      'GET /hello/world',
      'GET /elsewhere',
      'GET /hello/world',
      'POST /hello/world',
    ]);
    expect(lines).toEqual([]);
  });

  test('a domain error thrown by a route hands the request to the full pipeline', async () => {
    const missing: FastRoute = {
      prefix: '/things/',
      answer: () => {
        throw fail('property.not_found');
      },
    };
    const { fetch, fallbackCalls, lines, fastAnswers } = lane([missing]);
    expect((await fetch(new Request(`${BASE}/things/1`))).status).toBe(299);
    expect(fallbackCalls).toEqual(['GET /things/1']);
    expect(fastAnswers).toEqual([]);
    expect(lines).toEqual([]);
  });

  test('with CORS on, a request naming an Origin takes the full pipeline', async () => {
    const { fetch, fallbackCalls } = lane([hello], ['https://app.example']);
    await fetch(new Request(`${BASE}/hello/world`, { headers: { origin: 'https://app.example' } }));
    expect((await fetch(new Request(`${BASE}/hello/world`))).status).toBe(200);
    expect(fallbackCalls).toEqual(['GET /hello/world']);
  });

  test('a route that throws answers the logged 500 problem, never the error', async () => {
    const broken: FastRoute = {
      prefix: '/',
      answer: () => {
        throw new Error('secret detail');
      },
    };
    const { fetch, lines } = lane([broken]);
    const res = await fetch(new Request(`${BASE}/boom`, { headers: { 'x-request-id': 'r-9' } }));
    expect(res.status).toBe(500);
    const text = await res.text();
    expect(JSON.parse(text)).toEqual(problemOf(500));
    expect(text).not.toContain('secret');
    expect(res.headers.get('x-request-id')).toBe('r-9');
    expect(res.headers.get('x-content-type-options')).toBe('nosniff');
    expect(lines.map((line) => [line.level, line.msg, line.requestId])).toEqual([
      ['error', 'unhandled error', 'r-9'],
      ['info', 'request', 'r-9'],
    ]);
  });
});
