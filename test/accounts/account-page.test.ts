import { describe, expect, test } from 'bun:test';
import { ACCOUNT_PAGE_CSP } from '@/web/routes';
import { createTestApp } from '../support/harness';

describe('GET /account', () => {
  const ctx = createTestApp();

  test('serves the page with a strict CSP and no inline script or style', async () => {
    const res = await ctx.request('GET', '/account', { headers: { accept: 'text/html' } });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(res.headers.get('content-security-policy')).toBe(ACCOUNT_PAGE_CSP);
    expect(ACCOUNT_PAGE_CSP).toContain("script-src 'self'");
    expect(ACCOUNT_PAGE_CSP).toContain("style-src 'self'");
    expect(ACCOUNT_PAGE_CSP).not.toContain('unsafe');
    const html = res.text;
    expect(html).toContain('<script type="module" src="/account/app.js"></script>');
    expect(html).toContain('<link rel="stylesheet" href="/account/app.css" />');
    expect(html).not.toMatch(/<script(?![^>]*\bsrc=)[^>]*>/);
    expect(html).not.toMatch(/\sstyle=|<style|\son[a-z]+=/i);
    expect(html).toContain('autocomplete="username webauthn"');
    // The relying party id the page's passkey signals name, and the security-log list.
    expect(html).toContain('<body data-rp-id="localhost">');
    expect(html).toContain('id="security-log"');
    // The password change form and "sign out everywhere".
    expect(html).toContain('<form id="password-form" class="card">');
    expect(html).toContain('autocomplete="new-password"');
    expect(html).toContain('id="sign-out-everywhere-button"');
  });

  test('the relying party id is written as an escaped attribute', async () => {
    const odd = createTestApp({ env: { RP_ID: 'a"b<c&d' } });
    const res = await odd.request('GET', '/account', { headers: { accept: 'text/html' } });
    expect(res.text).toContain('<body data-rp-id="a&quot;b&lt;c&amp;d">');
  });

  test('serves the style sheet', async () => {
    const res = await ctx.request('GET', '/account/app.css');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/css; charset=utf-8');
    expect(res.text).toContain('.passkey');
    // "My properties" is styled by the console's sheet of its data pages.
    const shared = await ctx.request('GET', '/account/data.css');
    expect(shared.status).toBe(200);
    expect(shared.headers.get('content-type')).toBe('text/css; charset=utf-8');
    expect(shared.text).toContain('.field-error');
  });

  test('bundles the script with @simplewebauthn/browser once and caches it', async () => {
    const first = await ctx.request('GET', '/account/app.js');
    expect(first.status).toBe(200);
    expect(first.headers.get('content-type')).toBe('text/javascript; charset=utf-8');
    expect(first.text).not.toMatch(/from\s*["']@simplewebauthn/);
    expect(first.text).toContain('/auth/passkey/authenticate/options');
    expect(first.text).toContain('navigator.credentials');
    expect(first.text).toContain('/auth/password');
    const second = await ctx.request('GET', '/account/app.js');
    expect(second.text).toBe(first.text);
  });
});
