import { Elysia } from 'elysia';
import { changePassword, endEverySession } from '@/accounts/lifecycle';
import { accountOf } from '@/accounts/users';
import type { ApiDeps } from '@/api/deps';
import { sessionCookieOf } from '@/api/plugins/auth';
import { auditContextOf } from '@/api/request/audit';
import { noticeOf, notifiedText } from '@/api/request/notice';
import { limitAddressOf } from '@/api/request/peer';
import { NoBody, problems } from '../responses';
import { clearedSessionCookie } from './http';
import { ChangePasswordBody } from './schemas';
import { SignedOut } from './signed-in';

const tags = ['Accounts'];

/** The signed-in user changes their password or signs out everywhere (docs/accounts.md). */
export const lifecycleRoutes = (deps: ApiDeps) => {
  const { clock, config, auth, accounts, writes, tokenCutoffs } = deps;
  const store = deps.stores.accounts;
  return new Elysia({ name: 'accounts-lifecycle' })
    .use(auth)
    .use(writes)
    .post(
      '/password',
      async ({ caller, body, request, set }) => {
        const user = await accountOf(store, caller.sub, 'account.required');
        const sessionToken =
          caller.via === 'session' ? sessionCookieOf(request, config) : undefined;
        await changePassword(
          store,
          { ...accounts, revocation: tokenCutoffs },
          user,
          { ...body, address: limitAddressOf(request, config), sessionToken },
          auditContextOf(request, config, clock(), caller.sub),
          noticeOf(request, accounts.notifications),
        );
        set.status = 204;
        return null;
      },
      {
        auth: 'account',
        writes: 1,
        body: ChangePasswordBody,
        response: { 204: NoBody, ...problems(401, 403, 422, 429, 503) },
        detail: {
          operationId: 'changePassword',
          summary: 'Change your password (signs every other session out, revokes bearer tokens)',
          description: `401 for a wrong current password (counted as a failed sign-in), 422 for a new password under 8 characters. The session of the request continues; every other session ends and every bearer token issued until now answers 401, the one of the request included. ${notifiedText('password-changed')}`,
          tags,
        },
      },
    )
    .delete(
      '/sessions',
      async ({ caller, request, set }) => {
        const audit = auditContextOf(request, config, clock(), caller.sub);
        await endEverySession(store, tokenCutoffs, caller.sub, audit);
        set.headers['set-cookie'] = clearedSessionCookie(config);
        set.status = 204;
        return null;
      },
      {
        auth: 'account',
        writes: 1,
        response: { 204: SignedOut, ...problems(401, 403) },
        detail: {
          operationId: 'signOutEverywhere',
          summary: 'Sign out everywhere: end every session and revoke every bearer token',
          description:
            'Every browser session of the account ends (this one too) and every bearer token issued until now answers 401.',
          tags,
        },
      },
    );
};
