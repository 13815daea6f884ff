import { Elysia } from 'elysia';
import type { ApiDeps } from '@/api/deps';
import { whenReady } from '@/kernel/maybe-promise';
import {
  createAdditionalData,
  putAdditionalData,
  readAdditionalData,
} from '@/listings/additional-data/operations';
import {
  AdditionalData,
  AdditionalDataCreate,
  AdditionalDataPut,
  AdditionalDataWritten,
} from '@/listings/additional-data/schemas';
import { PropertyIdParams } from '@/listings/properties/schemas';
import { bodyRules } from '../../plugins/body-rules';
import { requires } from '../guard';
import { Created, created, problems } from '../schemas';

const tags = ['Listings: additional data'];
const path = (id: string) => `/listings/properties/${id}/additional-data`;

/** Free-form additional data per property: one JSON object of at most 64 KiB. */
export const additionalDataRoutes = ({
  stores: { listings },
  clock,
  auth,
  idempotency,
  writes,
}: ApiDeps) => {
  return new Elysia({ name: 'listings-additional-data' })
    .use(auth)
    .use(writes)
    .use(bodyRules)
    .use(idempotency)
    .post(
      '/properties/additional-data',
      ({ body, caller, set }) => {
        const create = createAdditionalData(body.id, body.data, caller, clock());
        return whenReady(listings.writeProperty(create), () => created(set, path(body.id)));
      },
      {
        ...requires.any,
        writes: 1,
        badBody: 'unprocessable',
        idempotent: true,
        parse: 'json',
        body: AdditionalDataCreate,
        response: { 201: Created, ...problems(400, 401, 422) },
        detail: {
          operationId: 'createAdditionalData',
          summary: 'Create the additional data of a property (422 recordNotFound / recordExists)',
          tags,
        },
      },
    )
    .get(
      '/properties/:id/additional-data',
      ({ params, caller }) =>
        whenReady(listings.readProperty(readAdditionalData(params.id, caller)), (data) => ({
          id: params.id,
          data,
        })),
      {
        ...requires.any,
        params: PropertyIdParams,
        response: { 200: AdditionalData, ...problems(401, 404) },
        detail: {
          operationId: 'getAdditionalData',
          summary: 'Read the additional data of a property',
          tags,
        },
      },
    )
    .put(
      '/properties/:id/additional-data',
      ({ params, body, caller }) => {
        const put = putAdditionalData(params.id, body.data, caller, clock());
        return whenReady(listings.writeProperty(put), () => ({ data: body.data }));
      },
      {
        ...requires.any,
        writes: 1,
        params: PropertyIdParams,
        parse: 'json',
        body: AdditionalDataPut,
        response: { 200: AdditionalDataWritten, ...problems(400, 401, 404) },
        detail: {
          operationId: 'putAdditionalData',
          summary: 'Create or replace the additional data of a property',
          tags,
        },
      },
    );
};
