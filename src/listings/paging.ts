import { z } from 'zod';
import { integerText } from '@/kernel/query';

export const DEFAULT_ITEMS_PER_PAGE = 30;
export const MAX_ITEMS_PER_PAGE = 100;

/** The highest page number: nine digits. */
export const MAX_PAGE = 999_999_999;

/** `page` ≥ 1 and `itemsPerPage` 1..100, as digits (docs/listings.md); documented as integers. */
export const pagingFields = {
  page: integerText(/^[1-9]\d{0,8}$/, z.int().min(1).max(MAX_PAGE))
    .optional()
    .describe('Page number, from 1 (default 1)'),
  itemsPerPage: integerText(
    /^(100|[1-9]\d?)$/,
    z.int().min(1).max(MAX_ITEMS_PER_PAGE),
    `Page size (default ${DEFAULT_ITEMS_PER_PAGE})`,
  )
    .optional()
    .describe(`Page size, 1..${MAX_ITEMS_PER_PAGE} (default ${DEFAULT_ITEMS_PER_PAGE})`),
};

export interface Paging {
  page: number;
  itemsPerPage: number;
  offset: number;
}

export function pagingOf(query: { page?: string; itemsPerPage?: string }): Paging {
  const page = query.page ? Number(query.page) : 1;
  const itemsPerPage = query.itemsPerPage ? Number(query.itemsPerPage) : DEFAULT_ITEMS_PER_PAGE;
  return { page, itemsPerPage, offset: (page - 1) * itemsPerPage };
}

export const Link = z.object({ href: z.string() });

/** The HAL envelope of GET /properties, with `key` naming the embedded array. */
export const halCollectionSchema = <K extends string, T extends z.ZodType>(key: K, item: T) =>
  z.object({
    count: z.number().int(),
    total: z.number().int(),
    _links: z.object({
      self: Link,
      first: Link,
      last: Link,
      next: Link.optional(),
      previous: Link.optional(),
    }),
    // Typed by its key (`{"svc:properties": Property[]}`), not as any string.
    _embedded: z.object({ [key]: z.array(item) } as Record<K, z.ZodArray<T>>),
  });

const readable = (text: string) =>
  encodeURIComponent(text).replace(/%5B/g, '[').replace(/%5D/g, ']').replace(/%2C/g, ',');

/** `path?` and every parameter of the request as sent but `replaced`, each followed by `&`. */
function hrefPrefix(path: string, search: string, replaced: string): string {
  let prefix = `${path}?`;
  for (const [key, value] of new URLSearchParams(search)) {
    if (key !== replaced) prefix += `${readable(key)}=${readable(value)}&`;
  }
  return prefix;
}

/**
 * `page => path?…&page=N`: every parameter of the request kept as sent,
 * `page` replaced; the other parameters are encoded once for all the links.
 */
function pageHrefs(path: string, search: string): (page: number) => { href: string } {
  const prefix = hrefPrefix(path, search, 'page');
  return (page) => ({ href: `${prefix}page=${page}` });
}

export interface HalCollection<T, K extends string = string> {
  count: number;
  total: number;
  /** The change feed's cursor of the snapshot the page was read from (property lists). */
  feedCursor?: string;
  _links: {
    self: { href: string };
    first: { href: string };
    last: { href: string };
    next?: { href: string };
    previous?: { href: string };
  };
  _embedded: { [P in K]: T[] };
}

/**
 * Builds the paged answer: `last` is max(1, ceil(total / itemsPerPage)); a
 * page past it is empty, with `previous` pointing at the last page.
 */
export function halCollection<T, K extends string>(
  path: string,
  search: string,
  paging: Paging,
  total: number,
  key: K,
  items: T[],
  feedCursor?: string,
): HalCollection<T, K> {
  const href = pageHrefs(path, search);
  const last = Math.max(1, Math.ceil(total / paging.itemsPerPage));
  const { page } = paging;
  return {
    count: items.length,
    total,
    ...(feedCursor === undefined ? {} : { feedCursor }),
    _links: {
      self: href(page),
      first: href(1),
      last: href(last),
      ...(page < last ? { next: href(page + 1) } : {}),
      ...(page > 1 ? { previous: href(Math.min(page - 1, last)) } : {}),
    },
    _embedded: { [key]: items } as { [P in K]: T[] },
  };
}

/** A keyset page: no page numbers, `total` only when asked for, `next` while more may follow. */
export interface KeysetCollection<T, K extends string = string> {
  count: number;
  total?: number;
  feedCursor: string;
  _links: { self: { href: string }; first: { href: string }; next?: { href: string } };
  _embedded: { [P in K]: T[] };
}

/**
 * Builds a keyset page: `self` repeats the request as sent, `first` drops
 * its `cursor`, `next` (when more items may follow) carries `next`.
 */
export function keysetCollection<T, K extends string>(
  path: string,
  search: string,
  page: { total: number | null; feedCursor: string; next: string | null },
  key: K,
  items: T[],
): KeysetCollection<T, K> {
  const prefix = hrefPrefix(path, search, 'cursor');
  const self = new URLSearchParams(search).get('cursor');
  const at = (cursor: string | null) => ({
    href: cursor === null ? prefix.slice(0, -1) : `${prefix}cursor=${cursor}`,
  });
  return {
    count: items.length,
    ...(page.total === null ? {} : { total: page.total }),
    feedCursor: page.feedCursor,
    _links: {
      self: at(self),
      first: at(null),
      ...(page.next === null ? {} : { next: at(page.next) }),
    },
    _embedded: { [key]: items } as { [P in K]: T[] },
  };
}
