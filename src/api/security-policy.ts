import type { Handle } from '@/api/pipeline';
import type { Config } from '@/config';

/** One year, subdomains included; sent only when this process serves HTTPS itself. */
export const HSTS = 'max-age=31536000; includeSubDomains';

/** The API reference at /docs sets its own policy (src/web/docs/routes.ts). */
export { DOCS_PAGE_CSP } from '@/web/docs/routes';

/** For any other HTML answer that brings no policy of its own: nothing loads, nothing runs. */
export const FALLBACK_HTML_CSP = [
  "default-src 'none'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

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
 * Every HTML answer carries a Content-Security-Policy: its own (/account and
 * /docs set one) or the fallback, for any other HTML an error or a plugin
 * might produce; a wrapper of the full pipeline so no answer escapes it (the
 * fast lane answers JSON only).
 */
export function withHtmlPolicy(handle: Handle): Handle {
  return async (request) => {
    const response = await handle(request);
    const { headers } = response;
    if (
      headers.get('content-type')?.startsWith('text/html') &&
      !headers.has('content-security-policy')
    ) {
      headers.set('content-security-policy', FALLBACK_HTML_CSP);
    }
    return response;
  };
}
