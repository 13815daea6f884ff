import { ProblemError } from './errors.js';
import { WAIT } from './events.js';
import type { Transport } from './http.js';
import type {
  Event,
  EventPage,
  EventType,
  Property,
  PropertyKeysetPage,
  PropertyListQuery,
  UnitEventData,
} from './types.js';

/** Filters a mirror may keep to: any list filter but ids, paging and sort. */
export type MirrorFilters = Omit<
  PropertyListQuery,
  'id' | 'ids' | 'sort' | 'page' | 'itemsPerPage' | 'paging' | 'cursor' | 'total'
>;

export interface MirrorOptions {
  /**
   * A `cursor` saved from an earlier batch: resume following the feed from
   * it instead of listing first (after a restart, with the mirror kept).
   */
  after?: string;
  /** Keep going once caught up: long-poll the feed (`wait=30`) until `signal` aborts. */
  follow?: boolean;
  signal?: AbortSignal;
  /** Properties per list page (1..100, default 100). */
  itemsPerPage?: number;
}

/** One step of a mirror: apply it, then save `cursor` when it is not null. */
export interface MirrorBatch {
  /** True on the first batch of a listing: forget every property held before applying this one. */
  reset: boolean;
  /** Properties to store, each replacing the one of its id. */
  upserts: Property[];
  /** Ids of properties to forget (deleted from view: moved to another owner, out of the filters). */
  removals: string[];
  /**
   * The feed cursor the mirror stands at after this batch: pass it as
   * `after` to resume. Null while a listing is under way (a restart then lists again).
   */
  cursor: string | null;
}

/** The events that change a property as a list shows it. */
const PROPERTY_EVENTS: EventType[] = [
  'property.created',
  'property.location_changed',
  'property.neighbourhood_changed',
  'property.information_changed',
  'property.archived',
  'property.unarchived',
  'property.converted',
  'property.owner_changed',
  'unit.created',
  'unit.updated',
  'unit.deleted',
];

const PATH = '/listings/properties';
const IDS_PER_READ = 100;

/**
 * `client.listings.mirror(filters)`: the listings the caller may see,
 * kept exact. Lists every page in keyset order, then follows the change
 * feed from the FIRST page's `feedCursor` (docs/mirroring.md says why that
 * is exact); a feed answering 410 (the cursor outlived the feed's retention)
 * lists again by itself. Requests go through the client's transport, so they
 * are retried and timed out as every other call.
 */
export async function* mirrorListings(
  http: Transport,
  filters: MirrorFilters = {},
  options: MirrorOptions = {},
): AsyncGenerator<MirrorBatch> {
  const { signal, follow } = options;
  const itemsPerPage = options.itemsPerPage ?? 100;
  const filtered = Object.values(filters).some((value) => value !== undefined);
  let cursor = options.after ?? null;
  for (;;) {
    if (cursor === null) cursor = yield* listAll();
    try {
      cursor = yield* followFeed(cursor);
      return;
    } catch (error) {
      if (!(error instanceof ProblemError && error.status === 410)) throw error;
      cursor = null;
    }
  }

  /** Every page, in batches; answers the first page's feed cursor. */
  async function* listAll(): AsyncGenerator<MirrorBatch, string> {
    const query = { ...filters, paging: 'keyset', itemsPerPage };
    let page = await http.json<PropertyKeysetPage>('GET', PATH, { query, signal });
    const start = page.feedCursor;
    let reset = true;
    for (;;) {
      const next = page._links.next?.href;
      const upserts = page._embedded['svc:properties'];
      yield { reset, upserts, removals: [], cursor: next === undefined ? start : null };
      reset = false;
      if (next === undefined) return start;
      page = await http.json<PropertyKeysetPage>('GET', next, { signal });
    }
  }

  /** Follows the feed from `after`, a batch per answer; answers the cursor it stopped at. */
  async function* followFeed(after: string): AsyncGenerator<MirrorBatch, string> {
    let cursor = after;
    for (;;) {
      const query = { after: cursor, types: PROPERTY_EVENTS, limit: 500 };
      let page = await http.json<EventPage>('GET', '/listings/events', { query, signal });
      if (page.data.length === 0 && !page.has_more) {
        if (!follow || signal?.aborted) return cursor;
        page = await http.json<EventPage>('GET', '/listings/events', {
          query: { ...query, wait: WAIT },
          signal,
          // The service holds the poll open up to WAIT s: the timeout starts after it.
          timeoutMs: http.longPollTimeout(WAIT),
        });
      }
      cursor = page.next_cursor ?? cursor;
      if (page.data.length > 0) yield { reset: false, ...(await changesOf(page.data)), cursor };
    }
  }

  /**
   * What a run of events does to the mirror. A property event's data is the
   * property as it then was, or `{id}` alone when it left the caller's view
   * (an owner change, told to the previous owner). A unit event changes the
   * property's counters, and with filters any change may move a property in
   * or out of them: those properties are read again, in the filters, after
   * the run, so the batch ends at least as new as its last event.
   */
  async function changesOf(events: Event[]) {
    const held = new Map<string, Property | null>();
    const reread = new Set<string>();
    for (const event of events) {
      const data = event.data as Partial<Property>;
      if (event.resource.kind === 'unit') reread.add((event.data as UnitEventData).propertyId);
      else if (Object.keys(data).length === 1) held.set(event.resource.id, null);
      else if (filtered) reread.add(event.resource.id);
      else held.set(event.resource.id, data as Property);
    }
    const ids = [...reread];
    for (let i = 0; i < ids.length; i += IDS_PER_READ) {
      const chunk = ids.slice(i, i + IDS_PER_READ);
      const query = { ...filters, ids: chunk, itemsPerPage: IDS_PER_READ, paging: 'keyset' };
      const page = await http.json<PropertyKeysetPage>('GET', PATH, { query, signal });
      const found = new Map(page._embedded['svc:properties'].map((p) => [p.id, p]));
      for (const id of chunk) held.set(id, found.get(id) ?? null);
    }
    const upserts: Property[] = [];
    const removals: string[] = [];
    for (const [id, property] of held) {
      if (property) upserts.push(property);
      else removals.push(id);
    }
    return { upserts, removals };
  }
}
