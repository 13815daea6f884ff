import type { EventPage } from '@/events/schemas';
import type { TestContext } from '../support/harness';

/** Reads the feed once with a raw query string; the body typed as the page. */
export const readFeed = (ctx: Pick<TestContext, 'request'>, token: string, query = '') =>
  ctx.request<EventPage>('GET', `/listings/events${query}`, { token });

/** Every event after `after`, following `next_cursor` page by page. */
export async function readAll(
  ctx: Pick<TestContext, 'request'>,
  token: string,
  after?: string,
  limit = 500,
) {
  const events: EventPage['data'] = [];
  let cursor = after;
  for (;;) {
    const query = `?limit=${limit}${cursor ? `&after=${cursor}` : ''}`;
    const res = await readFeed(ctx, token, query);
    if (res.status !== 200) throw new Error(`feed answered ${res.status}: ${res.text}`);
    events.push(...res.body.data);
    cursor = res.body.next_cursor ?? undefined;
    if (!res.body.has_more) return { events, cursor };
  }
}
