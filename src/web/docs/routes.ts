import { Elysia } from 'elysia';
import { assetResponse, pageAssets } from '../assets';

/**
 * /docs is Swagger UI on /docs/json, every file from this origin. Two
 * allowances beyond the account page's policy, each for Swagger UI:
 * `img-src data:` (its style sheet draws icons as data: SVGs) and
 * `connect-src 'self'` (the document and try-it requests). No inline
 * script or style sheet, nothing from another origin; try-it can only
 * reach this service.
 */
export const DOCS_PAGE_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "connect-src 'self'",
  "img-src 'self' data:",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

const asset = pageAssets('docs');
const hide = { detail: { hide: true } };

const answer = async (name: string) => assetResponse(name, (await asset(name))!, DOCS_PAGE_CSP);

/** GET /docs and its files: the self-hosted API reference with try-it. */
export const docsPage = () =>
  new Elysia({ name: 'docs-page' })
    .get('/docs', () => answer('page.html'), hide)
    .get('/docs/app.js', () => answer('app.js'), hide)
    .get('/docs/app.css', () => answer('app.css'), hide)
    .get('/docs/swagger-ui.js', () => answer('swagger-ui.js'), hide)
    .get('/docs/swagger-ui.css', () => answer('swagger-ui.css'), hide);
