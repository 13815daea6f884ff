import { isIPv4, isIPv6 } from 'node:net';

/** An address range: IPv4 or IPv6, its first address as a number, and the prefix length. */
export interface AddressRange {
  version: 4 | 6;
  base: bigint;
  bits: number;
}

export interface Address {
  version: 4 | 6;
  value: bigint;
}

/**
 * Loopback only: the proxies trusted when TRUSTED_PROXIES is unset. Any other
 * host of a private network (a LAN, a VPC, a container network) could write
 * X-Forwarded-For and choose the address it is counted under, so a proxy
 * elsewhere is trusted only when the operator names it.
 */
export const DEFAULT_TRUSTED_PROXIES = ['127.0.0.0/8', '::1'] as const;

/** Only the right-most part of a longer X-Forwarded-For is read (the part proxies append to). */
export const MAX_FORWARDED_LENGTH = 1024;
export const MAX_FORWARDED_ENTRIES = 32;

const IPV4_WITH_PORT = /^\d{1,3}(?:\.\d{1,3}){3}:\d{1,5}$/;

const widthOf = (version: 4 | 6) => (version === 4 ? 32 : 128);

function ipv4Value(text: string): bigint {
  let value = 0n;
  for (const part of text.split('.')) value = (value << 8n) | BigInt(Number(part));
  return value;
}

function ipv6Value(written: string): bigint {
  let text = written;
  // An embedded IPv4 tail (::ffff:1.2.3.4) is two groups.
  const lastColon = text.lastIndexOf(':');
  const last = text.slice(lastColon + 1);
  if (last.includes('.')) {
    const v4 = ipv4Value(last);
    text = `${text.slice(0, lastColon + 1)}${(v4 >> 16n).toString(16)}:${(v4 & 0xffffn).toString(16)}`;
  }
  const groupsOf = (part: string) =>
    part === '' ? [] : part.split(':').map((g) => BigInt(`0x${g}`));
  const [head = '', rest] = text.split('::');
  const left = groupsOf(head);
  const right = rest === undefined ? [] : groupsOf(rest);
  const zeros: bigint[] = Array(8 - left.length - right.length).fill(0n);
  return [...left, ...zeros, ...right].reduce((value, group) => (value << 16n) | group, 0n);
}

/**
 * A bare IPv4 or IPv6 address exactly as written: an IPv4-mapped IPv6
 * address stays IPv6 (the webhook URL policy refuses the mapped range
 * itself). Anything else, a zone id included, is undefined.
 */
export function exactAddress(text: string): Address | undefined {
  if (isIPv4(text)) return { version: 4, value: ipv4Value(text) };
  if (!isIPv6(text) || text.includes('%')) return undefined;
  return { version: 6, value: ipv6Value(text.toLowerCase()) };
}

/**
 * An IP address as written in X-Forwarded-For or by the socket: IPv4,
 * IPv6, IPv6 in brackets, either with a port (`1.2.3.4:5678`,
 * `[::1]:8080`); an IPv4-mapped IPv6 address is its IPv4 address.
 * Anything else is undefined.
 */
export function parseAddress(written: string): Address | undefined {
  let text = written.trim();
  const bracketed = /^\[([^\]]+)\](?::\d{1,5})?$/.exec(text);
  if (bracketed) text = bracketed[1]!;
  else if (IPV4_WITH_PORT.test(text)) text = text.slice(0, text.indexOf(':'));
  const address = exactAddress(text);
  if (address?.version === 6 && address.value >> 32n === 0xffffn) {
    return { version: 4, value: address.value & 0xffffffffn };
  }
  return address;
}

/** `10.0.0.0/8`, `fc00::/7` or a single address; undefined when it is neither. */
export function parseRange(written: string): AddressRange | undefined {
  const [addressText = '', bitsText, extra] = written.trim().split('/');
  if (extra !== undefined) return undefined;
  if (addressText.includes('[') || IPV4_WITH_PORT.test(addressText)) return undefined;
  const address = parseAddress(addressText);
  if (!address) return undefined;
  const width = widthOf(address.version);
  if (bitsText === undefined) return { version: address.version, base: address.value, bits: width };
  if (!/^\d{1,3}$/.test(bitsText)) return undefined;
  const bits = Number(bitsText);
  if (bits > width) return undefined;
  const host = (1n << BigInt(width - bits)) - 1n;
  return { version: address.version, base: address.value & ~host, bits };
}

/**
 * The TRUSTED_PROXIES list (comma-separated addresses and CIDR ranges);
 * the first entry that is neither is returned as `invalid`.
 */
export function parseRanges(text: string): { ranges: AddressRange[] } | { invalid: string } {
  const ranges: AddressRange[] = [];
  for (const entry of text.split(',').map((item) => item.trim())) {
    if (entry === '') continue;
    const range = parseRange(entry);
    if (!range) return { invalid: entry };
    ranges.push(range);
  }
  return { ranges };
}

export const defaultTrustedRanges = (): AddressRange[] =>
  DEFAULT_TRUSTED_PROXIES.map((entry) => parseRange(entry)!);

/** Whether `address` lies in one of `ranges` (of its own version). */
export function inRanges(address: Address, ranges: readonly AddressRange[]): boolean {
  for (const range of ranges) {
    if (range.version !== address.version) continue;
    const shift = BigInt(widthOf(range.version) - range.bits);
    if (address.value >> shift === range.base >> shift) return true;
  }
  return false;
}

/** Whether `written` is an address inside one of `ranges`. */
export const isTrusted = (written: string, ranges: readonly AddressRange[]): boolean => {
  const address = parseAddress(written);
  return address !== undefined && inRanges(address, ranges);
};

/** The entries of an X-Forwarded-For header, the right-most 1 KiB and 32 entries of it only. */
export function forwardedEntries(header: string): string[] {
  let text = header;
  let cut = false;
  if (text.length > MAX_FORWARDED_LENGTH) {
    text = text.slice(-MAX_FORWARDED_LENGTH);
    cut = true;
  }
  const entries = text.split(',');
  // The first entry of a cut header is probably a fragment.
  if (cut) entries.shift();
  return entries.slice(-MAX_FORWARDED_ENTRIES);
}

/**
 * The client's address behind trusted proxies. The hops, left to right, are
 * the X-Forwarded-For entries and then the socket peer; each trusted proxy
 * appends the address it received the request from. Walking from the
 * right, the first valid address that is not a trusted proxy is the client:
 * everything left of it was written by the client and proves nothing. A
 * peer that is not a trusted proxy is the client itself (its header is
 * ignored). When every valid hop is trusted (a request from inside), the
 * left-most is taken. Invalid entries are skipped.
 */
export function clientAddress(
  forwardedFor: string | null,
  peer: string,
  trusted: readonly AddressRange[],
): string {
  const hops = forwardedFor ? forwardedEntries(forwardedFor) : [];
  hops.push(peer);
  let leftMost: string | undefined;
  for (let i = hops.length - 1; i >= 0; i--) {
    const written = hops[i]!.trim();
    const address = parseAddress(written);
    if (!address) continue;
    if (!inRanges(address, trusted)) return canonical(address);
    leftMost = canonical(address);
  }
  return leftMost ?? peer;
}

/** IPv6 clients are counted by their /64 unless RATE_LIMIT_IPV6_PREFIX says otherwise. */
export const DEFAULT_IPV6_LIMIT_PREFIX = 64;
/** The prefixes RATE_LIMIT_IPV6_PREFIX accepts: 128 is the full address. */
export const MIN_IPV6_LIMIT_PREFIX = 32;
export const MAX_IPV6_LIMIT_PREFIX = 128;

/**
 * The key a per-address limit counts a client under. An IPv4 client is its
 * address; an IPv6 client is the network of its first `ipv6Prefix` bits,
 * written `2001:db8:1:2::/64` (its address alone at 128): one customer of an
 * ISP is handed a whole /64, and counted by its full address would spread
 * its attempts over 2^64 counters. One key per network whatever the
 * spelling: lower case, zeros compressed, brackets and a port dropped, a
 * zone id dropped (it names the server's interface, not the client), an
 * IPv4-mapped address as its IPv4 address. Text that is no address is its
 * own key.
 */
export function limiterKeyOf(written: string, ipv6Prefix: number): string {
  // The usual case, already in its one spelling (`isIPv4` refuses leading zeros): no parsing.
  if (isIPv4(written)) return written;
  const address = parseAddress(written.replace(/%[^\]]*/, ''));
  if (!address) return written;
  if (address.version === 4 || ipv6Prefix >= 128) return canonical(address);
  const host = (1n << BigInt(128 - ipv6Prefix)) - 1n;
  return `${canonical({ version: 6, value: address.value & ~host })}/${ipv6Prefix}`;
}

/** One spelling per address (a port and brackets dropped, mapped IPv4 as IPv4). */
function canonical(address: Address): string {
  if (address.version === 4) {
    const v = address.value;
    return [v >> 24n, (v >> 16n) & 0xffn, (v >> 8n) & 0xffn, v & 0xffn].join('.');
  }
  const groups: string[] = [];
  for (let shift = 112n; shift >= 0n; shift -= 16n) {
    groups.push(((address.value >> shift) & 0xffffn).toString(16));
  }
  // The longest run of zero groups (two or more) becomes `::`.
  let best = { start: -1, length: 0 };
  for (let i = 0; i < 8; ) {
    if (groups[i] !== '0') {
      i++;
      continue;
    }
    let j = i;
    while (j < 8 && groups[j] === '0') j++;
    if (j - i > best.length && j - i > 1) best = { start: i, length: j - i };
    i = j;
  }
  if (best.start < 0) return groups.join(':');
  const left = groups.slice(0, best.start).join(':');
  const right = groups.slice(best.start + best.length).join(':');
  return `${left}::${right}`;
}
