import { Elysia } from 'elysia';
import type { ApiDeps } from '@/api/deps';
import { searchOf } from '@/api/request/url';
import { waitForEvents } from '@/events/feed';
import { EventPage, EventQuery } from '@/events/schemas';
import { parseListQuery } from '@/listings/query';
import { documentedQuery } from '../../validation';
import { requires } from '../guard';
import { problems } from '../schemas';

const tags = ['Listings: events'];
const QUERY_SHAPE = { scalars: ['after', 'limit', 'wait'], arrays: ['types'] };

/** The change feed (docs/events-and-webhooks.md): a customer's own properties, an employee's all. */
export const eventRoutes = ({ events, auth }: ApiDeps) =>
  new Elysia({ name: 'listings-events' }).use(auth).get(
    '/events',
    async ({ request, caller, server }) => {
      const query = parseListQuery(searchOf(request.url), QUERY_SHAPE, EventQuery);
      // A long poll outlives Bun's idle timeout (10 s) unless told otherwise.
      if (query.wait !== undefined) server?.timeout(request, query.wait + 10);
      return waitForEvents(events.readEvents, caller, query, request.signal);
    },
    {
      ...requires.any,
      query: documentedQuery(EventQuery),
      response: { 200: EventPage, ...problems(400, 401, 410) },
      detail: {
        operationId: 'listEvents',
        summary: 'Read the change feed after a cursor',
        description:
          'Events in commit order after `after` (keyset: pass `next_cursor` back). `wait=1..30` holds an empty answer open until an event arrives. A cursor whose successors were pruned (older than EVENTS_RETENTION_DAYS) answers 410.',
        tags,
      },
    },
  );
