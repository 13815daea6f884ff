import { Elysia } from 'elysia';
import { endSession } from '@/accounts/browser-sessions';
import {
  SIGN_UP_ACCEPTED_MESSAGE,
  SIGN_UP_CLOSED_DETAIL,
  SIGN_UP_VERIFY_MESSAGE,
} from '@/accounts/messages';
import { verifyPasswordSignIn } from '@/accounts/sign-in';
import { signUpCustomer } from '@/accounts/sign-up';
import { accountOf, normalizeEmail, userSummaryOf } from '@/accounts/users';
import type { ApiDeps } from '@/api/deps';
import { assertSameOrigin, sessionCookieOf } from '@/api/plugins/auth';
import { auditContextOf } from '@/api/request/audit';
import { limitAddressOf } from '@/api/request/peer';
import { fail } from '@/kernel/errors';
import { type MaybePromise, whenReady } from '@/kernel/maybe-promise';
import { Problem } from '../problem';
import { clearedSessionCookie, mailContextOf } from './http';
import { SignInBody, SignUpAccepted, SignUpBody, UserSummary } from './schemas';
import { NEW_DEVICE_TEXT, SignedIn, SignedOut, signedInResponse } from './signed-in';

/** Sign-up, password sign-in, sign-out and "who am I". */
export const sessionRoutes = (deps: ApiDeps) => {
  const { clock, config, auth, accounts, writes } = deps;
  const store = deps.stores.accounts;
  return new Elysia({ name: 'accounts-sessions' })
    .use(auth)
    .use(writes)
    .post(
      '/sign-up',
      async ({ body, request, status }) => {
        // A 503 for lack of hashing capacity still used up one of the address's
        // attempts: given back, a flood would keep the hashing queue full.
        const verify = config.accounts.signUp === 'verify';
        await signUpCustomer(
          store,
          accounts,
          {
            ...body,
            address: limitAddressOf(request, config),
            ...(verify && { verification: mailContextOf(request, config) }),
          },
          auditContextOf(request, config, clock()),
        );
        return status(202, {
          email: normalizeEmail(body.email),
          message: verify ? SIGN_UP_VERIFY_MESSAGE : SIGN_UP_ACCEPTED_MESSAGE,
        });
      },
      {
        // After the body is parsed, before it is validated or anything hashed: the policy, then the per-address bound.
        async transform({ request }) {
          if (config.accounts.signUp === 'closed') {
            throw fail('sign_up.closed', { detail: SIGN_UP_CLOSED_DETAIL });
          }
          await accounts.signUps.take(limitAddressOf(request, config));
        },
        writes: { exempt: 'anonymous: bounded per address (SIGN_UP_PER_IP_PER_HOUR)' },
        body: SignUpBody,
        // 403 when sign-up is closed, 429 past the address's hourly bound or the
        // hashing limits, 503 while the hasher has no room for this caller (Retry-After).
        response: { 202: SignUpAccepted, 403: Problem, 429: Problem, 503: Problem },
        detail: {
          operationId: 'signUp',
          summary: 'Create a customer account (the same 202 whether or not the email is taken)',
          description:
            'Under SIGN_UP=verify the account is created unverified and a link to verify its address is mailed (valid 24 hours): until it is followed (POST /auth/email/confirm) the account may sign in and use its own /auth routes, and every other route answers 403 `account.unverified`.',
          tags: ['Accounts'],
        },
      },
    )
    .post(
      '/sign-in',
      async ({ body, request, set }) => {
        const audit = auditContextOf(request, config, clock());
        const input = { ...body, address: limitAddressOf(request, config) };
        const user = await verifyPasswordSignIn(store, accounts, input, audit);
        return signedInResponse(deps, set, request, user, { method: 'password', audit });
      },
      {
        writes: {
          exempt:
            'anonymous: bounded per account and address (PASSWORD_HASHES_PER_*), by guessing protection and the hashing capacity',
        },
        body: SignInBody,
        response: { 200: SignedIn, 401: Problem, 429: Problem, 503: Problem },
        detail: {
          operationId: 'signIn',
          summary: 'Sign in with email and password (bearer token and session cookie)',
          description: NEW_DEVICE_TEXT,
          tags: ['Accounts'],
        },
      },
    )
    .post(
      '/sign-out',
      ({ request, set }) => {
        const token = sessionCookieOf(request, config);
        let ended: MaybePromise<void> | undefined;
        if (token !== undefined) {
          assertSameOrigin(request, config.publicOrigins);
          ended = endSession(store, token, auditContextOf(request, config, clock()));
        }
        return whenReady(ended, () => {
          set.headers['set-cookie'] = clearedSessionCookie(config);
          set.status = 204;
          return null;
        });
      },
      {
        writes: {
          exempt: 'ends only the session of its own cookie; without one it writes nothing',
        },
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
      ({ caller }) => {
        return whenReady(accountOf(store, caller.sub, 'account.not_found'), userSummaryOf);
      },
      {
        auth: 'account',
        response: { 200: UserSummary, 404: Problem },
        detail: { operationId: 'getMe', summary: 'The signed-in user', tags: ['Accounts'] },
      },
    );
};
