import { join } from 'node:path';
import { Elysia } from 'elysia';

/**
 * /docs renders /docs/json with its own script and style sheet from this
 * origin: no CDN, no inline code, works offline.
 */
export const DOCS_PAGE_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "connect-src 'self'",
  "img-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

const here = import.meta.dir;

async function bundleScript(): Promise<string> {
  const result = await Bun.build({
    entrypoints: [join(here, 'app.ts')],
    target: 'browser',
    format: 'esm',
    minify: true,
  });
  const output = result.outputs[0];
  if (!result.success || !output) {
    throw new AggregateError(result.logs, 'the API reference script did not build');
  }
  return output.text();
}

const assets = new Map<string, Promise<string>>();

/** Each asset made once and kept; a failure is retried on the next request. */
function asset(name: string): Promise<string> {
  let text = assets.get(name);
  if (!text) {
    text = name === 'app.js' ? bundleScript() : Bun.file(join(here, name)).text();
    text.catch(() => assets.delete(name));
    assets.set(name, text);
  }
  return text;
}

const page = (body: string, contentType: string) =>
  new Response(body, {
    headers: {
      'content-type': contentType,
      'content-security-policy': DOCS_PAGE_CSP,
      'cache-control': 'no-cache',
    },
  });

const hide = { detail: { hide: true } };

/** GET /docs, /docs/app.js, /docs/app.css: the self-hosted API reference. */
export const docsPage = () =>
  new Elysia({ name: 'docs-page' })
    .get('/docs', async () => page(await asset('page.html'), 'text/html; charset=utf-8'), hide)
    .get(
      '/docs/app.css',
      async () => page(await asset('docs.css'), 'text/css; charset=utf-8'),
      hide,
    )
    .get(
      '/docs/app.js',
      async () => page(await asset('app.js'), 'text/javascript; charset=utf-8'),
      hide,
    );
