/**
 * The browser and the operating system a `User-Agent` names, by family
 * (no version): what a sign-in's device is (./devices.ts) and what the
 * account page calls a session. No Node.js import: the page's script uses it.
 */
/** First match wins: Edge and Opera also say Chrome, Chrome also says Safari. */
const BROWSERS: readonly [RegExp, string][] = [
  [/\bEdg(?:e|A|iOS)?\//, 'Edge'],
  [/\b(?:OPR|Opera)\//, 'Opera'],
  [/\b(?:Firefox|FxiOS)\//, 'Firefox'],
  [/(?:\b|Headless)(?:Chrome|Chromium|CriOS)\//, 'Chrome'],
  [/\bSafari\//, 'Safari'],
];
/** Android and iOS also say Linux and Mac OS X. */
const SYSTEMS: readonly [RegExp, string][] = [
  [/\bAndroid\b/, 'Android'],
  [/\b(?:iPhone|iPad|iPod)\b/, 'iOS'],
  [/\bWindows\b/, 'Windows'],
  [/\bCrOS\b/, 'ChromeOS'],
  [/\bMac OS X\b|\bMacintosh\b/, 'macOS'],
  [/\bLinux\b/, 'Linux'],
];

const nameIn = (table: readonly [RegExp, string][], userAgent: string) =>
  table.find(([pattern]) => pattern.test(userAgent))?.[1];

export const browserOf = (userAgent: string) => nameIn(BROWSERS, userAgent);
export const systemOf = (userAgent: string) => nameIn(SYSTEMS, userAgent);
