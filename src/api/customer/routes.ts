import { Elysia } from 'elysia';
import type { ApiDeps } from '@/api/deps';
import { CUSTOMER_API_PREFIX } from '../errors';
import { bodyRules } from '../plugins/body-rules';
import { rateLimit } from '../plugins/rate-limit';
import { adminRoutes } from './admin/routes';
import { tokenRoutes } from './tokens/routes';
import { transactionRoutes } from './transactions/routes';

/** Customer API, mounted at /api; its paths carry the version, /api/v1/... */
export const customerRoutes = (deps: ApiDeps) =>
  new Elysia({ name: 'customer-api', prefix: CUSTOMER_API_PREFIX })
    .use(deps.auth)
    .use(rateLimit(deps))
    // Every customer API route answers a bad body with 422 (Laravel `errors`).
    .use(bodyRules)
    .guard({ badBody: 'unprocessable' })
    .use(tokenRoutes(deps))
    .use(transactionRoutes(deps))
    .use(adminRoutes(deps));
