import { describe, expect, test } from 'bun:test';
import { DOCS_PAGE_CSP, FALLBACK_HTML_CSP, HSTS } from '@/api/security-policy';
import { ACCOUNT_PAGE_CSP } from '@/web/routes';
import { createTestApp } from '../support/harness';

/** parseConfig only checks that both are set; the files are read by src/index.ts. */
const TLS = { TLS_CERT_PATH: '/tls/cert.pem', TLS_KEY_PATH: '/tls/key.pem' };

describe('Strict-Transport-Security', () => {
  const https = createTestApp({ env: TLS });
  const http = createTestApp();

  test.each([
    ['/health', 200],
    ['/listings/properties/unknown', 404],
    ['/account', 200],
    ['/nowhere', 404],
  ])('GET %s over HTTPS carries it (%i)', async (path, status) => {
    const res = await https.request('GET', path);
    expect(res.status).toBe(status);
    expect(res.headers.get('strict-transport-security')).toBe(HSTS);
  });

  test('a refused write and an OPTIONS request over HTTPS carry it too', async () => {
    const token = await https.tokenFor('owner-hsts');
    const created = await https.request<{ id: string }>('POST', '/listings/properties', {
      token,
      body: {},
    });
    expect(created.status).toBe(422);
    expect(created.headers.get('strict-transport-security')).toBe(HSTS);
    const options = await https.request('OPTIONS', '/listings/properties');
    expect(options.headers.get('strict-transport-security')).toBe(HSTS);
  });

  test('never over plain HTTP', async () => {
    for (const path of ['/health', '/account', '/listings/properties/unknown']) {
      const res = await http.request('GET', path);
      expect(res.headers.get('strict-transport-security')).toBeNull();
    }
  });

  test('its value', () => {
    expect(HSTS).toBe('max-age=31536000; includeSubDomains');
  });
});

describe('Content-Security-Policy on every HTML page', () => {
  const ctx = createTestApp();

  test('GET /docs: the policy allows its CDN script and runs no inline code', async () => {
    const res = await ctx.request('GET', '/docs', { headers: { accept: 'text/html' } });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-security-policy')).toBe(DOCS_PAGE_CSP);
    const scriptSrc = DOCS_PAGE_CSP.split('; ').find((d) => d.startsWith('script-src '))!;
    expect(scriptSrc).not.toContain("'unsafe-inline'");
    expect(DOCS_PAGE_CSP).toContain("frame-ancestors 'none'");
    // Every external script is from a host the policy names; inline scripts are empty.
    const scripts = [...res.text.matchAll(/<script\b([^>]*)>([\s\S]*?)<\/script>/g)];
    expect(scripts.length).toBeGreaterThan(0);
    for (const [, attributes = '', body = ''] of scripts) {
      const src = /\bsrc="([^"]+)"/.exec(attributes)?.[1];
      if (src) expect(scriptSrc).toContain(new URL(src).origin);
      else expect(body.trim()).toBe('');
    }
  });

  test('GET /account keeps its own strict policy', async () => {
    const res = await ctx.request('GET', '/account', { headers: { accept: 'text/html' } });
    expect(res.headers.get('content-security-policy')).toBe(ACCOUNT_PAGE_CSP);
  });

  test('every GET route answering HTML has a policy', async () => {
    const paths = ctx.app.routes
      .filter((route) => route.method === 'GET' && !route.path.includes(':'))
      .map((route) => route.path.replace(/\*$/, ''));
    let html = 0;
    for (const path of new Set(paths)) {
      const res = await ctx.request('GET', path, { headers: { accept: 'text/html' } });
      if (!res.headers.get('content-type')?.startsWith('text/html')) continue;
      html++;
      expect([ACCOUNT_PAGE_CSP, DOCS_PAGE_CSP, FALLBACK_HTML_CSP]).toContain(
        res.headers.get('content-security-policy')!,
      );
    }
    expect(html).toBeGreaterThanOrEqual(2);
  });
});
