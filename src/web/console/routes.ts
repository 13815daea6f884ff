import { Elysia } from 'elysia';
import { assetResponse, pageAssets } from '../assets';

/**
 * The console's policy is the account page's: every file from this
 * origin, no inline script or style. uPlot sets sizes through the DOM's
 * style properties, which a policy does not govern, and needs nothing more.
 */
export const CONSOLE_PAGE_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "connect-src 'self'",
  "img-src 'self'",
  "form-action 'self'",
  "base-uri 'none'",
  "frame-ancestors 'none'",
].join('; ');

const asset = pageAssets('console');
const answer = async (name: string) => assetResponse(name, (await asset(name))!, CONSOLE_PAGE_CSP);
const hide = { detail: { hide: true } };

/** What a caller who may not see the console is told instead, in gate.html. */
const GATES = {
  anonymous: {
    title: 'Console: sign in',
    heading: 'Operator console',
    message:
      'The console is for employees. Sign in first at <a href="/account">/account</a> (password or passkey), then come back to <a href="/console">/console</a>.',
  },
  customer: {
    title: 'Console: employees only',
    heading: 'Employees only',
    message:
      'You are signed in, but the operator console is for employees. Your own plan, usage and webhooks are at <a href="/account">/account</a>.',
  },
} as const;

async function gate(who: keyof typeof GATES, status: number): Promise<Response> {
  const text = GATES[who];
  const body = (await asset('gate.html'))!
    .replace('{{title}}', text.title)
    .replace('{{heading}}', text.heading)
    .replace('{{message}}', text.message);
  const headers = assetResponse('gate.html', '', CONSOLE_PAGE_CSP).headers;
  return new Response(body, { status, headers });
}

/** Who sent a request, as the transport's auth identifies it; undefined or null when nobody is signed in. */
export type IdentifyCaller = (request: Request) => Promise<{ aud: string } | null | undefined>;

/**
 * GET /console for employees: the caller is identified from the session
 * cookie (or a bearer token) by the transport's `identify`; anyone else gets
 * a page saying how to get in (anonymous: sign in at /account, 200; a
 * customer: employees only, 403). The console's data comes from
 * employee-only endpoints, which check again.
 */
export const consolePage = (identify: IdentifyCaller) =>
  new Elysia({ name: 'console-page' })
    .get(
      '/console',
      async ({ request }) => {
        const caller = await identify(request).catch(() => undefined);
        if (!caller) return gate('anonymous', 200);
        if (caller.aud !== 'employee') return gate('customer', 403);
        return answer('page.html');
      },
      hide,
    )
    .get('/console/app.js', () => answer('app.js'), hide)
    .get('/console/app.css', () => answer('app.css'), hide)
    .get('/console/data.css', () => answer('data.css'), hide)
    .get('/console/uplot.css', () => answer('uplot.css'), hide);
