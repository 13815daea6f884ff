import { Elysia } from 'elysia';
import { listSessions, revokeSession } from '@/accounts/browser-sessions';
import { SessionList, SessionParams } from '@/accounts/schemas';
import type { ApiDeps } from '@/api/deps';
import { sessionCookieOf } from '@/api/plugins/auth';
import { auditContextOf } from '@/api/request/audit';
import { routeQuery } from '@/api/request/query';
import { AuditPage, SecurityLogQuery } from '@/audit/schemas';
import { fail } from '@/kernel/errors';
import { whenReady } from '@/kernel/maybe-promise';
import { NoBody, problems } from '../responses';

const tags = ['Accounts'];
const securityLogQuery = routeQuery(SecurityLogQuery);

/**
 * What the signed-in user can see of their account's security: its browser
 * sessions (and signing one out elsewhere) and its security log.
 */
export const securityRoutes = (deps: ApiDeps) => {
  const { clock, config, auth, writes } = deps;
  const store = deps.stores.accounts;
  const audit = deps.stores.audit;
  return new Elysia({ name: 'accounts-security' })
    .use(auth)
    .use(writes)
    .get(
      '/sessions',
      ({ caller, request }) => {
        const token = sessionCookieOf(request, config);
        return whenReady(listSessions(store, caller.sub, token, clock()), (sessions) => ({
          sessions,
        }));
      },
      {
        auth: 'account',
        response: { 200: SessionList, ...problems(401) },
        detail: {
          operationId: 'listSessions',
          summary: "The signed-in user's live browser sessions, newest first",
          tags,
        },
      },
    )
    .delete(
      '/sessions/:id',
      ({ caller, params, request, set }) => {
        const audit = auditContextOf(request, config, clock(), caller.sub);
        return whenReady(revokeSession(store, caller.sub, params.id, audit), () => {
          set.status = 204;
          return null;
        });
      },
      {
        auth: 'account',
        writes: 1,
        params: SessionParams,
        response: { 204: NoBody, ...problems(401, 403, 404) },
        detail: {
          operationId: 'revokeSession',
          summary: 'Sign one of your browser sessions out (this one too)',
          description: '404 for a session that is not yours, unknown or expired.',
          tags,
        },
      },
    )
    .get(
      '/security-log',
      securityLogQuery.handle((query, { caller }) => {
        // Only one's own log: naming anyone else answers as if there were nobody.
        if (query.user !== undefined && query.user !== caller.sub) throw fail('account.not_found');
        return audit.securityLogOf(caller.sub, query);
      }),
      {
        auth: 'account',
        query: securityLogQuery.documented,
        response: { 200: AuditPage, ...problems(400, 401, 404) },
        detail: {
          operationId: 'getSecurityLog',
          summary: "The signed-in user's security log, newest first (keyset paged)",
          description:
            'Sign-ins (succeeded, failed, refused), sign-outs, passkey and session changes, what employees changed for the account and the webhook endpoints the service disabled. Pass `nextCursor` as `cursor` for older events.',
          tags,
        },
      },
    );
};
