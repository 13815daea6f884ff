import type { AuthenticationResponseJSON, RegistrationResponseJSON } from '@simplewebauthn/server';
import { Elysia } from 'elysia';
import type { z } from 'zod';
import type { RelyingParty } from '@/accounts/ceremonies';
import { startAuthentication } from '@/accounts/passkey-authentication';
import { finishRegistration, startRegistration } from '@/accounts/passkey-registration';
import { summaryOf } from '@/accounts/passkeys';
import { assertRecentCredentialCheck, sessionResolver } from '@/accounts/sessions';
import { verifyPasskeySignIn } from '@/accounts/sign-in';
import { accountOf } from '@/accounts/users';
import type { ApiDeps } from '@/api/deps';
import { identify, sessionCookieNameOf, sessionCookieOf } from '@/api/plugins/auth';
import { auditContextOf } from '@/api/request/audit';
import { noticeOf, notifiedText } from '@/api/request/notice';
import { limitAddressOf } from '@/api/request/peer';
import { derivedKey } from '@/auth/keys';
import { fail } from '@/kernel/errors';
import { whenReady } from '@/kernel/maybe-promise';
import { Problem } from '../problem';
import { NoBody as Empty } from '../responses';
import { assertSecureTransport } from './http';
import {
  AuthenticateBody,
  AuthenticateOptionsBody,
  AuthenticationOptions,
  PasskeyList,
  PasskeyParams,
  PasskeySummary,
  RegisterBody,
  RegistrationOptions,
  RegistrationOptionsBody,
  RenameBody,
} from './schemas';
import { NEW_DEVICE_TEXT, SignedIn, signedInResponse } from './signed-in';

/** Every passkey route refuses plain HTTP off loopback (403). */
const refused = { 403: Problem };

const tags = ['Passkeys'];

/**
 * The passkey ceremonies (registration and sign-in, options then result) and
 * passkey management (list, rename, delete). Every route here refuses plain HTTP off loopback.
 */
export const passkeyRoutes = (deps: ApiDeps) => {
  const { clock, config, auth, accounts, writes } = deps;
  const store = deps.stores.accounts;
  const rp: RelyingParty = {
    id: config.rpId,
    name: config.rpName,
    origins: config.publicOrigins,
    challengeKey: derivedKey(config.jwtSecret, 'passkey-challenge'),
    providers: config.passkeyProviders,
  };
  const credentials = {
    tokens: deps.tokens,
    sessions: sessionResolver(store, clock),
    origins: config.publicOrigins,
    cookieName: sessionCookieNameOf(config),
  };
  /**
   * Adding a passkey needs the session cookie of a sign-in at most 10 minutes
   * old; a bearer token is never enough: it is valid an hour unless its
   * account's cut-off revokes it, so a stolen one would otherwise become a
   * lasting credential.
   * Checked in `transform`, before the body like the auth check; a missing or
   * invalid credential is left to that check (401).
   */
  const assertRecentCheck = async (request: Request) => {
    const caller = await identify(request, credentials);
    if (!caller) return;
    const sessionToken = caller.via === 'session' ? sessionCookieOf(request, config) : undefined;
    await assertRecentCredentialCheck(store, { sessionToken }, clock());
  };
  /** Options are cheap to ask for: bounded per address before any work. */
  const takeOptionsSlot = (request: Request) =>
    accounts.passkeyOptions.take(limitAddressOf(request, config));

  return new Elysia({ name: 'accounts-passkeys' })
    .use(auth)
    .use(writes)
    .onTransform(({ request }) => assertSecureTransport(request, config))
    .post(
      '/passkey/register/options',
      async ({ caller, request, body }) => {
        // Registration needs an account (a token minted for an unknown `sub` has none).
        const user = await accountOf(store, caller.sub, 'account.required');
        await takeOptionsSlot(request);
        const conditional = body?.mediation === 'conditional';
        const options = await startRegistration(store, rp, { user, conditional }, clock());
        return options as z.infer<typeof RegistrationOptions>;
      },
      {
        auth: 'account',
        writes: 1,
        transform: ({ request }) => assertRecentCheck(request),
        body: RegistrationOptionsBody,
        response: { 200: RegistrationOptions, ...refused, 429: Problem },
        detail: {
          operationId: 'passkeyRegistrationOptions',
          summary: 'Options for navigator.credentials.create()',
          tags,
        },
      },
    )
    .post(
      '/passkey/register',
      async ({ caller, body, request, status }) => {
        const user = await accountOf(store, caller.sub, 'account.required');
        const passkey = await finishRegistration(
          store,
          rp,
          {
            userId: user.id,
            response: body.response as RegistrationResponseJSON,
            name: body.name,
          },
          auditContextOf(request, config, clock(), caller.sub),
          noticeOf(request, accounts.notifications),
        );
        return status(201, summaryOf(passkey));
      },
      {
        auth: 'account',
        writes: 1,
        transform: ({ request }) => assertRecentCheck(request),
        body: RegisterBody,
        // 400: the ceremony failed verification; 409: the credential is already registered;
        // 429: the account's used challenges are at their bound (or its write budget is spent).
        response: {
          ...{ 201: PasskeySummary, 400: Problem, ...refused, 409: Problem },
          ...{ 429: Problem, 503: Problem },
        },
        detail: {
          operationId: 'registerPasskey',
          summary: 'Finish registering a passkey',
          description: notifiedText('passkey-added'),
          tags,
        },
      },
    )
    .post(
      '/passkey/authenticate/options',
      async ({ body }) => {
        const options = await startAuthentication(rp, body?.email, clock());
        return options as z.infer<typeof AuthenticationOptions>;
      },
      {
        async transform({ request }) {
          await takeOptionsSlot(request);
        },
        writes: {
          exempt: 'anonymous: bounded per address (PASSKEY_OPTIONS_PER_IP_PER_MINUTE)',
        },
        body: AuthenticateOptionsBody,
        response: { 200: AuthenticationOptions, ...refused, 429: Problem },
        detail: {
          operationId: 'passkeyAuthenticationOptions',
          summary: 'Options for navigator.credentials.get() (omit email for usernameless)',
          tags,
        },
      },
    )
    .post(
      '/passkey/authenticate',
      async ({ body, request, set }) => {
        const audit = auditContextOf(request, config, clock());
        const response = body.response as AuthenticationResponseJSON;
        const input = { response, address: limitAddressOf(request, config) };
        const user = await verifyPasskeySignIn(
          store,
          { rp, failures: accounts.failures },
          input,
          audit,
        );
        return signedInResponse(deps, set, request, user, { method: 'passkey', audit });
      },
      {
        writes: {
          exempt:
            'anonymous: each attempt uses up a challenge of the options (bounded per address); guessing protection counts failures',
        },
        body: AuthenticateBody,
        response: { 200: SignedIn, 401: Problem, ...refused, 429: Problem, 503: Problem },
        detail: {
          operationId: 'authenticateWithPasskey',
          summary: 'Sign in with a passkey (same answer as password sign-in)',
          description: NEW_DEVICE_TEXT,
          tags,
        },
      },
    )
    .get(
      '/passkeys',
      ({ caller }) =>
        whenReady(store.listPasskeys(caller.sub), (passkeys) => ({
          passkeys: passkeys.map(summaryOf),
        })),
      {
        auth: 'account',
        response: { 200: PasskeyList, ...refused },
        detail: { operationId: 'listPasskeys', summary: "The signed-in user's passkeys", tags },
      },
    )
    .patch(
      '/passkeys/:id',
      ({ caller, params, body, request }) => {
        const audit = auditContextOf(request, config, clock(), caller.sub);
        const change = { id: params.id, name: body.name };
        return whenReady(store.renamePasskey(caller.sub, change, audit), (passkey) => {
          if (!passkey) throw fail('passkey.not_found');
          return summaryOf(passkey);
        });
      },
      {
        auth: 'account',
        writes: 1,
        params: PasskeyParams,
        body: RenameBody,
        response: { 200: PasskeySummary, ...refused, 404: Problem },
        detail: { operationId: 'renamePasskey', summary: 'Rename a passkey', tags },
      },
    )
    .delete(
      '/passkeys/:id',
      ({ caller, params, request, set }) => {
        const audit = auditContextOf(request, config, clock(), caller.sub);
        return whenReady(store.deletePasskey(caller.sub, params.id, audit), (deleted) => {
          if (!deleted) throw fail('passkey.not_found');
          set.status = 204;
          return null;
        });
      },
      {
        auth: 'account',
        writes: 1,
        params: PasskeyParams,
        response: { 204: Empty, ...refused, 404: Problem },
        detail: {
          operationId: 'deletePasskey',
          summary: 'Delete a passkey (e.g. of a lost device)',
          tags,
        },
      },
    );
};
