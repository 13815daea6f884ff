import { Elysia } from 'elysia';
import { assetResponse, pageAssets } from '../assets';

/**
 * The landing page runs no script at all: its policy allows only this
 * origin's style sheet and images (the favicon), nothing inline.
 */
export const LANDING_PAGE_CSP = [
  "default-src 'none'",
  "style-src 'self'",
  "img-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

/** The icon is an image: opened on its own it may load and run nothing. */
export const FAVICON_CSP = "default-src 'none'";

/**
 * A year: the icon changes about never, and a stale one for a while is
 * harmless, whereas every page view asking again is not.
 */
export const FAVICON_CACHE = 'public, max-age=31536000';

const asset = pageAssets('landing');
const answer = async (name: string) => assetResponse(name, (await asset(name))!, LANDING_PAGE_CSP);
const favicon = async () =>
  assetResponse('favicon.svg', (await asset('favicon.svg'))!, FAVICON_CSP, FAVICON_CACHE);
const hide = { detail: { hide: true } };

/**
 * GET /: what the service is, and the way to its other pages (/docs,
 * /account, /console). GET /favicon.svg, which every page names, and
 * /favicon.ico, which browsers ask for on their own: the same SVG.
 */
export const landingPage = () =>
  new Elysia({ name: 'landing-page' })
    .get('/', () => answer('page.html'), {
      detail: {
        operationId: 'getLandingPage',
        summary: 'The landing page (HTML): what this service is, links to its other pages',
        tags: ['Pages'],
        responses: {
          200: {
            description: 'The page',
            content: { 'text/html': { schema: { type: 'string' } } },
          },
        },
      },
    })
    .get('/site/app.css', () => answer('app.css'), hide)
    .get('/favicon.svg', favicon, hide)
    .get('/favicon.ico', favicon, hide);
