import { lookup } from 'node:dns/promises';
import { type Address, type AddressRange, exactAddress, inRanges } from '@/kernel/addresses';

/**
 * The special-purpose ranges a webhook is never sent to: every block the
 * IANA IPv4 and IPv6 special-purpose address registries list as not
 * globally reachable, the deprecated blocks that embed or relay to other
 * addresses (6to4, IPv4-compatible, site-local), multicast, and the NAT64
 * prefix (it reaches whatever IPv4 address it embeds). A few anycast
 * services inside a refused block (192.0.0.9, 2001:1::1, …) are refused
 * with it: nobody receives webhooks there. Listed in
 * docs/events-and-webhooks.md.
 */
export const REFUSED_RANGES = [
  ['0.0.0.0/8', '"this network"'],
  ['10.0.0.0/8', 'private use'],
  ['100.64.0.0/10', 'shared address space (carrier-grade NAT)'],
  ['127.0.0.0/8', 'loopback'],
  ['169.254.0.0/16', 'link-local (cloud metadata)'],
  ['172.16.0.0/12', 'private use'],
  ['192.0.0.0/24', 'IETF protocol assignments'],
  ['192.0.2.0/24', 'documentation (TEST-NET-1)'],
  ['192.88.99.0/24', '6to4 relay anycast (deprecated)'],
  ['192.168.0.0/16', 'private use'],
  ['198.18.0.0/15', 'benchmarking'],
  ['198.51.100.0/24', 'documentation (TEST-NET-2)'],
  ['203.0.113.0/24', 'documentation (TEST-NET-3)'],
  ['224.0.0.0/4', 'multicast'],
  ['240.0.0.0/4', 'reserved'],
  ['255.255.255.255/32', 'limited broadcast'],
  ['::/128', 'unspecified'],
  ['::1/128', 'loopback'],
  ['::/96', 'IPv4-compatible (deprecated)'],
  ['::ffff:0:0/96', 'IPv4-mapped'],
  ['::ffff:0:0:0/96', 'IPv4-translated (SIIT)'],
  ['64:ff9b::/96', 'IPv4/IPv6 translation (NAT64)'],
  ['64:ff9b:1::/48', 'local-use IPv4/IPv6 translation'],
  ['100::/64', 'discard-only'],
  ['100:0:0:1::/64', 'dummy prefix'],
  ['2001::/23', 'IETF protocol assignments (Teredo, benchmarking, ORCHID)'],
  ['2001:db8::/32', 'documentation'],
  ['2002::/16', '6to4'],
  ['3fff::/20', 'documentation'],
  ['5f00::/16', 'segment routing (SRv6) SIDs'],
  ['fc00::/7', 'unique local'],
  ['fe80::/10', 'link-local'],
  ['fec0::/10', 'site-local (deprecated)'],
  ['ff00::/8', 'multicast'],
] as const;

/** `a.b.c.d/n` or `x::y/n`, the IPv4-mapped forms kept as IPv6. */
function rangeOf(cidr: string): AddressRange {
  const [text = '', bits = ''] = cidr.split('/');
  const address = exactAddress(text);
  if (!address) throw new Error(`bad range ${cidr}`);
  const width = address.version === 4 ? 32 : 128;
  const host = (1n << BigInt(width - Number(bits))) - 1n;
  return { version: address.version, base: address.value & ~host, bits: Number(bits) };
}

const REFUSED = REFUSED_RANGES.map(([cidr, name]) => ({ range: rangeOf(cidr), name }));
/** IPv6 global unicast: everything outside it is reserved or one of the ranges above. */
const GLOBAL_UNICAST = [rangeOf('2000::/3')];

/** Why `address` may not receive webhooks (the range's name), or null when it may. */
export function refusedRangeOf(written: string): string | null {
  const address: Address | undefined = exactAddress(written);
  if (!address) return 'not an IP address';
  // The most specific range names it (255.255.255.255 in 240.0.0.0/4).
  const hit = REFUSED.filter(({ range }) => inRanges(address, [range])).sort(
    (a, b) => b.range.bits - a.range.bits,
  )[0];
  if (hit) return hit.name;
  if (address.version === 6 && !inRanges(address, GLOBAL_UNICAST)) return 'not global unicast';
  return null;
}

export interface UrlPolicy {
  allowHttp: boolean;
  allowPrivate: boolean;
}

/** A name's addresses; `signal` ends the wait (a lookup cannot itself be cancelled). */
export type Resolve = (host: string, signal?: AbortSignal) => Promise<string[]>;

const systemResolve: Resolve = async (host) =>
  (await lookup(host, { all: true, verbatim: true })).map((entry) => entry.address);

/** What the owner is told of a host that is, resolves to, or hides behind an address refused. */
export const ADDRESS_NOT_ALLOWED = 'address not allowed';

/** A URL that may receive webhooks, and the one address its requests go to. */
export interface VettedTarget {
  url: URL;
  /** The name checked against the TLS certificate and sent as SNI; null for an IP literal. */
  serverName: string | null;
  /** A vetted address of the host: requests connect here, never to a second lookup's answer. */
  address: string;
}

export type Vetting =
  | { ok: true; target: VettedTarget }
  /** `reason` may be shown to the owner; `detail` (the address, the range) only to the operator. */
  | { ok: false; reason: string; detail: string };

const refuse = (reason: string, detail = reason): Vetting => ({ ok: false, reason, detail });

/** `promise`, or the signal's reason once it aborts first. */
function untilAborted<T>(promise: Promise<T>, signal: AbortSignal | undefined): Promise<T> {
  if (!signal) return promise;
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise<T>((resolve, reject) => {
    const abort = () => reject(signal.reason);
    signal.addEventListener('abort', abort, { once: true });
    promise.then(resolve, reject).finally(() => signal.removeEventListener('abort', abort));
  });
}

/**
 * The one check of a webhook URL, for a create, a PATCH of the url and
 * every attempt: its form (http(s), https unless allowed, no credentials),
 * then one lookup of its host, every address of which must be globally
 * reachable (unless `allowPrivate`). The attempt then connects to the
 * address vetted here (`postToVetted`), so a name that answers otherwise
 * on a second lookup (DNS rebinding) is never asked again. A name that
 * does not resolve is refused with the same reason as a refused address:
 * the answer says nothing about which internal names exist.
 */
export async function vetTarget(
  url: string,
  policy: UrlPolicy,
  { resolve = systemResolve, signal }: { resolve?: Resolve; signal?: AbortSignal } = {},
): Promise<Vetting> {
  if (!URL.canParse(url)) return refuse('not an absolute URL');
  const parsed = new URL(url);
  if (parsed.protocol !== 'https:' && parsed.protocol !== 'http:') {
    return refuse('not an http(s) URL');
  }
  if (parsed.protocol === 'http:' && !policy.allowHttp) return refuse('must be https');
  if (parsed.username || parsed.password) return refuse('must not carry credentials');
  const host = parsed.hostname.replace(/^\[(.*)\]$/, '$1');
  const literal = exactAddress(host) !== undefined;
  let addresses: string[];
  try {
    addresses = literal ? [host] : await untilAborted(resolve(host, signal), signal);
  } catch (error) {
    const why = error instanceof Error ? error.message : String(error);
    return refuse(ADDRESS_NOT_ALLOWED, `host ${host} did not resolve: ${why}`);
  }
  const [first] = addresses;
  if (first === undefined) {
    return refuse(ADDRESS_NOT_ALLOWED, `host ${host} resolved to no address`);
  }
  if (!policy.allowPrivate) {
    for (const address of addresses) {
      const range = refusedRangeOf(address);
      if (range) {
        return refuse(ADDRESS_NOT_ALLOWED, `host ${host} resolved to ${address} (${range})`);
      }
    }
  }
  return {
    ok: true,
    target: { url: parsed, serverName: literal ? null : host, address: first },
  };
}
