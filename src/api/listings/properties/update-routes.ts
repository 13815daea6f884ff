import { Elysia } from 'elysia';
import type { AppDeps } from '@/deps';
import { caller } from '../guard';
import { NoBody, noContent, problems } from '../schemas';
import {
  ArchiveBody,
  ConvertBody,
  InformationBody,
  LocationUpdate,
  NeighbourhoodAssignment,
  OwnerChange,
  PropertyIdParams,
} from './schemas';
import {
  archiveProperty,
  assignNeighbourhood,
  changeInformation,
  changeOwner,
  convertProperty,
  moveProperty,
  unarchiveProperty,
} from './service';

const tags = ['Listings: properties'];
const params = PropertyIdParams;

/** The state changes of a property; each answers 204 with no body. */
export const propertyUpdateRoutes = ({ db, clock, auth }: AppDeps) => {
  return new Elysia({ name: 'listings-property-updates' })
    .use(auth)
    .delete(
      '/properties/:id',
      ({ params, body, identity, set }) => {
        archiveProperty(db, params.id, identity, body ?? {}, clock());
        return noContent(set);
      },
      {
        ...caller.any,
        params,
        parse: 'json',
        body: ArchiveBody,
        response: { 204: NoBody, ...problems(400, 401, 404, 409) },
        detail: {
          summary: 'Archive a property (unpublishes every unit; 409 when already archived)',
          tags,
        },
      },
    )
    .post(
      '/properties/:id/unarchive',
      ({ params, identity, set }) => {
        unarchiveProperty(db, params.id, identity, clock());
        return noContent(set);
      },
      {
        ...caller.any,
        params,
        response: { 204: NoBody, ...problems(401, 404, 409) },
        detail: { summary: 'Bring an archived property back (409 when not archived)', tags },
      },
    )
    .put(
      '/properties/:id/convert',
      ({ params, body, identity, set }) => {
        convertProperty(db, params.id, identity, body.type, clock());
        return noContent(set);
      },
      {
        ...caller.any,
        params,
        parse: 'json',
        body: ConvertBody,
        response: { 204: NoBody, ...problems(400, 401, 404, 409) },
        detail: { summary: 'Convert a property to another type (409 when archived)', tags },
      },
    )
    .put(
      '/properties/:id/location',
      ({ params, body, identity, set }) => {
        moveProperty(db, params.id, identity, body, clock());
        return noContent(set);
      },
      {
        ...caller.any,
        params,
        parse: 'json',
        body: LocationUpdate,
        response: { 204: NoBody, ...problems(400, 401, 404) },
        detail: { summary: 'Move a property (another cityId drops its neighbourhood)', tags },
      },
    )
    .put(
      '/properties/:id/neighbourhood',
      ({ params, body, identity, set }) => {
        assignNeighbourhood(db, params.id, identity, body.neighbourhoodId, clock());
        return noContent(set);
      },
      {
        ...caller.any,
        params,
        parse: 'json',
        body: NeighbourhoodAssignment,
        response: { 204: NoBody, ...problems(400, 401, 404, 409) },
        detail: {
          summary:
            'Assign a neighbourhood of the property’s city (409 unknown, other city, archived)',
          tags,
        },
      },
    )
    .put(
      '/properties/:id/owner',
      ({ params, body, set }) => {
        changeOwner(db, params.id, body.ownerId, clock());
        return noContent(set);
      },
      {
        ...caller.employee,
        params,
        parse: 'json',
        body: OwnerChange,
        response: { 204: NoBody, ...problems(400, 401, 403, 404) },
        detail: { summary: 'Reassign a property to another owner (employees)', tags },
      },
    )
    .put(
      '/properties/:id/information',
      ({ params, body, identity, set }) => {
        changeInformation(db, params.id, identity, body, clock());
        return noContent(set);
      },
      {
        ...caller.any,
        params,
        parse: 'json',
        body: InformationBody,
        response: { 204: NoBody, ...problems(400, 401, 404) },
        detail: { summary: 'Change year of construction and visitability', tags },
      },
    );
};
