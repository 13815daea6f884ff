import { Elysia } from 'elysia';
import type { ApiDeps } from '@/api/deps';
import { auditContextOf } from '@/api/request/audit';
import type { Caller } from '@/auth/tokens';
import { whenReady } from '@/kernel/maybe-promise';
import type { PropertyWrite } from '@/listings/properties/etag';
import {
  archiveProperty,
  assignNeighbourhood,
  changeInformation,
  changeOwner,
  convertProperty,
  moveProperty,
  unarchiveProperty,
} from '@/listings/properties/operations';
import {
  ArchiveBody,
  ConvertBody,
  InformationBody,
  LocationUpdate,
  NeighbourhoodAssignment,
  OwnerChange,
  PropertyIdParams,
} from '@/listings/properties/schemas';
import { requires } from '../guard';
import { NoBody, noContent, problems } from '../schemas';
import { IfMatchHeaders } from './headers';

const tags = ['Listings: properties'];
const params = PropertyIdParams;
const headers = IfMatchHeaders;
const IF_MATCH =
  'Honours If-Match with the ETag of GET /listings/properties/{id} (or *): 412 when the property has changed since.';

/**
 * The state changes of a property; each answers 204 with no body, or 412
 * when an `If-Match` header names an ETag the property no longer has.
 */
export const propertyUpdateRoutes = (deps: ApiDeps) => {
  const {
    stores: { listings },
    clock,
    auth,
    idempotency,
    config,
    writes,
  } = deps;
  const writeOf = (
    caller: Caller,
    headers: { 'if-match'?: string | undefined },
  ): PropertyWrite => ({ caller: caller, now: clock(), ifMatch: headers['if-match'] });

  return new Elysia({ name: 'listings-property-updates' })
    .use(auth)
    .use(writes)
    .use(idempotency)
    .delete(
      '/properties/:id',
      ({ params, body, caller, headers, set }) => {
        const operation = archiveProperty(params.id, body ?? {}, writeOf(caller, headers));
        return whenReady(listings.writeProperty(operation), () => noContent(set));
      },
      {
        ...requires.any,
        writes: 1,
        params,
        headers,
        parse: 'json',
        body: ArchiveBody,
        response: { 204: NoBody, ...problems(400, 401, 404, 409, 412) },
        detail: {
          description: IF_MATCH,
          operationId: 'archiveProperty',
          summary: 'Archive a property (unpublishes every unit; 409 when already archived)',
          tags,
        },
      },
    )
    .post(
      '/properties/:id/unarchive',
      ({ params, caller, headers, set }) => {
        const operation = unarchiveProperty(params.id, writeOf(caller, headers));
        return whenReady(listings.writeProperty(operation), () => noContent(set));
      },
      {
        ...requires.any,
        writes: 1,
        idempotent: true,
        params,
        headers,
        response: { 204: NoBody, ...problems(401, 404, 409, 412) },
        detail: {
          description: IF_MATCH,
          operationId: 'unarchiveProperty',
          summary: 'Bring an archived property back (409 when not archived)',
          tags,
        },
      },
    )
    .put(
      '/properties/:id/convert',
      ({ params, body, caller, headers, set }) => {
        const operation = convertProperty(params.id, body.type, writeOf(caller, headers));
        return whenReady(listings.writeProperty(operation), () => noContent(set));
      },
      {
        ...requires.any,
        writes: 1,
        params,
        headers,
        parse: 'json',
        body: ConvertBody,
        response: { 204: NoBody, ...problems(400, 401, 404, 409, 412) },
        detail: {
          description: IF_MATCH,
          operationId: 'convertProperty',
          summary: 'Convert a property to another type (409 when archived)',
          tags,
        },
      },
    )
    .put(
      '/properties/:id/location',
      ({ params, body, caller, headers, set }) => {
        const operation = moveProperty(params.id, body, writeOf(caller, headers));
        return whenReady(listings.writeProperty(operation), () => noContent(set));
      },
      {
        ...requires.any,
        writes: 1,
        params,
        headers,
        parse: 'json',
        body: LocationUpdate,
        response: { 204: NoBody, ...problems(400, 401, 404, 412) },
        detail: {
          description: IF_MATCH,
          operationId: 'moveProperty',
          summary: 'Move a property (another cityId drops its neighbourhood)',
          tags,
        },
      },
    )
    .put(
      '/properties/:id/neighbourhood',
      ({ params, body, caller, headers, set }) => {
        const operation = assignNeighbourhood(
          params.id,
          body.neighbourhoodId,
          writeOf(caller, headers),
        );
        return whenReady(listings.writeProperty(operation), () => noContent(set));
      },
      {
        ...requires.any,
        writes: 1,
        params,
        headers,
        parse: 'json',
        body: NeighbourhoodAssignment,
        response: { 204: NoBody, ...problems(400, 401, 404, 409, 412) },
        detail: {
          description: IF_MATCH,
          operationId: 'assignNeighbourhood',
          summary:
            'Assign a neighbourhood of the property’s city (409 unknown, other city, archived)',
          tags,
        },
      },
    )
    .put(
      '/properties/:id/owner',
      ({ params, body, caller, headers, request, set }) => {
        const write = writeOf(caller, headers);
        const audit = auditContextOf(request, config, write.now, caller.sub);
        const change = changeOwner(params.id, body.ownerId, { ...write, audit });
        return whenReady(listings.writeProperty(change), () => noContent(set));
      },
      {
        ...requires.employee,
        writes: 1,
        params,
        headers,
        parse: 'json',
        body: OwnerChange,
        response: { 204: NoBody, ...problems(400, 401, 403, 404, 412) },
        detail: {
          description: IF_MATCH,
          operationId: 'changeOwner',
          summary: 'Reassign a property to another owner (employees)',
          tags,
        },
      },
    )
    .put(
      '/properties/:id/information',
      ({ params, body, caller, headers, set }) => {
        const operation = changeInformation(params.id, body, writeOf(caller, headers));
        return whenReady(listings.writeProperty(operation), () => noContent(set));
      },
      {
        ...requires.any,
        writes: 1,
        params,
        headers,
        parse: 'json',
        body: InformationBody,
        response: { 204: NoBody, ...problems(400, 401, 404, 412) },
        detail: {
          description: IF_MATCH,
          operationId: 'changeInformation',
          summary: 'Change year of construction and visitability',
          tags,
        },
      },
    );
};
