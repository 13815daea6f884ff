import { lookup } from 'node:dns/promises';
import { isIP } from 'node:net';
import { type AddressRange, isTrusted, parseRanges } from '@/kernel/addresses';

/**
 * Addresses a webhook may never be sent to: this host, private networks,
 * link-local (cloud metadata at 169.254.169.254 and fd00:ec2::254 included),
 * carrier-grade NAT, benchmarking, multicast and reserved ranges.
 */
const refusedRanges = parseRanges(
  [
    '0.0.0.0/8',
    '10.0.0.0/8',
    '100.64.0.0/10',
    '127.0.0.0/8',
    '169.254.0.0/16',
    '172.16.0.0/12',
    '192.0.0.0/24',
    '192.168.0.0/16',
    '198.18.0.0/15',
    '224.0.0.0/3',
    '::/127',
    '64:ff9b::/96',
    'fc00::/7',
    'fe80::/10',
    'ff00::/8',
  ].join(','),
);
if (!('ranges' in refusedRanges)) throw new Error(`bad refused range ${refusedRanges.invalid}`);
const REFUSED: readonly AddressRange[] = refusedRanges.ranges;

export interface UrlPolicy {
  allowHttp: boolean;
  allowPrivate: boolean;
}

export type Resolve = (host: string) => Promise<string[]>;

const systemResolve: Resolve = async (host) =>
  (await lookup(host, { all: true, verbatim: true })).map((entry) => entry.address);

/**
 * Why `url` may not receive webhooks, or null when it may. Checked when an
 * endpoint is saved and again before every attempt, so a name that later
 * resolves to a refused address (DNS rebinding) is caught at delivery.
 */
export async function refusalOf(
  url: string,
  policy: UrlPolicy,
  resolve: Resolve = systemResolve,
): Promise<string | null> {
  if (!URL.canParse(url)) return 'not an absolute URL';
  const parsed = new URL(url);
  if (parsed.protocol !== 'https:' && parsed.protocol !== 'http:') return 'not an http(s) URL';
  if (parsed.protocol === 'http:' && !policy.allowHttp) return 'must be https';
  if (parsed.username || parsed.password) return 'must not carry credentials';
  if (policy.allowPrivate) return null;
  const host = parsed.hostname.replace(/^\[(.*)\]$/, '$1');
  let addresses: string[];
  try {
    addresses = isIP(host) ? [host] : await resolve(host);
  } catch {
    return `host ${host} does not resolve`;
  }
  if (addresses.length === 0) return `host ${host} does not resolve`;
  const refused = addresses.find((address) => isTrusted(address, REFUSED));
  return refused === undefined
    ? null
    : `host ${host} is a loopback, private, link-local or metadata address (${refused})`;
}
