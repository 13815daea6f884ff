import { recordPeerAddress } from '@/api/request/peer';

export interface SocketResponse<T = unknown> {
  status: number;
  headers: Headers;
  body: T;
}

/**
 * Serves the app on a real socket (port 0, loopback) the way src/index.ts
 * does, recording the peer address the limiter counts anonymous calls by.
 */
export function serve(handle: (request: Request) => Response | Promise<Response>) {
  const server = Bun.serve({
    port: 0,
    hostname: '127.0.0.1',
    fetch: (request, srv) => {
      recordPeerAddress(request, srv.requestIP(request)?.address);
      return handle(request);
    },
  });
  const base = `http://127.0.0.1:${server.port}`;

  async function call<T = unknown>(
    method: string,
    path: string,
    options: { token?: string; headers?: Record<string, string>; body?: unknown } = {},
  ): Promise<SocketResponse<T>> {
    const headers = new Headers({ accept: 'application/json', ...options.headers });
    if (options.token) headers.set('authorization', `Bearer ${options.token}`);
    let body: string | undefined;
    if (options.body !== undefined) {
      body = JSON.stringify(options.body);
      headers.set('content-type', 'application/json');
    }
    const response = await fetch(`${base}${path}`, { method, headers, body });
    const text = await response.text();
    return {
      status: response.status,
      headers: response.headers,
      body: (text ? JSON.parse(text) : undefined) as T,
    };
  }

  return { server, base, call, stop: () => server.stop(true) };
}

/** Runs `count` calls with at most `width` in flight; resolves to their statuses in order. */
export async function burst(
  count: number,
  width: number,
  send: (index: number) => Promise<{ status: number }>,
): Promise<number[]> {
  const statuses: number[] = new Array(count);
  let next = 0;
  const lane = async () => {
    while (next < count) {
      const index = next++;
      statuses[index] = (await send(index)).status;
    }
  };
  await Promise.all(Array.from({ length: Math.min(width, count) }, lane));
  return statuses;
}

export const countOf = (statuses: number[], status: number) =>
  statuses.filter((s) => s === status).length;

/** The exact 429 body `{message, rate_limit}` for a window refused at the harness clock. */
export const tooMany = (
  window: string,
  limit: number,
  used: number,
  resetsInSeconds: number,
  resetsAt: string,
) => ({
  message: 'Too Many Attempts.',
  rate_limit: {
    window,
    limit,
    used,
    remaining: 0,
    resets_in_seconds: resetsInSeconds,
    resets_at: resetsAt,
  },
});
