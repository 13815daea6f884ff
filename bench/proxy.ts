/**
 * A minimal HTTP reverse proxy: `Bun.serve` on 127.0.0.1 handing each
 * request to the next of its upstreams in turn (round-robin) with `fetch`,
 * whose connections to each upstream are kept alive and reused. It stands
 * for the load balancer in front of several instances
 * (docs/scaling-out.md) with nothing to install besides Bun: the bench and
 * its test need no nginx or HAProxy.
 *
 * It passes the method, path, query, headers and body through unchanged
 * and answers with the upstream's status, headers and body (never
 * decompressed, never following redirects). An upstream that cannot be
 * reached answers 502. No health checks, retries or header rewriting:
 * what it costs is forwarding alone.
 *
 * As a process of its own (the port from `--port`, else PORT, else one the OS picks):
 *
 *   bun bench/proxy.ts --port 8080 --upstream http://127.0.0.1:3001 --upstream http://127.0.0.1:3002
 */
import { parseArgs } from 'node:util';

export interface RoundRobinProxy {
  /** Where clients send requests: `http://127.0.0.1:<port>`. */
  base: string;
  /** How many requests each upstream was handed, in the order given. */
  forwarded: number[];
  stop(): void;
}

/** Starts the proxy on 127.0.0.1:`port` (0: one the OS picks) in front of `upstreams` (`http://host:port`). */
export function startProxy(upstreams: string[], port = 0): RoundRobinProxy {
  if (upstreams.length === 0) throw new Error('proxy: at least one upstream');
  const forwarded = upstreams.map(() => 0);
  let next = 0;
  const server = Bun.serve({
    hostname: '127.0.0.1',
    port,
    async fetch(request) {
      const chosen = next;
      next = (next + 1) % upstreams.length;
      forwarded[chosen]!++;
      const url = new URL(request.url);
      const hasBody = request.method !== 'GET' && request.method !== 'HEAD';
      try {
        return await fetch(`${upstreams[chosen]}${url.pathname}${url.search}`, {
          method: request.method,
          headers: request.headers,
          // A buffered body: the service's bodies are small, and a stream costs more per request.
          body: hasBody ? await request.arrayBuffer() : undefined,
          redirect: 'manual',
          decompress: false,
        });
      } catch {
        return new Response('upstream unreachable', { status: 502 });
      }
    },
  });
  return {
    base: `http://127.0.0.1:${server.port}`,
    forwarded,
    stop: () => server.stop(true),
  };
}

if (import.meta.main) {
  const { values } = parseArgs({
    args: Bun.argv.slice(2),
    options: {
      port: { type: 'string', default: process.env.PORT ?? '0' },
      upstream: { type: 'string', multiple: true },
    },
  });
  const proxy = startProxy(values.upstream ?? [], Number(values.port));
  console.log(`proxy listening on ${proxy.base} for ${(values.upstream ?? []).join(', ')}`);
  process.on('SIGTERM', () => {
    proxy.stop();
    process.exit(0);
  });
}
