import type { CallOptions, Transport } from './http.js';
import type { Event, EventPage, EventQuery } from './types.js';

const PATH = '/listings/events';
/** Seconds the service holds an empty long poll open (`wait`). */
export const WAIT = 30;

export interface EventFollowOptions extends Omit<EventQuery, 'wait'>, CallOptions {
  /**
   * Keep going once caught up: long-poll (`wait=30`; the timeout runs from the end of the wait) for the next events
   * instead of ending. Stop with `signal` or by leaving the loop.
   */
  follow?: boolean;
}

/** The change feed (GET /listings/events). */
export function eventsApi(http: Transport) {
  /** One page after `query.after`: `{data, next_cursor, has_more}`. */
  const list = (query?: EventQuery, options?: CallOptions) =>
    http.json<EventPage>('GET', PATH, { ...options, query });

  /**
   * Every event after `after` (a cursor saved from an earlier event's `id`),
   * page after page, in commit order. Save each event's `id` once handled:
   * passing it as `after` later resumes right after it, even across restarts
   * of either side. Ends when caught up, unless `follow`.
   */
  async function* all(options: EventFollowOptions = {}): AsyncGenerator<Event> {
    const { follow, signal, headers, retry, timeoutMs, after, ...query } = options;
    const call = { signal, headers, retry, timeoutMs };
    // The service holds a long poll open up to WAIT s: the timeout starts after it.
    const longPoll = { ...call, timeoutMs: http.longPollTimeout(WAIT, timeoutMs) };
    let cursor = after;
    for (;;) {
      const page = await list({ ...query, ...(cursor ? { after: cursor } : {}) }, call);
      yield* page.data;
      cursor = page.next_cursor ?? cursor;
      if (page.has_more) continue;
      if (!follow || signal?.aborted) return;
      const next = await list(
        { ...query, ...(cursor ? { after: cursor } : {}), wait: WAIT },
        longPoll,
      );
      yield* next.data;
      cursor = next.next_cursor ?? cursor;
    }
  }

  return { list, all };
}
