import type { MailContext } from '@/accounts/email-links';
import { isSecureCookie, sessionCookieNameOf } from '@/api/plugins/auth';
import type { Config } from '@/config';

import { fail } from '@/kernel/errors';
import { mailLanguageOfRequest } from '../request/notice';
import { fromTrustedProxy } from '../request/peer';

type ProxyTrust = Pick<Config, 'trustProxy' | 'trustedProxies'>;

/**
 * HTTPS as the client sees it: the request URL (Bun.serve with TLS), or the
 * first `X-Forwarded-Proto` of a TLS-terminating proxy — believed only with
 * TRUST_PROXY and from a peer in TRUSTED_PROXIES, since anyone else can
 * write the header.
 */
export function isHttps(request: Request, proxies: ProxyTrust): boolean {
  if (new URL(request.url).protocol === 'https:') return true;
  if (!fromTrustedProxy(request, proxies)) return false;
  return request.headers.get('x-forwarded-proto')?.split(',')[0]?.trim() === 'https';
}

const LOOPBACK = /^(localhost|127(?:\.\d{1,3}){3}|\[::1\])$/i;

const hostnameOf = (url: string) => (URL.canParse(url) ? new URL(url).hostname : '');

/**
 * Passkeys need HTTPS (WebAuthn needs a secure context). Plain HTTP is accepted only on
 * loopback — when the address the request was sent to (Host) and the page
 * that sent it (Origin, when given) are both localhost/127.x/[::1] — which is
 * what browsers themselves treat as a secure context. Otherwise 403.
 */
export function assertSecureTransport(request: Request, proxies: ProxyTrust): void {
  if (isHttps(request, proxies)) return;
  const origin = request.headers.get('origin');
  const hosts = [new URL(request.url).hostname, ...(origin === null ? [] : [hostnameOf(origin)])];
  if (!hosts.every((host) => LOOPBACK.test(host))) throw fail('auth.insecure_transport');
}

/** The session cookie: HttpOnly, SameSite=Lax, Path=/, Secure (and `__Host-`) as configured. */
export function sessionCookie(config: Config, token: string, maxAgeSeconds: number): string {
  const secure = isSecureCookie(config) ? '; Secure' : '';
  return `${sessionCookieNameOf(config)}=${token}; Path=/; HttpOnly; SameSite=Lax; Max-Age=${maxAgeSeconds}${secure}`;
}

/**
 * How a message this request sends is written: in the first language of
 * Accept-Language the service writes mail in (else English), its links to
 * the first public origin.
 */
export const mailContextOf = (request: Request, config: Config): MailContext => ({
  language: mailLanguageOfRequest(request),
  origin: config.publicOrigins[0]!,
  service: config.rpName,
});

export const clearedSessionCookie = (config: Config) => sessionCookie(config, '', 0);
