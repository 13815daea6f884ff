import { isIPv6 } from 'node:net';
import type { VettedTarget } from './url-policy';

export interface PinnedPost {
  headers: Record<string, string>;
  body: string;
  /** Ends the request: the attempt's timeout (lookup, connect and answer), or none. */
  signal: AbortSignal;
  /** PEM of the CAs trusted for the receiver's certificate instead of the system's (tests). */
  trustedCa?: string;
}

/**
 * POSTs to the address `vetTarget` checked, never to a new lookup of the
 * name: the URL's host is replaced by that address, while the `Host`
 * header keeps the URL's host and, over https, TLS sends the name as SNI
 * and checks the certificate against it (Bun's fetch `tls.serverName`).
 * No connection is reused (`keepalive: false`): a pooled socket is keyed
 * by address, and one opened for another name must not carry this one.
 * Redirects are not followed.
 */
export function postToVetted(target: VettedTarget, request: PinnedPost): Promise<Response> {
  const pinned = new URL(target.url);
  pinned.hostname = isIPv6(target.address) ? `[${target.address}]` : target.address;
  const https = target.url.protocol === 'https:';
  return fetch(pinned, {
    method: 'POST',
    headers: { ...request.headers, host: target.url.host },
    body: request.body,
    redirect: 'manual',
    keepalive: false,
    signal: request.signal,
    ...(https
      ? {
          tls: {
            ...(target.serverName === null ? {} : { serverName: target.serverName }),
            ...(request.trustedCa === undefined ? {} : { ca: request.trustedCa }),
          },
        }
      : {}),
  });
}
