/**
 * GET /, the favicon, and the way between the service's pages: each page
 * under its policy and the security headers every answer carries, the
 * icon named by every page and cached for long, and / in the OpenAPI
 * document as /account is.
 */
import { describe, expect, test } from 'bun:test';
import { securityHeaders } from '@/api/request/headers';
import { CONSOLE_PAGE_CSP } from '@/web/console/routes';
import { DOCS_PAGE_CSP } from '@/web/docs/routes';
import { FAVICON_CACHE, FAVICON_CSP, LANDING_PAGE_CSP } from '@/web/landing/routes';
import { ACCOUNT_PAGE_CSP } from '@/web/routes';
import { createTestApp } from '../support/harness';

const html = { accept: 'text/html' };
const ICON_LINK = '<link rel="icon" href="/favicon.svg" type="image/svg+xml" />';

describe('GET /', () => {
  const ctx = createTestApp();

  test('happy: the landing page, under its policy, links to /docs, /account and /console', async () => {
    const res = await ctx.request('GET', '/', { headers: html });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(res.headers.get('content-security-policy')).toBe(LANDING_PAGE_CSP);
    expect(res.headers.get('cache-control')).toBe('no-cache');
    for (const [name, value] of Object.entries(securityHeaders)) {
      expect([name, res.headers.get(name)]).toEqual([name, value]);
    }
    for (const href of ['/docs', '/account', '/console']) {
      expect(res.text).toContain(`<a href="${href}">`);
    }
    expect(res.text).toContain(ICON_LINK);
    // Nothing inline, nothing from elsewhere, no script at all.
    expect(res.text).not.toMatch(/<style|style="|<script|https?:\/\//);
    expect(LANDING_PAGE_CSP).not.toContain('script-src');

    const sheet = await ctx.request('GET', '/site/app.css');
    expect(sheet.status).toBe(200);
    expect(sheet.headers.get('content-type')).toBe('text/css; charset=utf-8');
    expect(sheet.text).toContain('.top');
  });

  test('happy: / is in the OpenAPI document as a text/html page, as /account is', async () => {
    const { body } = await ctx.request<{
      paths: Record<string, Record<string, { operationId?: string; responses: unknown }>>;
    }>('GET', '/docs/json');
    const landing = body.paths['/']?.get;
    expect(landing?.operationId).toBe('getLandingPage');
    // Documented as /account is: the page as text/html, and the statuses every route may answer.
    const account = body.paths['/account']?.get;
    expect(account?.operationId).toBe('getAccountPage');
    expect(landing?.responses).toEqual(account?.responses);
    expect(landing?.responses).toMatchObject({
      200: { description: 'The page', content: { 'text/html': { schema: { type: 'string' } } } },
    });
    // The icon and the sheet are files of the pages, not operations.
    for (const path of ['/favicon.ico', '/favicon.svg', '/site/app.css']) {
      expect([path, body.paths[path]]).toEqual([path, undefined]);
    }
  });

  test('bad input: another method on / is a 405 problem, nothing else', async () => {
    const res = await ctx.request('POST', '/', { body: {} });
    expect(res.status).toBe(405);
    expect(res.headers.get('content-type')).toStartWith('application/problem+json');
  });
});

describe('GET /favicon.ico and /favicon.svg', () => {
  const ctx = createTestApp();

  test('happy: one SVG icon at both paths, cached for a year, loading nothing', async () => {
    const svg = await ctx.request('GET', '/favicon.svg');
    const ico = await ctx.request('GET', '/favicon.ico');
    for (const res of [svg, ico]) {
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toBe('image/svg+xml');
      expect(res.headers.get('cache-control')).toBe(FAVICON_CACHE);
      expect(res.headers.get('content-security-policy')).toBe(FAVICON_CSP);
      expect(res.headers.get('x-content-type-options')).toBe('nosniff');
      expect(res.text).toStartWith('<svg xmlns="http://www.w3.org/2000/svg"');
      expect(res.text).not.toMatch(/<script|href=/);
    }
    expect(ico.text).toBe(svg.text);
    expect(FAVICON_CACHE).toBe('public, max-age=31536000');
  });

  test('happy: every page names the icon, and each policy lets it load from this origin', async () => {
    const employee = await ctx.tokenFor('ops', 'employee');
    const pages = [
      { path: '/', csp: LANDING_PAGE_CSP },
      { path: '/account', csp: ACCOUNT_PAGE_CSP },
      { path: '/docs', csp: DOCS_PAGE_CSP },
      { path: '/console', csp: CONSOLE_PAGE_CSP, token: employee },
      // The console's sign-in page, for a visitor who is not signed in.
      { path: '/console', csp: CONSOLE_PAGE_CSP },
    ];
    for (const { path, csp, token } of pages) {
      const res = await ctx.request('GET', path, { headers: html, token });
      expect([path, res.status, res.headers.get('content-security-policy')]).toEqual([
        path,
        200,
        csp,
      ]);
      expect([path, res.text.includes(ICON_LINK)]).toEqual([path, true]);
      expect(csp).toMatch(/img-src 'self'/);
    }
  });

  test('happy: the pages lead to one another', async () => {
    const employee = await ctx.tokenFor('ops', 'employee');
    const consolePage = await ctx.request('GET', '/console', { headers: html, token: employee });
    for (const href of ['/', '/docs', '/account']) {
      expect(consolePage.text).toContain(`<a href="${href}">`);
    }
    expect(consolePage.text).toContain('id="sign-out"');
    const gate = await ctx.request('GET', '/console', { headers: html });
    expect(gate.text).toContain('<a href="/">Home</a>');
    const docs = await ctx.request('GET', '/docs', { headers: html });
    expect(docs.text).toContain('<a href="/">Home</a>');
    const account = await ctx.request('GET', '/account', { headers: html });
    expect(account.text).toContain('<a href="/">Home</a>');
    expect(account.text).toContain('<a href="/docs">');
    // The console link is there for employees; the page's script shows it to them only.
    expect(account.text).toContain('<a href="/console" id="console-link" hidden>');
  });
});
