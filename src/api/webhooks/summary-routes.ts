import { Elysia } from 'elysia';
import type { ApiDeps } from '@/api/deps';
import { routeQuery } from '@/api/request/query';
import { problems } from '@/api/responses';
import { whenReady } from '@/kernel/maybe-promise';
import { WebhookSummary, WebhookSummaryQuery } from '@/webhooks/schemas';
import { toSummary } from '@/webhooks/summary';

const HOUR_MS = 3_600_000;
const summaryQuery = routeQuery(WebhookSummaryQuery);

/** GET /admin/webhooks/summary: how every endpoint's deliveries went lately, for employees. */
export const webhookSummaryRoutes = ({ auth, stores: { webhooks }, clock }: ApiDeps) =>
  new Elysia({ name: 'admin-webhooks' }).use(auth).get(
    '/webhooks/summary',
    summaryQuery.handle(({ hours }) => {
      const now = clock();
      const since = now - hours * HOUR_MS;
      return whenReady(webhooks.summarize(since), (rows) => toSummary(rows, since, now));
    }),
    {
      auth: 'employee',
      query: summaryQuery.documented,
      response: { 200: WebhookSummary, ...problems(400, 401, 403) },
      detail: {
        operationId: 'getWebhookSummary',
        summary:
          'Every webhook endpoint with its owner, success rate, p99 duration and last error (employees)',
        description:
          'Over the deliveries whose last attempt falls in the last `hours` (24 by default, at most 168), each counted once by its last attempt. Errors are the generic reasons of the delivery log.',
        tags: ['Admin'],
        security: [{ bearer: [] }],
      },
    },
  );
