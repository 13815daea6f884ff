import type { ApiDeps } from '@/api/deps';
import { type ErrorScope, scopedGroup } from '../error-family';
import { bodyRules } from '../plugins/body-rules';
import { rateLimit } from '../plugins/rate-limit';
import { adminRoutes } from './admin/routes';
import { tokenRoutes } from './tokens/routes';
import { transactionRoutes } from './transactions/routes';

/**
 * The customer API: its paths carry the version, /api/v1/...; every answer
 * under it, routed or not, has the Laravel-shaped error body.
 */
const CUSTOMER_API: ErrorScope = { family: 'customer', mount: '/api/v1' };

export const customerRoutes = (deps: ApiDeps) =>
  scopedGroup('customer-api', CUSTOMER_API)
    .use(deps.auth)
    .use(rateLimit(deps, CUSTOMER_API.mount))
    // Every customer API route answers a bad body with 422 (Laravel `errors`).
    .use(bodyRules)
    .guard({ badBody: 'unprocessable', limited: true })
    .use(tokenRoutes(deps))
    .use(transactionRoutes(deps))
    .use(adminRoutes(deps));
