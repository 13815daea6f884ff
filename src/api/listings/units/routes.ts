import { Elysia } from 'elysia';
import type { ApiDeps } from '@/api/deps';
import { searchOf } from '@/api/request/url';
import { whenReady } from '@/kernel/maybe-promise';
import { halCollection, halCollectionSchema, pagingOf } from '@/listings/paging';
import { PropertyIdParams } from '@/listings/properties/schemas';
import { Unit, UnitCreate, UnitListQuery, UnitParams, UnitPatch } from '@/listings/units/schemas';
import { type QueryRouteContext, routeQuery } from '../../request/query';
import { requires } from '../guard';
import { Created, created, NoBody, noContent, problems } from '../schemas';

const tags = ['Listings: units'];
const unitListQuery = routeQuery(UnitListQuery);
export const UnitList = halCollectionSchema('svc:units', Unit);

/** The unit endpoints: list, create, read, change and soft-delete the units of a property. */
export const unitRoutes = ({
  stores: { listings },
  clock,
  config,
  auth,
  idempotency,
  writes,
}: ApiDeps) => {
  return new Elysia({ name: 'listings-units' })
    .use(auth)
    .use(writes)
    .use(idempotency)
    .get(
      '/properties/:id/units',
      unitListQuery.handle(
        (query, { params, request, caller }: QueryRouteContext<{ id: string }>) => {
          const paging = pagingOf(query);
          const includeDeleted = query.includeDeleted === 'true';
          const path = `/listings/properties/${encodeURIComponent(params.id)}/units`;
          return whenReady(
            listings.listUnits(params.id, caller, includeDeleted, paging),
            ({ total, units }) =>
              halCollection(path, searchOf(request.url), paging, total, 'svc:units', units),
          );
        },
      ),
      {
        ...requires.any,
        params: PropertyIdParams,
        query: unitListQuery.documented,
        response: { 200: UnitList, ...problems(400, 401, 404) },
        detail: { operationId: 'listUnits', summary: 'List the units of a property', tags },
      },
    )
    .post(
      '/properties/:id/units',
      ({ params, body, caller, set }) => {
        const quota = config.quotas.unitsPerProperty;
        return whenReady(listings.addUnit(params.id, caller, body, clock(), quota), (unitId) =>
          created(set, `/listings/properties/${params.id}/units/${unitId}`),
        );
      },
      {
        ...requires.any,
        writes: 1,
        idempotent: true,
        params: PropertyIdParams,
        parse: 'json',
        body: UnitCreate,
        response: { 201: Created, ...problems(400, 401, 404, 409) },
        detail: {
          operationId: 'createUnit',
          summary: 'Add a unit (409 past 30 units or on an archived property)',
          tags,
        },
      },
    )
    .get(
      '/properties/:id/units/:unitId',
      ({ params, caller }) => listings.getUnit(params.id, params.unitId, caller),
      {
        ...requires.any,
        params: UnitParams,
        response: { 200: Unit, ...problems(401, 404) },
        detail: { operationId: 'getUnit', summary: 'Read a unit', tags },
      },
    )
    .patch(
      '/properties/:id/units/:unitId',
      ({ params, body, caller, set }) => {
        return whenReady(listings.patchUnit(params.id, params.unitId, caller, body, clock()), () =>
          noContent(set),
        );
      },
      {
        ...requires.any,
        writes: 1,
        params: UnitParams,
        parse: 'json',
        body: UnitPatch,
        response: { 204: NoBody, ...problems(400, 401, 404, 409) },
        detail: {
          operationId: 'updateUnit',
          summary:
            'Change a unit (409 publishing a non-rentable unit, deleted unit, archived property)',
          tags,
        },
      },
    )
    .delete(
      '/properties/:id/units/:unitId',
      ({ params, caller, set }) => {
        return whenReady(listings.deleteUnit(params.id, params.unitId, caller, clock()), () =>
          noContent(set),
        );
      },
      {
        ...requires.any,
        writes: 1,
        params: UnitParams,
        response: { 204: NoBody, ...problems(401, 404, 409) },
        detail: {
          operationId: 'deleteUnit',
          summary: 'Delete a unit (soft; 409 for the last unit)',
          tags,
        },
      },
    );
};
