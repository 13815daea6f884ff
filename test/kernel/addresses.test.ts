import { describe, expect, test } from 'bun:test';
import { ConfigError, parseConfig } from '@/config';
import {
  clientAddress,
  defaultTrustedRanges,
  forwardedEntries,
  isTrusted,
  limiterKeyOf,
  parseRanges,
} from '@/kernel/addresses';

const defaults = defaultTrustedRanges();
const ranges = (text: string) => {
  const parsed = parseRanges(text);
  if (!('ranges' in parsed)) throw new Error(`invalid ${parsed.invalid}`);
  return parsed.ranges;
};

describe('trusted ranges', () => {
  test.each([
    ['127.0.0.1', true],
    ['127.255.0.9', true],
    ['::1', true],
    ['[::1]:8080', true],
    ['::ffff:127.0.0.1', true],
    ['10.1.2.3', false],
    ['172.16.0.1', false],
    ['172.31.255.255', false],
    ['172.32.0.1', false],
    ['192.168.1.1', false],
    ['192.169.1.1', false],
    ['fd12:3456::1', false],
    ['fc00::', false],
    ['fe80::1', false],
    ['2001:db8::1', false],
    ['203.0.113.7', false],
    ['203.0.113.7:443', false],
    ['::ffff:203.0.113.7', false],
    ['not an address', false],
    ['', false],
  ])('default: %s trusted is %p', (address, expected) => {
    expect(isTrusted(address, defaults)).toBe(expected);
  });

  test('single addresses and ranges of either family', () => {
    const list = ranges(' 198.51.100.7 , 2001:db8:1::/48,203.0.113.0/24');
    expect(isTrusted('198.51.100.7', list)).toBe(true);
    expect(isTrusted('198.51.100.8', list)).toBe(false);
    expect(isTrusted('2001:db8:1:ffff::9', list)).toBe(true);
    expect(isTrusted('2001:db8:2::9', list)).toBe(false);
    expect(isTrusted('203.0.113.255', list)).toBe(true);
    expect(isTrusted('127.0.0.1', list)).toBe(false);
  });

  test('a range whose base has host bits set still matches its network', () => {
    expect(isTrusted('10.9.9.9', ranges('10.1.2.3/8'))).toBe(true);
  });

  test.each([
    '10.0.0.0/33',
    '::/129',
    '10.0.0.0/8/8',
    '10.0.0.0/x',
    '10.0.0',
    '256.1.1.1',
    'example.com',
    '[::1]',
    '10.0.0.1:80',
    'fe80::1%eth0',
  ])('%s is not a range', (entry) => {
    expect(parseRanges(`10.0.0.0/8, ${entry}`)).toEqual({ invalid: entry });
  });

  test('an empty list trusts nothing', () => {
    expect(ranges(' , ')).toEqual([]);
  });
});

describe('the client behind the proxies', () => {
  const proxy = '10.0.0.2';
  /** Proxies on a private network, as an operator would list them. */
  const lan = ranges('127.0.0.0/8, ::1, 10.0.0.0/8, 192.168.0.0/16');

  test('the right-most untrusted entry, not the left-most the client wrote', () => {
    expect(clientAddress('1.2.3.4, 198.51.100.9', proxy, lan)).toBe('198.51.100.9');
  });

  test('trusted proxies on the right are skipped', () => {
    expect(clientAddress('1.2.3.4, 198.51.100.9, 10.0.0.1, 192.168.0.5', proxy, lan)).toBe(
      '198.51.100.9',
    );
  });

  test('invalid entries are skipped', () => {
    expect(clientAddress('198.51.100.9, garbage, , 10.0.0.1', proxy, lan)).toBe('198.51.100.9');
  });

  test('when every entry is trusted, the left-most', () => {
    expect(clientAddress('192.168.1.20, 10.0.0.1', proxy, lan)).toBe('192.168.1.20');
    expect(clientAddress(null, proxy, lan)).toBe(proxy);
    expect(clientAddress('garbage', proxy, lan)).toBe(proxy);
  });

  test('a peer that is not a trusted proxy is the client: its header proves nothing', () => {
    expect(clientAddress('1.2.3.4', '198.51.100.1', lan)).toBe('198.51.100.1');
  });

  test('one spelling per address', () => {
    expect(clientAddress('[2001:DB8:0:0::1]:443', proxy, lan)).toBe('2001:db8::1');
    expect(clientAddress('::ffff:198.51.100.9', proxy, lan)).toBe('198.51.100.9');
    expect(clientAddress('198.51.100.9:5000', proxy, lan)).toBe('198.51.100.9');
    expect(clientAddress('2001:db8:0:1:0:0:0:1', proxy, lan)).toBe('2001:db8:0:1::1');
  });

  test('only the right-most 1 KiB and 32 entries of the header are read', () => {
    const padding = Array.from({ length: 500 }, (_, i) => `203.0.${i >> 8}.${i & 255}`).join(', ');
    // The client pads its header to push the proxy's entry out of reach: it stays in reach.
    expect(clientAddress(`${padding}, 198.51.100.9`, proxy, lan)).toBe('198.51.100.9');
    const trustedTail = Array.from({ length: 40 }, () => '10.0.0.1').join(',');
    // 40 trusted hops: the 32 read are all trusted, so the left-most of those.
    expect(clientAddress(`198.51.100.9, ${trustedTail}`, proxy, lan)).toBe('10.0.0.1');
    expect(forwardedEntries(trustedTail)).toHaveLength(32);
    const long = `${'1'.repeat(2000)},198.51.100.9`;
    expect(forwardedEntries(long)).toEqual(['198.51.100.9']);
  });
});

describe('TRUSTED_PROXIES', () => {
  test('defaults to loopback only: a private network is not trusted unless listed', () => {
    const config = parseConfig({ DATABASE_PATH: ':memory:' });
    expect(config.trustedProxies).toEqual(defaults);
    expect(config.trustedProxies).toEqual(ranges('127.0.0.0/8, ::1'));
    for (const neighbour of ['10.0.0.2', '172.17.0.3', '192.168.1.20', 'fd00::5'])
      expect(isTrusted(neighbour, config.trustedProxies)).toBe(false);
    // A neighbour on the LAN cannot choose the address it is counted under.
    expect(clientAddress('198.51.100.9', '192.168.1.20', config.trustedProxies)).toBe(
      '192.168.1.20',
    );
  });

  test('is read as a list', () => {
    const config = parseConfig({ DATABASE_PATH: ':memory:', TRUSTED_PROXIES: '198.51.100.0/24' });
    expect(isTrusted('198.51.100.3', config.trustedProxies)).toBe(true);
    expect(isTrusted('127.0.0.1', config.trustedProxies)).toBe(false);
  });

  test('a bad entry is refused naming the variable', () => {
    const parse = () =>
      parseConfig({ DATABASE_PATH: ':memory:', TRUSTED_PROXIES: '10.0.0.0/8, 10.0.0.0/40' });
    expect(parse).toThrow(ConfigError);
    expect(parse).toThrow(
      'TRUSTED_PROXIES: not a comma-separated list of IP addresses and CIDR ranges (e.g. "10.0.0.0/8, fc00::/7") (got "10.0.0.0/8, 10.0.0.0/40")',
    );
  });
});

describe('the key a per-address limit counts a client by', () => {
  test('an IPv6 client by its /64: one key whatever the spelling, another /64 its own', () => {
    const oneNetwork = [
      '2001:db8::1',
      '2001:0db8:0:0::2',
      '2001:DB8:0:0:FFFF:FFFF:FFFF:FFFF',
      '2001:db8:0:0:1:2:3:4',
      '[2001:db8::5]:443',
      '[2001:db8::6]',
      '2001:db8::7%eth0',
      '[2001:db8::8%25en0]:80',
    ];
    for (const written of oneNetwork) expect(limiterKeyOf(written, 64)).toBe('2001:db8::/64');
    expect(limiterKeyOf('2001:db8:0:1::1', 64)).toBe('2001:db8:0:1::/64');
    expect(limiterKeyOf('fe80::1%eth0', 64)).toBe('fe80::/64');
  });

  test('the prefix chooses the network; 128 is the full address, one spelling of it', () => {
    expect(limiterKeyOf('2001:db8:abcd:12ff::1', 48)).toBe('2001:db8:abcd::/48');
    expect(limiterKeyOf('2001:db8:abcd:12ff::1', 56)).toBe('2001:db8:abcd:1200::/56');
    expect(limiterKeyOf('2001:db8:ffff:ffff::1', 32)).toBe('2001:db8::/32');
    expect(limiterKeyOf('2001:0DB8:0:0::1', 128)).toBe('2001:db8::1');
    expect(limiterKeyOf('[2001:db8::1%eth0]:8080', 128)).toBe('2001:db8::1');
    expect(limiterKeyOf('2001:db8::2', 128)).not.toBe(limiterKeyOf('2001:db8::1', 128));
  });

  test('IPv4 is its full address, an IPv4-mapped IPv6 address its IPv4 address', () => {
    for (const prefix of [32, 64, 128]) {
      expect(limiterKeyOf('198.51.100.9', prefix)).toBe('198.51.100.9');
      expect(limiterKeyOf('::ffff:198.51.100.9', prefix)).toBe('198.51.100.9');
      expect(limiterKeyOf('::FFFF:c633:6409', prefix)).toBe('198.51.100.9');
      expect(limiterKeyOf('198.51.100.9:5000', prefix)).toBe('198.51.100.9');
    }
    expect(limiterKeyOf('198.51.100.10', 64)).toBe('198.51.100.10');
  });

  test('RATE_LIMIT_IPV6_PREFIX: 64 by default, 32 to 128, anything else refused naming it', () => {
    expect(parseConfig({ DATABASE_PATH: ':memory:' }).ipv6LimitPrefix).toBe(64);
    for (const prefix of ['32', '56', '128']) {
      const config = parseConfig({ DATABASE_PATH: ':memory:', RATE_LIMIT_IPV6_PREFIX: prefix });
      expect(config.ipv6LimitPrefix).toBe(Number(prefix));
    }
    for (const bad of ['31', '129', '64.5', 'sixty-four']) {
      const parse = () => parseConfig({ DATABASE_PATH: ':memory:', RATE_LIMIT_IPV6_PREFIX: bad });
      expect(parse).toThrow(ConfigError);
      expect(parse).toThrow('RATE_LIMIT_IPV6_PREFIX');
    }
  });
});
