/**
 * GET /console: who gets which page, each under the console's policy with
 * every file from this origin. (The console itself is walked in Chromium:
 * test/slow/console-browser.slow.ts.)
 */
import { describe, expect, test } from 'bun:test';
import { CONSOLE_PAGE_CSP } from '@/web/console/routes';
import { createTestApp } from '../support/harness';

const html = { accept: 'text/html' };

describe('GET /console', () => {
  const ctx = createTestApp();

  test('happy: an employee gets the console, its script and sheets from this origin', async () => {
    const res = await ctx.request('GET', '/console', {
      headers: html,
      token: await ctx.tokenFor('ops', 'employee'),
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(res.headers.get('content-security-policy')).toBe(CONSOLE_PAGE_CSP);
    expect(res.text).toContain('Operator console');
    expect(res.text).toContain('src="/console/app.js"');
    expect(res.text).not.toMatch(/<style|style="|<script>|https?:\/\//);
    for (const path of [
      '/console/app.js',
      '/console/app.css',
      '/console/data.css',
      '/console/uplot.css',
    ]) {
      const asset = await ctx.request('GET', path);
      expect([path, asset.status]).toEqual([path, 200]);
      expect(asset.headers.get('content-security-policy')).toBe(CONSOLE_PAGE_CSP);
    }
    const script = await ctx.request('GET', '/console/app.js');
    expect(script.text).toContain('/admin/usage/requests');
    expect(script.text).toContain('/admin/webhooks/summary');
    expect(script.text).toContain('/admin/status');
    // The Backups page's replica section.
    expect(script.text).toContain('/admin/replication');
    // The Properties page: the public listings API, with If-Match on its writes.
    expect(res.text).toContain('href="/console/data.css"');
    expect(script.text).toContain('/listings/properties');
    expect(script.text).toContain('if-match');
    expect(res.text).toContain('id="replica-table"');
    expect(res.text).toContain('id="restore-command"');
  });

  test('auth: anonymous gets the sign-in page (200), not the console', async () => {
    const res = await ctx.request('GET', '/console', { headers: html });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-security-policy')).toBe(CONSOLE_PAGE_CSP);
    expect(res.text).toContain('Sign in first at <a href="/account">');
    expect(res.text).not.toContain('/console/app.js');
  });

  test('auth: a customer gets "Employees only" with 403, not the console', async () => {
    const res = await ctx.request('GET', '/console', {
      headers: html,
      token: await ctx.tokenFor('c1'),
    });
    expect(res.status).toBe(403);
    expect(res.text).toContain('<h1>Employees only</h1>');
    expect(res.text).not.toContain('/console/app.js');
  });

  test('auth: an invalid token is treated as no sign-in', async () => {
    const res = await ctx.request('GET', '/console', { headers: html, token: 'not-a-token' });
    expect(res.status).toBe(200);
    expect(res.text).toContain('Sign in first');
  });
});
