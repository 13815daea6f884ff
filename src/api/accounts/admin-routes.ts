import { Elysia } from 'elysia';
import { admitHashing, signedInAccount } from '@/accounts/hashing-limits';
import {
  changeAccount,
  deleteAccount,
  findAccount,
  searchAccounts,
  setAccountPassword,
} from '@/accounts/lifecycle';
import {
  AccountChangeBody,
  AccountPage,
  AccountParams,
  AccountSearchQuery,
  AccountSummary,
} from '@/accounts/schemas';
import { insertUser, userSummaryOf } from '@/accounts/users';
import { NewUserBody, SetPasswordBody, UserSummary } from '@/api/accounts/schemas';
import type { ApiDeps } from '@/api/deps';
import { withLocation } from '@/api/docs/headers';
import { bodyRules } from '@/api/plugins/body-rules';
import { Problem } from '@/api/problem';
import { auditContextOf } from '@/api/request/audit';
import { noticeOf, notifiedText } from '@/api/request/notice';
import { limitAddressOf } from '@/api/request/peer';
import { routeQuery } from '@/api/request/query';
import { NoBody, problems } from '@/api/responses';
import { fail } from '@/kernel/errors';

const tags = ['Admin'];
const security = [{ bearer: [] }];
const accountQuery = routeQuery(AccountSearchQuery);

/**
 * Accounts for employees at /admin/users: create (whatever the sign-up
 * policy, with sign-up's rules), find, change role or state, set the
 * password, delete; every change in the audit log (docs/accounts.md,
 * "Managing accounts"). Employees may know which emails have accounts, so a
 * taken email is a plain 409 here.
 */
export const adminUserRoutes = (deps: ApiDeps) => {
  const { auth, writes, accounts, clock, config, tokenCutoffs, limiter } = deps;
  const accountStore = deps.stores.accounts;
  const auditOf = (request: Request, sub: string) => auditContextOf(request, config, clock(), sub);
  return new Elysia({ name: 'admin-users' })
    .use(auth)
    .use(writes)
    .use(bodyRules)
    .post(
      '/users',
      async ({ body, caller, request, set, status }) => {
        if (await accountStore.findUserByEmail(body.email)) throw fail('account.email_taken');
        const creation = {
          action: 'account.created' as const,
          audit: auditOf(request, caller.sub),
        };
        const hashing = signedInAccount(caller.sub, limitAddressOf(request, config));
        await admitHashing(accounts.limits, hashing);
        const user = await insertUser(
          accountStore,
          body,
          { hasher: accounts.hasher, caller: hashing.caller },
          creation,
        );
        // Two creates for one email raced past the check above: the first one made it.
        if (!user) throw fail('account.email_taken');
        set.headers.location = `/admin/users/${user.id}`;
        return status(201, userSummaryOf(user));
      },
      {
        auth: 'employee',
        writes: 1,
        badBody: 'unprocessable',
        body: NewUserBody,
        // 429 past the hashing limits (per employee and address), 503 while the hasher has no room.
        response: {
          201: withLocation(UserSummary, 'The path of the new account'),
          ...{ 409: Problem, 429: Problem, 503: Problem },
        },
        detail: {
          operationId: 'createUser',
          summary: 'Create an account (employee only; works while sign-up is closed)',
          description:
            '422 for a bad email, a password under 8 characters or an unknown role; 409 when the email has an account.',
          tags,
          security,
        },
      },
    )
    .get(
      '/users',
      accountQuery.handle((query) => searchAccounts(accountStore, query)),
      {
        auth: 'employee',
        query: accountQuery.documented,
        response: { 200: AccountPage, ...problems(400, 401, 403) },
        detail: {
          operationId: 'searchUsers',
          summary: 'Accounts, newest first (employees; keyset paged)',
          description:
            'Filters combine: `email` (part of it, any case), `role`, `state` (active or disabled). Pass `nextCursor` as `cursor` for the next page. A repeated, unknown or malformed parameter is a 400.',
          tags,
          security,
        },
      },
    )
    .get('/users/:id', ({ params }) => findAccount(accountStore, params.id), {
      auth: 'employee',
      params: AccountParams,
      response: { 200: AccountSummary, ...problems(401, 403, 404) },
      detail: { operationId: 'getUser', summary: 'One account (employees)', tags, security },
    })
    .patch(
      '/users/:id',
      ({ params, body, caller, request }) =>
        changeAccount(
          accountStore,
          tokenCutoffs,
          { id: params.id, change: body },
          auditOf(request, caller.sub),
          noticeOf(request, accounts.notifications),
        ),
      {
        auth: 'employee',
        writes: 1,
        badBody: 'unprocessable',
        params: AccountParams,
        body: AccountChangeBody,
        response: { 200: AccountSummary, ...problems(401, 403, 404, 409, 422) },
        detail: {
          operationId: 'changeUser',
          summary:
            "Change an account's role, disable / enable it, or mark its address verified (employees)",
          description: `A new role revokes the bearer tokens issued before it; disabling ends every session and refuses every bearer token and sign-in; enabling again revokes the tokens issued before it. \`emailVerified: true\` marks an unverified address verified, as following its link does (its tokens issued before are revoked; an address verified already changes nothing). 409 for the last active employee (demoted or disabled). ${notifiedText('account-disabled', ' when it disables the account')}`,
          tags,
          security,
        },
      },
    )
    .post(
      '/users/:id/password',
      async ({ params, body, caller, request, set }) => {
        await setAccountPassword(
          accountStore,
          { ...accounts, revocation: tokenCutoffs },
          {
            id: params.id,
            password: body.password,
            by: signedInAccount(caller.sub, limitAddressOf(request, config)),
          },
          auditOf(request, caller.sub),
          noticeOf(request, accounts.notifications),
        );
        set.status = 204;
        return null;
      },
      {
        auth: 'employee',
        writes: 1,
        badBody: 'unprocessable',
        params: AccountParams,
        body: SetPasswordBody,
        response: { 204: NoBody, ...problems(401, 403, 404, 422, 429, 503) },
        detail: {
          operationId: 'setUserPassword',
          summary: "Set an account's password (employees): ends its sessions, revokes its tokens",
          description: `Every session of the account ends and every bearer token issued until now answers 401; its passkeys stay. 422 for a password under 8 characters. ${notifiedText('password-changed')}`,
          tags,
          security,
        },
      },
    )
    .delete(
      '/users/:id',
      async ({ params, caller, request, set }) => {
        await deleteAccount(accountStore, tokenCutoffs, params.id, auditOf(request, caller.sub));
        // Its plan and own limit went with it: every instance forgets the cached ones.
        await limiter.invalidate();
        set.status = 204;
        return null;
      },
      {
        auth: 'employee',
        writes: 1,
        params: AccountParams,
        response: { 204: NoBody, ...problems(401, 403, 404, 409) },
        detail: {
          operationId: 'deleteUser',
          summary: 'Delete an account (employees)',
          description:
            'Its sessions, passkeys, webhook endpoints, plan and own rate limit go with it and its bearer tokens answer 401; its properties stay, owned by its id, for employees to manage. 409 for the last active employee.',
          tags,
          security,
        },
      },
    );
};
