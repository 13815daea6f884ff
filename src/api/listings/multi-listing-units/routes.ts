import { Elysia } from 'elysia';
import type { ApiDeps } from '@/api/deps';
import { searchOf } from '@/api/request/url';
import { whenReady } from '@/kernel/maybe-promise';
import { scopeOf } from '@/listings/access';
import { getCounter, setCounter } from '@/listings/multi-listing-units/operations';
import {
  CounterBody,
  MultiListingUnit,
  MultiListingUnitList,
  MultiListingUnitParams,
  MultiListingUnitQuery,
} from '@/listings/multi-listing-units/schemas';
import { halCollection, pagingOf } from '@/listings/paging';
import { routeQuery } from '../../request/query';
import { requires } from '../guard';
import { NoBody, noContent, problems } from '../schemas';

const tags = ['Listings: multi-listing units'];
const counterQuery = routeQuery(MultiListingUnitQuery);

/** Multi-listing unit counters, paged like the property list, with an `ids` filter. */
export const multiListingUnitRoutes = ({ stores: { listings }, clock, auth, writes }: ApiDeps) => {
  return new Elysia({ name: 'listings-multi-listing-units' })
    .use(auth)
    .use(writes)
    .get(
      '/multi-listing-units',
      counterQuery.handle((query, { request, caller }) => {
        const paging = pagingOf(query);
        return whenReady(listings.listCounters(query, scopeOf(caller), paging), ({ total, rows }) =>
          halCollection(
            '/listings/multi-listing-units',
            searchOf(request.url),
            paging,
            total,
            'svc:multi-listing-units',
            rows,
          ),
        );
      }),
      {
        ...requires.any,
        query: counterQuery.documented,
        response: { 200: MultiListingUnitList, ...problems(400, 401) },
        detail: {
          operationId: 'listMultiListingUnits',
          summary: 'List multi-listing unit counters',
          tags,
        },
      },
    )
    .get(
      '/multi-listing-units/:id',
      ({ params, caller }) => listings.readProperty(getCounter(params.id, caller)),
      {
        ...requires.any,
        params: MultiListingUnitParams,
        response: { 200: MultiListingUnit, ...problems(400, 401, 404) },
        detail: {
          operationId: 'getMultiListingUnit',
          summary: 'Read the multi-listing unit counter of a property',
          tags,
        },
      },
    )
    .put(
      '/multi-listing-units/:id',
      ({ params, body, set }) => {
        return whenReady(listings.writeProperty(setCounter(params.id, body.counter, clock())), () =>
          noContent(set),
        );
      },
      {
        ...requires.employee,
        writes: 1,
        params: MultiListingUnitParams,
        parse: 'json',
        body: CounterBody,
        response: { 204: NoBody, ...problems(400, 401, 403, 404) },
        detail: {
          operationId: 'setMultiListingUnit',
          summary: 'Set the multi-listing unit counter (employees)',
          tags,
        },
      },
    );
};
