import { Elysia } from 'elysia';
import type { ApiDeps } from '@/api/deps';
import { requires } from '@/api/listings/guard';
import { problems } from '@/api/listings/schemas';
import { allowSilence } from '@/api/request/peer';
import { routeQuery } from '@/api/request/query';
import { EventPage, EventQuery } from '@/events/schemas';

const tags = ['Listings: events'];
const eventQuery = routeQuery(EventQuery);
/** A long poll's socket may stay silent its wait and this much more (a slow read of the answer). */
const LONG_POLL_MARGIN_SECONDS = 10;

/** The change feed (docs/events-and-webhooks.md): a customer's own properties, an employee's all. */
export const eventRoutes = ({ stores: { events }, feedWaits, auth, config }: ApiDeps) =>
  new Elysia({ name: 'listings-events' }).use(auth).get(
    '/events',
    eventQuery.handle(async (query, { request, caller }) => {
      if (query.wait === undefined) return events.readEvents(caller, query);
      // A long poll outlives the server's idle timeout (IDLE_TIMEOUT_SECONDS) unless told
      // otherwise; once answered, the connection is held to that timeout again.
      allowSilence(request, query.wait + LONG_POLL_MARGIN_SECONDS);
      try {
        return await feedWaits.wait(caller, query, request.signal);
      } finally {
        allowSilence(request, config.idleTimeoutSeconds);
      }
    }),
    {
      ...requires.any,
      query: eventQuery.documented,
      response: { 200: EventPage, ...problems(400, 401, 410, 429) },
      detail: {
        operationId: 'listEvents',
        summary: 'Read the change feed after a cursor',
        description:
          'Events in commit order after `after` (keyset: pass `next_cursor` back). `wait=1..30` holds an empty answer open until an event arrives. A cursor whose successors were pruned (older than EVENTS_RETENTION_DAYS) answers 410. Long polls open at once are capped per caller (EVENTS_LONG_POLLS_PER_CALLER) and in all (EVENTS_LONG_POLLS_TOTAL): past either, 429 with Retry-After.',
        tags,
      },
    },
  );
