import type { Transport } from './http.js';

/** The listings' HAL page (as GET /properties answers): `count`, `total`, `_links`, `_embedded`. */
export interface HalPage<T> {
  count: number;
  total: number;
  _links: { next?: { href: string } };
  _embedded?: { [key: string]: T[] | undefined };
}

/** The customer API's envelope: `pagination` and `data`. */
export interface EnvelopePage<T> {
  pagination: { current_page: number; last_page: number };
  data: T[];
}

/**
 * Every page of a HAL list, following `_links.next` (an absolute path that
 * keeps the filters and `itemsPerPage`) until the service gives none.
 */
export async function* halPages<P extends HalPage<unknown>>(
  transport: Transport,
  path: string,
  query: object | undefined,
  signal?: AbortSignal,
): AsyncGenerator<P> {
  let page = await transport.json<P>('GET', path, { query, signal });
  const seen = new Set<string>();
  for (;;) {
    yield page;
    const next = page._links.next?.href;
    if (next === undefined || seen.has(next)) return;
    seen.add(next);
    page = await transport.json<P>('GET', next, { signal });
  }
}

/** Every item of a HAL list, page after page (`key` names the `_embedded` array). */
export async function* halItems<T>(
  pages: AsyncIterable<HalPage<T>>,
  key: string,
): AsyncGenerator<T> {
  for await (const page of pages) yield* page._embedded?.[key] ?? [];
}

/**
 * Every page of an envelope list from `page` on, until `current_page` reaches
 * `last_page`. A documented no-results answer (200 or 404 with an empty
 * `data`) is one empty page.
 */
export async function* envelopePages<P extends EnvelopePage<unknown>>(
  fetchPage: (page: number) => Promise<P>,
  firstPage = 1,
): AsyncGenerator<P> {
  for (let number = firstPage; ; number++) {
    const page = await fetchPage(number);
    yield page;
    if (page.data.length === 0 || page.pagination.current_page >= page.pagination.last_page) return;
  }
}

/** Every item of an envelope list. */
export async function* envelopeItems<T>(pages: AsyncIterable<EnvelopePage<T>>): AsyncGenerator<T> {
  for await (const page of pages) yield* page.data;
}
