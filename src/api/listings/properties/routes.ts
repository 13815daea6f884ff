import { Elysia } from 'elysia';
import { z } from 'zod';
import type { ApiDeps } from '@/api/deps';
import { documentedQuery } from '@/api/request/query';
import { searchOf } from '@/api/request/url';
import { whenReady } from '@/kernel/maybe-promise';
import { parametersOf } from '@/kernel/query';
import { halCollectionSchema, Link } from '@/listings/paging';
import { PropertyListQuery } from '@/listings/properties/list-query';
import { propertyToCreate } from '@/listings/properties/operations';
import {
  Property,
  PropertyCreate,
  PropertyIdParams,
  PublicPropertyCreate,
} from '@/listings/properties/schemas';
import { countsAgainstQuota } from '@/listings/quotas';
import { responseOf } from '../../answer';
import { bodyRules } from '../../plugins/body-rules';
import { requires } from '../guard';
import { Created, created, NoBody, problems } from '../schemas';
import { IfNoneMatchHeaders, withETag } from './headers';
import { propertyListAnswer, propertyReadAnswer } from './read';

const tags = ['Listings: properties'];
const FeedCursor = z
  .string()
  .describe(
    'Change-feed cursor of the snapshot this page was read from: follow GET /listings/events from it',
  );
export const PropertyList = halCollectionSchema('svc:properties', Property).extend({
  feedCursor: FeedCursor,
});
/** A page of `paging=keyset`: `next` carries the cursor of the following page. */
export const PropertyKeysetPage = z.object({
  count: z.number().int(),
  total: z.number().int().optional().describe('Only with total=true'),
  feedCursor: FeedCursor,
  _links: z.object({ self: Link, first: Link, next: Link.optional() }),
  _embedded: z.object({ 'svc:properties': z.array(Property) }),
});

/** GET/POST /properties, POST /public/properties. */
export const propertyRoutes = (deps: ApiDeps) => {
  const {
    stores: { listings },
    clock,
    config,
    auth,
  } = deps;
  const quota = config.quotas.propertiesPerOwner;
  return new Elysia({ name: 'listings-properties' })
    .use(auth)
    .use(bodyRules)
    .use(deps.writes)
    .use(deps.idempotency)
    .get(
      '/properties',
      ({ request, caller }) =>
        whenReady(propertyListAnswer(deps, caller, searchOf(request.url)), responseOf),
      {
        ...requires.any,
        query: documentedQuery(parametersOf(PropertyListQuery)),
        response: {
          200: z.union([PropertyList, PropertyKeysetPage]),
          ...problems(400, 401, 410),
        },
        detail: {
          operationId: 'listProperties',
          summary: 'List properties',
          description:
            'Filters combine with AND. Arrays accept k=a&k=b, k[]=a, k[0]=a and k=a,b; ' +
            'features[i][applicability|category|name|value] match when one unit has every ' +
            'criterion. A customer sees only its own properties. paging=keyset pages by an ' +
            'opaque cursor (`_links.next`) whose cost does not grow with depth; every answer ' +
            'names the change-feed cursor (`feedCursor`) it was read at (docs: Mirroring the listings). ' +
            'A walk sorted by a field other than _id keeps the order of its first page and answers ' +
            '410 once that page is older than the change feed keeps events.',
          tags,
        },
      },
    )
    .post(
      '/properties',
      async ({ body, caller, set }) => {
        const row = propertyToCreate(body, { caller: caller, source: 'outbound', now: clock() });
        const counted = countsAgainstQuota(caller);
        // Committed with the creates alongside it; the 201 goes out only after the COMMIT.
        const id = await listings.createProperty({ row, counted }, quota);
        return created(set, `/properties/${id}`);
      },
      {
        ...requires.any,
        writes: { each: 'totalUnits' },
        badBody: 'unprocessable',
        idempotent: true,
        parse: 'json',
        body: PropertyCreate,
        response: { 201: Created, ...problems(400, 401, 409, 422) },
        detail: {
          operationId: 'createProperty',
          summary: 'Create a property (Location: /properties/<id>)',
          tags,
        },
      },
    )
    .post(
      '/public/properties',
      async ({ body, caller, set }) => {
        const row = propertyToCreate(body, { caller: caller, source: 'inbound', now: clock() });
        const counted = countsAgainstQuota(caller);
        const id = await listings.createProperty({ row, counted }, quota);
        return created(set, `/listings/properties/${id}`);
      },
      {
        ...requires.any,
        writes: { each: 'totalUnits' },
        badBody: 'unprocessable',
        idempotent: true,
        parse: 'json',
        body: PublicPropertyCreate,
        response: { 201: Created, ...problems(400, 401, 409, 422) },
        detail: {
          operationId: 'createPublicProperty',
          summary:
            'Create a property on behalf of a public user (Location: /listings/properties/<id>)',
          tags,
        },
      },
    )
    .use(
      propertyReadRoutes(deps, {
        path: '/properties/:id',
        operationId: 'getProperty',
        summary: 'Read a property (no token needed)',
      }),
    );
};

interface ReadRoute {
  path: string;
  operationId: string;
  summary: string;
}

/**
 * GET /properties/{id}: mounted under /listings, and at the root as the
 * `Location` POST /listings/properties answers (the path its clients were
 * promised), so both read the same property.
 */
export const propertyReadRoutes = (deps: ApiDeps, { path, operationId, summary }: ReadRoute) =>
  new Elysia({ name: `listings-property-read ${operationId}` })
    .use(deps.auth)
    .get(
      path,
      ({ params, caller, headers }) =>
        whenReady(
          propertyReadAnswer(deps, caller, params.id, headers['if-none-match']),
          responseOf,
        ),
      {
        optionalAuth: true,
        params: PropertyIdParams,
        headers: IfNoneMatchHeaders,
        response: {
          200: withETag(Property),
          304: withETag(NoBody.describe('Not modified: the If-None-Match tag is current')),
          ...problems(401, 404),
        },
        detail: {
          operationId,
          summary,
          description:
            'Carries a strong ETag; send it back as If-Match on the property writes (412 when ' +
            'stale), or as If-None-Match here (304 when unchanged).',
          tags,
        },
      },
    );
