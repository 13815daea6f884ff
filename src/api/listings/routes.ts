import { Elysia } from 'elysia';
import type { ApiDeps } from '@/api/deps';
import { additionalDataRoutes } from './additional-data/routes';
import { eventRoutes } from './events/routes';
import { multiListingUnitRoutes } from './multi-listing-units/routes';
import { neighbourhoodRoutes } from './neighbourhoods/routes';
import { propertyRoutes } from './properties/routes';
import { propertyUpdateRoutes } from './properties/update-routes';
import { unitRoutes } from './units/routes';
import { webhookRoutes } from './webhooks/routes';

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
