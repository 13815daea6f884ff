import type { ReadCache } from '@/db/read-cache';
import { etagOfText } from '@/kernel/etag';
import { type MaybePromise, whenReady } from '@/kernel/maybe-promise';
import { type Utf8, utf8 } from '@/kernel/utf8';
import { type PropertyRecord, toProperty } from '@/listings/properties/representation';
import type { ListingsStore } from '@/listings/store';

/** A property's representation serialised once (UTF-8), with its ETag and the owner it is scoped by. */
export interface PropertyRead {
  body: Utf8;
  etag: string;
  ownerId: string;
  /** Archived: not shown to anonymous readers (`canSee`). */
  archived: boolean;
}

/**
 * About what a cached read holds besides its JSON bytes: its ETag and owner,
 * the objects around them, its key and tags in the cache, with the heap's
 * slack (measured: bench/memory-probe.ts).
 */
const READ_OVERHEAD = 1500;

/**
 * GET /properties/{id} without the query and serialisation while the row is
 * unchanged: the read is tagged with the property's id, which every write
 * to that row touches (a unit write rewrites the row's counters), whoever
 * makes it and on whichever instance. A read is what a fresh query would
 * give (docs/performance.md). A missing property is not remembered.
 */
export function readProperty(
  store: ListingsStore,
  cache: ReadCache,
  id: string,
): MaybePromise<PropertyRead | null> {
  return cache.answer<PropertyRead | null>(`p:${id}`, () =>
    whenReady(store.propertyById(id), (row) => {
      const loaded = readOf(row);
      const size = loaded ? loaded.body.byteLength + READ_OVERHEAD : 0;
      return { value: loaded, size, tags: [`p:${id}`], keep: loaded !== null, cheap: true };
    }),
  );
}

function readOf(row: PropertyRecord | null): PropertyRead | null {
  if (!row) return null;
  const json = JSON.stringify(toProperty(row));
  return {
    body: utf8(json),
    etag: etagOfText(json),
    ownerId: row.owner_id,
    archived: row.archived === 1,
  };
}
