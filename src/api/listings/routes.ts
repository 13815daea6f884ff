import { Elysia } from 'elysia';
import type { ApiDeps } from '@/api/deps';
import { eventRoutes } from '@/api/events/routes';
import { webhookRoutes } from '@/api/webhooks/routes';
import { additionalDataRoutes } from './additional-data/routes';
import { multiListingUnitRoutes } from './multi-listing-units/routes';
import { neighbourhoodRoutes } from './neighbourhoods/routes';
import { propertyReadRoutes, propertyRoutes } from './properties/routes';
import { propertyUpdateRoutes } from './properties/update-routes';
import { unitRoutes } from './units/routes';

/** Listings API, mounted at /listings. */
export const listingsRoutes = (deps: ApiDeps) =>
  new Elysia({ name: 'listings', prefix: '/listings' })
    .use(propertyRoutes(deps))
    .use(propertyUpdateRoutes(deps))
    .use(unitRoutes(deps))
    .use(neighbourhoodRoutes(deps))
    .use(multiListingUnitRoutes(deps))
    .use(additionalDataRoutes(deps))
    .use(eventRoutes(deps))
    .use(webhookRoutes(deps));

/**
 * The one listings path outside /listings: GET /properties/{id}, where the
 * `Location` of POST /listings/properties points.
 */
export const createdPropertyRoutes = (deps: ApiDeps) =>
  propertyReadRoutes(deps, {
    path: '/properties/:id',
    operationId: 'getCreatedProperty',
    summary:
      'Read a property at the Location POST /listings/properties answers (as GET /listings/properties/{id})',
  });
