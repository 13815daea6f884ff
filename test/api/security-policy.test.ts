import { describe, expect, test } from 'bun:test';
import { DOCS_PAGE_CSP, FALLBACK_HTML_CSP, HSTS } from '@/api/security-policy';
import { CONSOLE_PAGE_CSP } from '@/web/console/routes';
import { LANDING_PAGE_CSP } from '@/web/landing/routes';
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

  test('GET /docs: its own scripts and styles only, nothing from elsewhere, no inline code', async () => {
    const res = await ctx.request('GET', '/docs', { headers: { accept: 'text/html' } });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-security-policy')).toBe(DOCS_PAGE_CSP);
    expect(DOCS_PAGE_CSP).toContain("script-src 'self'");
    expect(DOCS_PAGE_CSP).not.toMatch(/https?:|'unsafe-/);
    expect(DOCS_PAGE_CSP).toContain("frame-ancestors 'none'");
    // Every script and style sheet is a path of this origin; inline scripts and styles none.
    const scripts = [...res.text.matchAll(/<script\b([^>]*)>([\s\S]*?)<\/script>/g)];
    expect(scripts.length).toBeGreaterThan(0);
    for (const [, attributes = '', body = ''] of scripts) {
      expect(/\bsrc="(\/[^"/][^"]*)"/.exec(attributes)?.[1]).toStartWith('/docs/');
      expect(body.trim()).toBe('');
    }
    expect(res.text).not.toMatch(/<style|style="|https?:\/\/(?!www\.w3)/);
    for (const asset of [
      '/docs/app.js',
      '/docs/app.css',
      '/docs/swagger-ui.js',
      '/docs/swagger-ui.css',
    ]) {
      const answer = await ctx.request('GET', asset);
      expect([asset, answer.status]).toEqual([asset, 200]);
      expect(answer.headers.get('content-security-policy')).toBe(DOCS_PAGE_CSP);
    }
    const script = await ctx.request('GET', '/docs/app.js');
    expect(script.headers.get('content-type')).toContain('javascript');
    expect(script.text).toContain('/docs/json');
    expect(script.text).not.toMatch(/https?:\/\/(?!www\.w3\.org)/);
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
      expect([
        ACCOUNT_PAGE_CSP,
        DOCS_PAGE_CSP,
        CONSOLE_PAGE_CSP,
        LANDING_PAGE_CSP,
        FALLBACK_HTML_CSP,
      ]).toContain(res.headers.get('content-security-policy')!);
    }
    expect(html).toBeGreaterThanOrEqual(2);
  });
});
