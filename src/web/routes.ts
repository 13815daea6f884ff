import { join } from 'node:path';
import { Elysia } from 'elysia';
import { embedded } from '@/kernel/embedded';

/**
 * The page runs no inline code or style: everything comes from this origin,
 * so an injected <script> or style attribute does nothing.
 */
export const ACCOUNT_PAGE_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "connect-src 'self'",
  "img-src 'self'",
  "form-action 'self'",
  "base-uri 'none'",
  "frame-ancestors 'none'",
].join('; ');

const here = import.meta.dir;
/** uPlot's style sheet, served as it is installed (its script is bundled into app.js). */
export const UPLOT_CSS = 'uplot/dist/uPlot.min.css';

async function bundleScript(): Promise<string> {
  const result = await Bun.build({
    entrypoints: [join(here, 'account-app.ts')],
    target: 'browser',
    format: 'esm',
    minify: true,
  });
  const output = result.outputs[0];
  if (!result.success || !output) {
    throw new AggregateError(result.logs, 'the account page script did not build');
  }
  return output.text();
}

const assets = new Map<string, Promise<string>>();

/**
 * Each asset is produced once (the script bundled by Bun.build with
 * @simplewebauthn/browser on first request) and kept in memory; a failure is
 * retried on the next request rather than cached.
 */
function asset(name: string): Promise<string> {
  let text = assets.get(name);
  if (!text) {
    const built = embedded.accountAssets?.[name];
    if (built !== undefined) text = Promise.resolve(built);
    else if (name === 'app.js') text = bundleScript();
    else if (name === 'uplot.css') text = Bun.file(Bun.resolveSync(UPLOT_CSS, here)).text();
    else text = Bun.file(join(here, name)).text();
    text.catch(() => assets.delete(name));
    assets.set(name, text);
  }
  return text;
}

/** The sign-up form between its markers in account.html. */
const SIGN_UP_FORM = /\s*<!-- sign-up:[\s\S]*?<!-- \/sign-up -->/;

const attribute = (value: string) =>
  value.replaceAll('&', '&amp;').replaceAll('"', '&quot;').replaceAll('<', '&lt;');

/**
 * The page as served: with sign-up closed the form is not in the HTML at all
 * (the server refuses sign-ups anyway), so nothing has to hide it. The body
 * carries the relying party id, which the page's passkey signals name.
 */
async function accountHtml({ signUp, rpId }: AccountPageOptions): Promise<string> {
  const html = (await asset('account.html')).replace(
    '<body>',
    `<body data-rp-id="${attribute(rpId)}">`,
  );
  return signUp === 'closed' ? html.replace(SIGN_UP_FORM, '') : html;
}

export interface AccountPageOptions {
  signUp: 'open' | 'verify' | 'closed';
  rpId: string;
}

function page(body: string, contentType: string) {
  return new Response(body, {
    headers: {
      'content-type': contentType,
      'content-security-policy': ACCOUNT_PAGE_CSP,
      'cache-control': 'no-cache',
    },
  });
}

const tags = ['Account page'];

/** GET /account: sign up, sign in (password or passkey) and manage passkeys in a browser. */
export const accountPage = (options: AccountPageOptions) =>
  new Elysia({ name: 'account-page' })
    .get('/account', async () => page(await accountHtml(options), 'text/html; charset=utf-8'), {
      detail: {
        operationId: 'getAccountPage',
        summary: 'The browser account page (HTML; no sign-up form when closed)',
        tags,
        responses: {
          200: {
            description: 'The page',
            content: { 'text/html': { schema: { type: 'string' } } },
          },
        },
      },
    })
    .get(
      '/account/app.css',
      async () => page(await asset('account.css'), 'text/css; charset=utf-8'),
      {
        detail: { summary: 'Style sheet of the account page', tags },
      },
    )
    .get(
      '/account/data.css',
      async () => page(await asset('console/data.css'), 'text/css; charset=utf-8'),
      {
        detail: {
          summary: 'Style sheet of the "My properties" view (shared with the console)',
          tags,
        },
      },
    )
    .get(
      '/account/uplot.css',
      async () => page(await asset('uplot.css'), 'text/css; charset=utf-8'),
      { detail: { summary: "Style sheet of the account page's plot (uPlot)", tags } },
    )
    .get(
      '/account/app.js',
      async () => page(await asset('app.js'), 'text/javascript; charset=utf-8'),
      { detail: { summary: 'Script of the account page (bundled on first request)', tags } },
    );
