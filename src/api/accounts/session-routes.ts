import { Elysia } from 'elysia';
import { deleteSession } from '@/accounts/sessions';
import { verifyPasswordSignIn } from '@/accounts/sign-in';
import { createUser, findUserByEmail, findUserById, userSummaryOf } from '@/accounts/users';
import type { ApiDeps } from '@/api/deps';
import { assertSameOrigin, cookieValue, SESSION_COOKIE } from '@/api/plugins/auth';
import { clientAddressOf } from '@/api/request/peer';
import { fail } from '@/kernel/errors';
import { Problem } from '../problem';
import { clearedSessionCookie } from './http';
import { SignInBody, SignUpBody, UserSummary } from './schemas';
import { SignedIn, SignedOut, signedInResponse } from './signed-in';

const isUniqueViolation = (error: unknown) =>
  (error as { code?: string } | null)?.code === 'SQLITE_CONSTRAINT_UNIQUE';

/** Sign-up, password sign-in, sign-out and "who am I". */
export const sessionRoutes = (deps: ApiDeps) => {
  const { db, clock, config, auth } = deps;
  return new Elysia({ name: 'accounts-sessions' })
    .use(auth)
    .post(
      '/sign-up',
      async ({ body, status }) => {
        if (findUserByEmail(db, body.email)) throw fail('account.email_taken');
        try {
          const user = await createUser(db, { ...body, role: 'customer' });
          return status(201, userSummaryOf(user));
        } catch (error) {
          // Two sign-ups for one email raced past the check above.
          if (isUniqueViolation(error)) throw fail('account.email_taken');
          throw error;
        }
      },
      {
        body: SignUpBody,
        response: { 201: UserSummary, 409: Problem },
        detail: { operationId: 'signUp', summary: 'Create a customer account', tags: ['Accounts'] },
      },
    )
    .post(
      '/sign-in',
      async ({ body, request, set }) => {
        const address = clientAddressOf(request, config);
        const user = await verifyPasswordSignIn(db, { ...body, address }, clock());
        return signedInResponse(deps, request, set, user);
      },
      {
        body: SignInBody,
        response: { 200: SignedIn, 401: Problem, 429: Problem },
        detail: {
          operationId: 'signIn',
          summary: 'Sign in with email and password (bearer token and session cookie)',
          tags: ['Accounts'],
        },
      },
    )
    .post(
      '/sign-out',
      ({ request, set }) => {
        const token = cookieValue(request.headers.get('cookie'), SESSION_COOKIE);
        if (token !== undefined) {
          assertSameOrigin(request, config.publicOrigins);
          deleteSession(db, token);
        }
        set.headers['set-cookie'] = clearedSessionCookie(request, config);
        set.status = 204;
        return null;
      },
      {
        // 403: a session cookie sent from a foreign Origin.
        response: { 204: SignedOut, 403: Problem },
        detail: {
          operationId: 'signOut',
          summary: 'End the browser session (idempotent; bearer tokens expire on their own)',
          tags: ['Accounts'],
        },
      },
    )
    .get(
      '/me',
      ({ identity }) => {
        const user = findUserById(db, identity.sub);
        if (!user) throw fail('account.not_found');
        return userSummaryOf(user);
      },
      {
        auth: 'any',
        response: { 200: UserSummary, 404: Problem },
        detail: { operationId: 'getMe', summary: 'The signed-in user', tags: ['Accounts'] },
      },
    );
};
