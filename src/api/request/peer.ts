import type { Config } from '@/config';
import { clientAddress, isTrusted, limiterKeyOf } from '@/kernel/addresses';

/** Socket peer addresses, recorded by the server's fetch handler before routing. */
const peers = new WeakMap<Request, string>();
export const recordPeerAddress = (request: Request, address: string | undefined) => {
  if (address) peers.set(request, address);
};

/** What the service asks of the server whose sockets its requests come from. */
export interface SocketServer {
  requestIP(request: Request): { address: string } | null;
  /** Gives the request's socket `seconds` of silence before it is closed (0: none). */
  timeout(request: Request, seconds: number): void;
}

/**
 * The server whose sockets the requests come from: their peer address is
 * looked up only when asked for (rate limits, guessing protection), not on
 * every request, which would cost a cached read noticeably (docs/performance.md).
 */
let peerServer: SocketServer | undefined;
export const lookUpPeersOn = (server: SocketServer) => {
  peerServer = server;
};

/**
 * Lets the request's socket stay silent for `seconds` instead of the
 * server's idle timeout (a long poll sends nothing while it waits). The
 * request is the one the server handed in: the pipeline passes it on as is.
 * In-process requests (tests) have no socket.
 */
export const allowSilence = (request: Request, seconds: number) => {
  peerServer?.timeout(request, seconds);
};

/** The socket peer's address; in-process requests (tests) are attributed to loopback. */
const peerOf = (request: Request): string =>
  peers.get(request) ?? peerServer?.requestIP(request)?.address ?? '127.0.0.1';

/**
 * Whether the request's forwarding headers may be believed: TRUST_PROXY is on
 * and the socket peer is one of TRUSTED_PROXIES (anyone else could write them).
 */
export const fromTrustedProxy = (
  request: Request,
  { trustProxy, trustedProxies }: Pick<Config, 'trustProxy' | 'trustedProxies'>,
): boolean => trustProxy && isTrusted(peerOf(request), trustedProxies);

/**
 * The client's IP: the socket peer, or with TRUST_PROXY the right-most
 * X-Forwarded-For address that is not a trusted proxy (`clientAddress`).
 * In-process requests (tests) without a peer are attributed to loopback.
 */
export function clientAddressOf(
  request: Request,
  { trustProxy, trustedProxies }: Pick<Config, 'trustProxy' | 'trustedProxies'>,
): string {
  const peer = peerOf(request);
  if (!trustProxy) return peer;
  return clientAddress(request.headers.get('x-forwarded-for'), peer, trustedProxies);
}

/**
 * The key every per-address limit counts the request's client under: its
 * address (`clientAddressOf`), an IPv6 client by its RATE_LIMIT_IPV6_PREFIX
 * network (`limiterKeyOf`). A limit keyed by the client takes this one, never
 * the bare address; what records who did something (the security log) keeps
 * the full address.
 */
export const limitAddressOf = (
  request: Request,
  config: Pick<Config, 'trustProxy' | 'trustedProxies' | 'ipv6LimitPrefix'>,
): string => limiterKeyOf(clientAddressOf(request, config), config.ipv6LimitPrefix);
