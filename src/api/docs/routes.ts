import { openapi } from '@elysiajs/openapi';
import { Elysia } from 'elysia';
import { z } from 'zod';
import { docsPage } from '@/web/docs/routes';
import { fixOpenApiDocument, type RouteLike } from './document';

/**
 * /docs/json, with the document mended once generated, and /docs, the
 * self-hosted reference page (src/web/docs; the plugin's own page would load
 * its script from a CDN). The hook is
 * local to this instance: a global after-handle hook would sit in the path of
 * every request (docs/performance.md).
 */
export const docsRoutes = (routes: () => readonly RouteLike[]) =>
  new Elysia({ name: 'docs' })
    .onAfterHandle(({ path, responseValue }) => {
      if (path === '/docs/json') fixOpenApiDocument(responseValue, routes());
    })
    .use(
      openapi({
        path: '/docs',
        provider: null,
        specPath: '/docs/json',
        mapJsonSchema: { zod: z.toJSONSchema },
        documentation: {
          info: {
            title: 'Listings service',
            version: '0.1.0',
            description:
              'Property listings, static pages, passkey sign-in and the rate-limited customer API. Errors outside /api/v1 are problem details (application/problem+json); the customer API answers JSON in its own shape. Every answer carries X-Request-Id.',
          },
        },
      }),
    )
    .use(docsPage());
