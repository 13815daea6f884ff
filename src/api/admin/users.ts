import { Elysia } from 'elysia';
import { insertUser, userSummaryOf } from '@/accounts/users';
import { NewUserBody, UserSummary } from '@/api/accounts/schemas';
import type { ApiDeps } from '@/api/deps';
import { auditContextOf } from '@/api/request/audit';
import { fail } from '@/kernel/errors';
import { bodyRules } from '../plugins/body-rules';
import { Problem } from '../problem';

/**
 * POST /admin/users: an employee creates an account (customer or employee),
 * whatever the sign-up policy, with sign-up's rules. Employees may know which
 * emails have accounts, so a taken email is a plain 409 here.
 */
export const adminUserRoutes = ({ auth, writes, accountStore, accounts, clock, config }: ApiDeps) =>
  new Elysia({ name: 'admin-users' })
    .use(auth)
    .use(writes)
    .use(bodyRules)
    .post(
      '/users',
      async ({ body, caller, request, status }) => {
        if (await accountStore.findUserByEmail(body.email)) throw fail('account.email_taken');
        const audit = auditContextOf(request, config, clock(), caller.sub);
        const creation = { action: 'account.created' as const, audit };
        const user = await insertUser(accountStore, body, accounts.hasher, creation);
        // Two creates for one email raced past the check above: the first one made it.
        if (!user) throw fail('account.email_taken');
        return status(201, userSummaryOf(user));
      },
      {
        auth: 'employee',
        writes: 1,
        badBody: 'unprocessable',
        body: NewUserBody,
        response: { 201: UserSummary, 409: Problem, 503: Problem },
        detail: {
          operationId: 'createUser',
          summary: 'Create an account (employee only; works while sign-up is closed)',
          description:
            '422 for a bad email, a password under 8 characters or an unknown role; 409 when the email has an account.',
          tags: ['Admin'],
          security: [{ bearer: [] }],
        },
      },
    );
