import { Elysia } from 'elysia';
import type { AppDeps } from '@/deps';
import { searchOf } from '../../plugins/request-context';
import { caller } from '../guard';
import { parseListQuery } from '../query';
import { documentedQuery, NoBody, noContent, problems } from '../schemas';
import {
  NeighbourhoodBody,
  NeighbourhoodList,
  NeighbourhoodParams,
  NeighbourhoodQuery,
} from './schemas';
import { listNeighbourhoods, putNeighbourhood } from './service';

const tags = ['Listings: neighbourhoods'];

/** The neighbourhood catalogue `{id, cityId, name}`: anyone with a token reads, employees write. */
export const neighbourhoodRoutes = ({ db, clock, auth }: AppDeps) => {
  return new Elysia({ name: 'listings-neighbourhoods' })
    .use(auth)
    .get(
      '/neighbourhoods',
      ({ request }) => {
        const shape = { scalars: ['cityId'], arrays: [] };
        const query = parseListQuery(searchOf(request.url), shape, NeighbourhoodQuery);
        return { neighbourhoods: listNeighbourhoods(db, query.cityId) };
      },
      {
        ...caller.any,
        query: documentedQuery(NeighbourhoodQuery),
        response: { 200: NeighbourhoodList, ...problems(400, 401) },
        detail: { summary: 'List the neighbourhood catalogue', tags },
      },
    )
    .put(
      '/neighbourhoods/:id',
      ({ params, body, set }) => {
        putNeighbourhood(db, params.id, body, clock());
        return noContent(set);
      },
      {
        ...caller.employee,
        params: NeighbourhoodParams,
        parse: 'json',
        body: NeighbourhoodBody,
        response: { 204: NoBody, ...problems(400, 401, 403, 409) },
        detail: { summary: 'Create or replace a neighbourhood (employees)', tags },
      },
    );
};
