/** Longer URLs (mostly query strings) are refused with 414 before any parsing. */
export const MAX_URL_LENGTH = 8192;
/** The query string of a request URL, with its `?`; '' when there is none. */
export function searchOf(url: string): string {
  const start = url.indexOf('?');
  return start === -1 ? '' : url.slice(start);
}

/** The path of an absolute request URL, without parsing the whole URL. */
export function pathOf(url: string): string {
  const start = url.indexOf('/', url.indexOf('//') + 2);
  if (start < 0) return '/';
  const query = url.indexOf('?', start);
  return url.slice(start, query < 0 ? undefined : query);
}
