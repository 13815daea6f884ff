import { describe, expect, test } from 'bun:test';
import { deviceName, deviceOf, sameDevice } from '@/accounts/devices';

const FIREFOX_LINUX = 'Mozilla/5.0 (X11; Linux x86_64; rv:132.0) Gecko/20100101 Firefox/132.0';
const EDGE_WINDOWS =
  'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36 Edg/131.0.0.0';
const SAFARI_IPHONE =
  'Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Mobile/15E148 Safari/604.1';
const CHROME_ANDROID =
  'Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Mobile Safari/537.36';
const HEADLESS_CHROME_LINUX =
  'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) HeadlessChrome/131.0.0.0 Safari/537.36';

describe('devices: happy', () => {
  test('the browser and system a user agent names, and the network of the address', () => {
    const named = (userAgent: string | null, ip: string | null = '203.0.113.9') => {
      const device = deviceOf(ip, userAgent);
      return [deviceName(device), device.network];
    };
    expect(named(FIREFOX_LINUX)).toEqual(['Firefox on Linux', '203.0.113.0/24']);
    expect(named(EDGE_WINDOWS)).toEqual(['Edge on Windows', '203.0.113.0/24']);
    expect(named(SAFARI_IPHONE)).toEqual(['Safari on iOS', '203.0.113.0/24']);
    expect(named(CHROME_ANDROID)).toEqual(['Chrome on Android', '203.0.113.0/24']);
    expect(named(HEADLESS_CHROME_LINUX)).toEqual(['Chrome on Linux', '203.0.113.0/24']);
    expect(named('curl/8.5.0', '2001:db8:1:2::7')).toEqual(['curl on Unknown', '2001:db8:1::/48']);
    expect(named(null, null)).toEqual(['Unknown on Unknown', 'unknown']);
  });

  test('a newer browser version, or another address of the same network, is the same device', () => {
    const before = deviceOf('198.51.100.20', FIREFOX_LINUX);
    expect(
      sameDevice(before, deviceOf('198.51.100.77', FIREFOX_LINUX.replaceAll('132', '133'))),
    ).toBe(true);
    expect(
      sameDevice(deviceOf('2001:db8:1:2::1', null), deviceOf('2001:db8:1:ffff::9', null)),
    ).toBe(true);
  });
});

describe('devices: error', () => {
  test('another browser, system or network is a new device', () => {
    const known = deviceOf('198.51.100.20', FIREFOX_LINUX);
    expect(sameDevice(known, deviceOf('198.51.100.20', HEADLESS_CHROME_LINUX))).toBe(false);
    expect(
      sameDevice(
        known,
        deviceOf('198.51.100.20', FIREFOX_LINUX.replace('X11; Linux', 'Windows NT 10.0; Win64')),
      ),
    ).toBe(false);
    expect(sameDevice(known, deviceOf('198.51.101.20', FIREFOX_LINUX))).toBe(false);
  });
});
