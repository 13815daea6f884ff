import { describe, expect, test } from 'bun:test';
import { REFUSED_RANGES, refusedRangeOf, vetTarget } from '@/webhooks/url-policy';

/** Writes a 32- or 128-bit value as an address (IPv6 as eight full groups). */
function written(value: bigint, version: 4 | 6): string {
  if (version === 4) {
    return [24n, 16n, 8n, 0n].map((shift) => String((value >> shift) & 0xffn)).join('.');
  }
  const groups: string[] = [];
  for (let shift = 112n; shift >= 0n; shift -= 16n) {
    groups.push(((value >> shift) & 0xffffn).toString(16));
  }
  return groups.join(':');
}

/** The first, a middle and the last address of a range written `a.b.c.d/n` or `x::y/n`. */
function samplesOf(cidr: string): string[] {
  const [text = '', bitsText = ''] = cidr.split('/');
  const version = text.includes(':') ? 6 : 4;
  const width = version === 4 ? 32 : 128;
  const hostBits = BigInt(width - Number(bitsText));
  let base: bigint;
  if (version === 4) {
    base = text.split('.').reduce((value, part) => (value << 8n) | BigInt(part), 0n);
  } else {
    // Parsed by the URL parser, which writes IPv6 in its shortest form; expanded here.
    const [head = '', tail = ''] = new URL(`http://[${text}]/`).hostname.slice(1, -1).split('::');
    const left = head ? head.split(':') : [];
    const right = tail ? tail.split(':') : [];
    const groups = [...left, ...Array(8 - left.length - right.length).fill('0'), ...right];
    base = groups.reduce((value, group) => (value << 16n) | BigInt(`0x${group}`), 0n);
  }
  const last = base + (1n << hostBits) - 1n;
  const middle = base + ((1n << hostBits) >> 1n) + 1n;
  return [...new Set([base, middle > last ? base : middle, last])].map((value) =>
    written(value, version),
  );
}

/**
 * The IANA IPv4 and IPv6 special-purpose blocks that are not globally
 * reachable, the deprecated and embedding blocks, multicast: written out
 * here, apart from the list the rule reads, so a range dropped there fails.
 */
const NOT_GLOBAL = [
  '0.0.0.0/8',
  '0.0.0.0/32',
  '10.0.0.0/8',
  '100.64.0.0/10',
  '127.0.0.0/8',
  '169.254.0.0/16',
  '172.16.0.0/12',
  '192.0.0.0/24',
  '192.0.0.0/29',
  '192.0.0.8/32',
  '192.0.0.170/32',
  '192.0.0.171/32',
  '192.0.2.0/24',
  '192.88.99.0/24',
  '192.168.0.0/16',
  '198.18.0.0/15',
  '198.51.100.0/24',
  '203.0.113.0/24',
  '224.0.0.0/4',
  '240.0.0.0/4',
  '255.255.255.255/32',
  '::/128',
  '::1/128',
  '::/96',
  '::ffff:0:0/96',
  '::ffff:0:0:0/96',
  '64:ff9b::/96',
  '64:ff9b:1::/48',
  '100::/64',
  '100:0:0:1::/64',
  '2001::/23',
  '2001::/32',
  '2001:2::/48',
  '2001:10::/28',
  '2001:db8::/32',
  '2002::/16',
  '3fff::/20',
  '5f00::/16',
  'fc00::/7',
  'fe80::/10',
  'fec0::/10',
  'ff00::/8',
];

const PUBLIC = [
  '93.184.215.14',
  '8.8.8.8',
  '1.1.1.1',
  // Just outside refused ranges.
  '100.63.255.255',
  '100.128.0.0',
  '172.15.255.255',
  '172.32.0.0',
  '192.0.3.0',
  '192.88.98.255',
  '198.17.255.255',
  '198.20.0.0',
  '223.255.255.255',
  // Special-purpose but globally reachable (AS112).
  '192.31.196.1',
  '2001:4860:4860::8888',
  '2606:4700:4700::1111',
  '2001:200::1',
  '2003::1',
  '2620:4f:8000::1',
  '3fff:1000::1',
];

describe('the webhook address rule', () => {
  test('every address of every special-purpose range that is not globally reachable is refused, IPv4 and IPv6', () => {
    const samples = NOT_GLOBAL.flatMap((cidr) =>
      samplesOf(cidr).map((address) => [cidr, address, refusedRangeOf(address)]),
    );
    expect(samples.filter(([, , range]) => range === null)).toEqual([]);
    expect(samples.length).toBeGreaterThanOrEqual(NOT_GLOBAL.length * 2);
    // Each range the rule lists is its own entry: none hides behind a broader one.
    for (const cidr of NOT_GLOBAL.filter(
      (range) =>
        !/^(0\.0\.0\.0\/32|192\.0\.0\.(0\/29|8\/|17)|2001::\/32|2001:2:|2001:10:)/.test(range),
    )) {
      expect(REFUSED_RANGES.map(([listed]) => listed as string)).toContain(cidr);
    }
  });

  test('the ranges the review found accepted, as they are written in URLs, are refused', () => {
    for (const [address, range] of [
      ['::127.0.0.1', 'IPv4-compatible (deprecated)'],
      ['64:ff9b:1::7f00:1', 'local-use IPv4/IPv6 translation'],
      ['2002:7f00:1::', '6to4'],
      ['::ffff:0:7f00:1', 'IPv4-translated (SIIT)'],
      ['::ffff:127.0.0.1', 'IPv4-mapped'],
      ['::ffff:8.8.8.8', 'IPv4-mapped'],
      ['100::1', 'discard-only'],
      ['fec0::1', 'site-local (deprecated)'],
      ['2001:db8::1', 'documentation'],
      ['5f00::1', 'segment routing (SRv6) SIDs'],
      ['192.0.2.1', 'documentation (TEST-NET-1)'],
      ['255.255.255.255', 'limited broadcast'],
      ['240.0.0.1', 'reserved'],
    ] as const) {
      expect([address, refusedRangeOf(address)]).toEqual([address, range]);
    }
    // IPv6 outside global unicast (2000::/3), in no named range: reserved, refused.
    expect(refusedRangeOf('4000::1')).toBe('not global unicast');
    expect(refusedRangeOf('fe80::1%eth0')).toBe('not an IP address');
  });

  test('public addresses are accepted', () => {
    expect(PUBLIC.map((address) => [address, refusedRangeOf(address)])).toEqual(
      PUBLIC.map((address) => [address, null]),
    );
  });

  test('the rule applies to every answer of a lookup, and to an address in the URL', async () => {
    const policy = { allowHttp: false, allowPrivate: false };
    for (const [cidr] of REFUSED_RANGES) {
      for (const address of samplesOf(cidr)) {
        const resolved = await vetTarget('https://hooks.example/', policy, {
          resolve: async () => ['93.184.215.14', address],
        });
        expect([cidr, address, resolved.ok]).toEqual([cidr, address, false]);
        const host = address.includes(':') ? `[${address}]` : address;
        const literal = await vetTarget(`https://${host}/`, policy);
        expect([cidr, address, literal.ok]).toEqual([cidr, address, false]);
      }
    }
    for (const address of PUBLIC) {
      const vetting = await vetTarget('https://hooks.example/', policy, {
        resolve: async () => [address],
      });
      expect([address, vetting.ok]).toEqual([address, true]);
    }
  });
});
