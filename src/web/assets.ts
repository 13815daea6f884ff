import { join } from 'node:path';
import { embedded } from '@/kernel/embedded';
import manifest from './page-assets.json';

/**
 * Where each file of a browser page comes from (page-assets.json, which
 * scripts/build.ts reads too): a file of src/web, a script bundled from
 * src/web for the browser, or a file of an installed package.
 */
export type AssetSource = { file: string } | { bundle: string } | { package: string };
export type PageName = keyof typeof manifest;

const web = import.meta.dir;

/** One asset's text made from its source (what the single-file build embeds ahead of time). */
export async function produceAsset(source: AssetSource, root = web): Promise<string> {
  if ('file' in source) return Bun.file(join(root, source.file)).text();
  if ('package' in source) return Bun.file(Bun.resolveSync(source.package, root)).text();
  const result = await Bun.build({
    entrypoints: [join(root, source.bundle)],
    target: 'browser',
    format: 'esm',
    minify: true,
  });
  const output = result.outputs[0];
  if (!result.success || !output) {
    throw new AggregateError(result.logs, `${source.bundle} did not build for the browser`);
  }
  return output.text();
}

/**
 * The assets of one page by name: embedded in a single-file build, else
 * made on first request and kept in memory; a failure is retried on the
 * next request rather than cached. Undefined for a name the page lacks.
 */
export function pageAssets(page: PageName): (name: string) => Promise<string> | undefined {
  const sources: Record<string, AssetSource> = manifest[page];
  const made = new Map<string, Promise<string>>();
  return (name) => {
    let text = made.get(name);
    if (text) return text;
    const source = Object.hasOwn(sources, name) ? sources[name] : undefined;
    if (!source) return undefined;
    const built = embedded.pageAssets?.[page]?.[name];
    text = built !== undefined ? Promise.resolve(built) : produceAsset(source);
    text.catch(() => made.delete(name));
    made.set(name, text);
    return text;
  };
}

const TYPES: Record<string, string> = {
  html: 'text/html; charset=utf-8',
  css: 'text/css; charset=utf-8',
  js: 'text/javascript; charset=utf-8',
  svg: 'image/svg+xml',
};

/**
 * An asset's answer with its page's policy; a page's files are revalidated
 * (`no-cache`) unless `cacheControl` says otherwise (the favicon).
 */
export function assetResponse(
  name: string,
  body: string,
  csp: string,
  cacheControl = 'no-cache',
): Response {
  return new Response(body, {
    headers: {
      'content-type': TYPES[name.slice(name.lastIndexOf('.') + 1)] ?? 'application/octet-stream',
      'content-security-policy': csp,
      'cache-control': cacheControl,
    },
  });
}
