import type { Config } from '@/config';
import { pathOf } from './request/url';

/** One year, subdomains included; sent only when this process serves HTTPS itself. */
export const HSTS = 'max-age=31536000; includeSubDomains';

/**
 * The API reference at /docs: @elysiajs/openapi's Scalar page, an HTML shell
 * with inline styles and a configuration element, that loads the Scalar
 * bundle from cdn.jsdelivr.net. The bundle evaluates code for its schema
 * examples, injects styles, loads its fonts from fonts.scalar.com, uses blob
 * workers, and fetches /docs/json and the API itself ("Try it") from this
 * origin. No inline script runs and nothing may frame the page.
 */
export const DOCS_PAGE_CSP = [
  "default-src 'none'",
  "script-src https://cdn.jsdelivr.net 'unsafe-eval'",
  "style-src 'unsafe-inline' https://cdn.jsdelivr.net",
  'font-src https://fonts.scalar.com data:',
  "img-src 'self' data: blob:",
  "connect-src 'self'",
  'worker-src blob:',
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

/** For any other HTML answer that brings no policy of its own: nothing loads, nothing runs. */
export const FALLBACK_HTML_CSP = [
  "default-src 'none'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

type Handle = (request: Request) => Response | Promise<Response>;

/**
 * With TLS_CERT_PATH/TLS_KEY_PATH every response goes out over HTTPS and
 * carries Strict-Transport-Security. Behind a TLS-terminating proxy the
 * proxy sets it (this process cannot tell which hosts it fronts).
 */
export function withHsts(handle: Handle, config: Pick<Config, 'tls'>): Handle {
  if (!config.tls) return handle;
  return async (request) => {
    const response = await handle(request);
    response.headers.set('strict-transport-security', HSTS);
    return response;
  };
}

/**
 * Every HTML answer carries a Content-Security-Policy: its own (/account
 * sets one), the docs page's, or the fallback. The docs page comes from a
 * plugin whose Response no route hook can reach, hence this wrapper of the
 * full pipeline (the fast lane answers JSON only).
 */
export function withHtmlPolicy(handle: Handle): Handle {
  return async (request) => {
    const response = await handle(request);
    const { headers } = response;
    if (
      headers.get('content-type')?.startsWith('text/html') &&
      !headers.has('content-security-policy')
    ) {
      const path = pathOf(request.url);
      const docs = path === '/docs' || path === '/docs/';
      headers.set('content-security-policy', docs ? DOCS_PAGE_CSP : FALLBACK_HTML_CSP);
    }
    return response;
  };
}
