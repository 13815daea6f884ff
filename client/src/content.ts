import type { CallOptions, ConditionalReadOptions, Transport } from './http.js';
import { conditional, segment } from './http.js';
import type { StaticPage, StaticPageInput, StaticPageList } from './types.js';

const BASE = '/content/static-pages';

export interface PageReadOptions extends CallOptions {
  /** `?language=`; without it the service uses Accept-Language, then `en`, then any. */
  language?: string;
  acceptLanguage?: string;
}

export interface ConditionalOptions extends PageReadOptions, ConditionalReadOptions {}

const callOptionsOf = ({ signal, retry, timeoutMs }: CallOptions): CallOptions => ({
  signal,
  retry,
  timeoutMs,
});

const readHeaders = (options: ConditionalOptions = {}) => ({
  ...options.headers,
  ...(options.acceptLanguage ? { 'accept-language': options.acceptLanguage } : {}),
  ...(options.ifNoneMatch ? { 'if-none-match': options.ifNoneMatch } : {}),
});

/** The static pages API (/content): the public reads and the employees' writes. */
export function staticPagesApi(http: Transport) {
  const read = (slug: string, options: ConditionalOptions = {}) =>
    http.request<StaticPage>('GET', `${BASE}/${segment(slug)}`, {
      ...callOptionsOf(options),
      headers: readHeaders(options),
      query: { language: options.language },
    });
  const readList = (options: ConditionalOptions = {}) =>
    http.request<StaticPageList>('GET', `${BASE}/`, {
      ...callOptionsOf(options),
      headers: readHeaders(options),
    });

  return {
    /** Published pages `[{id, slug, locale, group}]` by id. */
    list: async (options?: CallOptions) => (await readList(options)).body,
    listIfChanged: async (options?: ConditionalOptions) => conditional(await readList(options)),
    get: async (slug: string, options?: PageReadOptions) => (await read(slug, options)).body,
    getIfChanged: async (slug: string, options?: ConditionalOptions) =>
      conditional(await read(slug, options)),
    /** Creates (201) or replaces (200) one language version (employees). */
    put: async (slug: string, body: StaticPageInput, options?: CallOptions) => {
      const response = await http.request<StaticPage>('PUT', `${BASE}/${segment(slug)}`, {
        ...options,
        body,
      });
      return { created: response.status === 201, page: response.body };
    },
    delete: (slug: string, language: string, options?: CallOptions) =>
      http.send('DELETE', `${BASE}/${segment(slug)}`, { ...options, query: { language } }),
  };
}
