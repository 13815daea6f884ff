import { Elysia } from 'elysia';
import { withAccountEmails } from '@/accounts/lifecycle';
import type { ApiDeps } from '@/api/deps';
import { routeQuery } from '@/api/request/query';
import { problems } from '@/api/responses';
import { AdminAuditPage, AuditQuery } from '@/audit/schemas';

const auditQuery = routeQuery(AuditQuery);

/** GET /admin/audit: the whole security and audit log, for employees. */
export const auditRoutes = ({ auth, stores: { audit, accounts } }: ApiDeps) =>
  new Elysia({ name: 'admin-audit' }).use(auth).get(
    '/audit',
    auditQuery.handle(async (query) => withAccountEmails(accounts, await audit.searchAudit(query))),
    {
      auth: 'employee',
      query: auditQuery.documented,
      response: { 200: AdminAuditPage, ...problems(400, 401, 403) },
      detail: {
        operationId: 'searchAudit',
        summary: 'The security and audit log, newest first (employees; keyset paged)',
        description:
          'Filters combine: `actor` (who acted), `subject` (whose account), `action`, `from`/`to` (inclusive ISO 8601 times). A repeated, unknown or malformed parameter is a 400. `emails` gives the email of each account the page names.',
        tags: ['Admin'],
        security: [{ bearer: [] }],
      },
    },
  );
