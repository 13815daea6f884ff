/** Longer URLs (mostly query strings) are refused with 414 before any parsing. */
export const MAX_URL_LENGTH = 8192;
/** The query string of a request URL, with its `?`; '' when there is none. */
export function searchOf(url: string): string {
  const start = url.indexOf('?');
  return start === -1 ? '' : url.slice(start);
}

/**
 * The path the router matches: Elysia (1.4, `standardHostname` on) takes the
 * text from the first `/` at or after character 11 of the URL up to the
 * next `?`, without parsing the URL. Every decision taken outside the router
 * (rate limits, error format, fast lane, logs) uses this same rule, so none
 * of them can look at one path while the router serves another.
 */
export function pathOf(url: string): string {
  const start = url.indexOf('/', 11);
  const query = url.indexOf('?', start + 1);
  return url.substring(start, query === -1 ? undefined : query);
}

/**
 * Whether `pathOf` finds the URL's real path (`new URL(url).pathname`): an
 * absolute http(s) URL whose host (and port) ends at or after character 11,
 * without a fragment. Bun builds `request.url` from the Host header, so a
 * short one (`Host: a` → `http://a/xy/api/v1/…`, where the router would see
 * `/api/v1/…`), an empty or missing one (a relative URL) or a fragment makes
 * the two differ; such requests are refused before anything reads the path.
 */
export function routesAsWritten(url: string): boolean {
  const authority = url.startsWith('http://') ? 7 : url.startsWith('https://') ? 8 : -1;
  return authority > 0 && url.indexOf('/', authority) >= 11 && !url.includes('#');
}
