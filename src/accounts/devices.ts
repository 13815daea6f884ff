import { isIPv4 } from 'node:net';
import { limiterKeyOf } from '@/kernel/addresses';
import { browserOf, systemOf } from './device-names';

/**
 * What a sign-in's "device" is, from what a session stores (its user
 * agent and address): the browser and the operating system the user agent
 * names, and the network of the address (IPv4 /24, IPv6 /48). A new
 * browser version, or a new address in the same network, is the same
 * device; another browser, system or network is not.
 */
export interface Device {
  browser: string;
  system: string;
  network: string;
}

/** A program that is no browser is named by its first product token (`curl/8.5.0` → curl). */
const PRODUCT = /^([A-Za-z][\w.-]{0,31})\//;

const IPV6_DEVICE_PREFIX = 48;

/** The /24 of an IPv4 address, the /48 of an IPv6 one; other text as it is. */
function networkOf(ip: string): string {
  const key = limiterKeyOf(ip, IPV6_DEVICE_PREFIX);
  if (!isIPv4(key)) return key;
  return `${key.slice(0, key.lastIndexOf('.'))}.0/24`;
}

export function deviceOf(ip: string | null, userAgent: string | null): Device {
  const agent = userAgent ?? '';
  return {
    browser: browserOf(agent) ?? PRODUCT.exec(agent)?.[1] ?? 'Unknown',
    system: systemOf(agent) ?? 'Unknown',
    network: ip === null ? 'unknown' : networkOf(ip),
  };
}

export const sameDevice = (a: Device, b: Device) =>
  a.browser === b.browser && a.system === b.system && a.network === b.network;

/** "Firefox on Linux", as a message names it. */
export const deviceName = (device: Device) => `${device.browser} on ${device.system}`;
