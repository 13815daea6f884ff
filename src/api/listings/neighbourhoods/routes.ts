import { Elysia } from 'elysia';
import type { ApiDeps } from '@/api/deps';
import { routeQuery } from '@/api/request/query';
import { fail } from '@/kernel/errors';
import { whenReady } from '@/kernel/maybe-promise';
import { neighbourhoodETag } from '@/listings/neighbourhoods/operations';
import {
  Neighbourhood,
  NeighbourhoodBody,
  NeighbourhoodList,
  NeighbourhoodParams,
  NeighbourhoodQuery,
} from '@/listings/neighbourhoods/schemas';
import { ifMatchHeaders, withETag } from '../../docs/headers';
import { requires } from '../guard';
import { NoBody, noContent, problems } from '../schemas';

const tags = ['Listings: neighbourhoods'];
const neighbourhoodQuery = routeQuery(NeighbourhoodQuery);
const notFoundDetail = (id: string) => `Neighbourhood "${id}" was not found`;

/** The neighbourhood catalogue `{id, cityId, name}`: anyone with a token reads, employees write. */
export const neighbourhoodRoutes = ({ stores: { listings }, clock, auth, writes }: ApiDeps) => {
  return new Elysia({ name: 'listings-neighbourhoods' })
    .use(auth)
    .use(writes)
    .get(
      '/neighbourhoods',
      neighbourhoodQuery.handle(({ cityId }) =>
        whenReady(listings.listNeighbourhoods(cityId), (neighbourhoods) => ({ neighbourhoods })),
      ),
      {
        ...requires.any,
        query: neighbourhoodQuery.documented,
        response: { 200: NeighbourhoodList, ...problems(400, 401) },
        detail: {
          operationId: 'listNeighbourhoods',
          summary: 'List the neighbourhood catalogue',
          tags,
        },
      },
    )
    .get(
      '/neighbourhoods/:id',
      ({ params: { id }, set }) =>
        whenReady(listings.neighbourhood(id), (entry) => {
          if (!entry) throw fail('neighbourhood.not_found', { detail: notFoundDetail(id) });
          // The tag a PUT's If-Match names: an editor holds it from the moment it opens the entry.
          set.headers.etag = neighbourhoodETag(entry);
          return entry;
        }),
      {
        ...requires.any,
        params: NeighbourhoodParams,
        response: { 200: withETag(Neighbourhood), ...problems(400, 401, 404) },
        detail: {
          operationId: 'getNeighbourhood',
          summary: 'Read one neighbourhood',
          description: 'Carries the ETag a PUT of the entry takes as If-Match.',
          tags,
        },
      },
    )
    .put(
      '/neighbourhoods/:id',
      ({ params, body, headers, set }) => {
        const put = listings.putNeighbourhood(params.id, body, clock(), headers['if-match']);
        return whenReady(put, () => {
          // The entry's tag as the list will show it, for the next write's If-Match.
          set.headers.etag = neighbourhoodETag({ id: params.id, ...body });
          return noContent(set);
        });
      },
      {
        ...requires.employee,
        writes: 1,
        params: NeighbourhoodParams,
        headers: ifMatchHeaders(
          'the entry as GET /listings/neighbourhoods lists it (as PUT answers it)',
        ),
        parse: 'json',
        body: NeighbourhoodBody,
        response: { 204: withETag(NoBody), ...problems(400, 401, 403, 409, 412) },
        detail: {
          operationId: 'putNeighbourhood',
          summary: 'Create or replace a neighbourhood (employees)',
          description:
            'Honours If-Match with the ETag of the entry (or *): 412 when it has changed since, or when there is none.',
          tags,
        },
      },
    );
};
