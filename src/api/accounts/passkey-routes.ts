import type { AuthenticationResponseJSON, RegistrationResponseJSON } from '@simplewebauthn/server';
import { Elysia } from 'elysia';
import type { z } from 'zod';
import {
  finishRegistration,
  type RelyingParty,
  startAuthentication,
  startRegistration,
} from '@/accounts/ceremonies';
import { deletePasskey, listPasskeys, renamePasskey, summaryOf } from '@/accounts/passkeys';
import { verifyPasskeySignIn } from '@/accounts/sign-in';
import { findUserById } from '@/accounts/users';
import type { ApiDeps } from '@/api/deps';
import { clientAddressOf } from '@/api/request/peer';
import { derivedKey } from '@/auth/keys';
import { fail } from '@/kernel/errors';
import { Problem } from '../problem';
import { NoBody as Empty } from '../responses';
import { assertSecureTransport } from './http';
import {
  AuthenticateBody,
  AuthenticateOptionsBody,
  AuthenticationOptions,
  NoBody,
  PasskeyList,
  PasskeyParams,
  PasskeySummary,
  RegisterBody,
  RegistrationOptions,
  RenameBody,
} from './schemas';
import { SignedIn, signedInResponse } from './signed-in';

/** Every passkey route refuses plain HTTP off loopback (403). */
const refused = { 403: Problem };

const tags = ['Passkeys'];

/**
 * The passkey ceremonies (registration and sign-in, options then result) and
 * passkey management (list, rename, delete). Every route here refuses plain HTTP off loopback.
 */
export const passkeyRoutes = (deps: ApiDeps) => {
  const { db, clock, config, auth } = deps;
  const rp: RelyingParty = {
    id: config.rpId,
    name: config.rpName,
    origins: config.publicOrigins,
    secret: derivedKey(config.jwtSecret, 'passkey-decoy'),
  };
  /** Registration needs an account (a token minted for an unknown `sub` has none). */
  const accountOf = (sub: string) => {
    const user = findUserById(db, sub);
    if (!user) throw fail('account.required');
    return user;
  };

  return new Elysia({ name: 'accounts-passkeys' })
    .use(auth)
    .onTransform(({ request }) => assertSecureTransport(request, config.trustProxy))
    .post(
      '/passkey/register/options',
      async ({ identity }) => {
        const options = await startRegistration(db, rp, accountOf(identity.sub), clock());
        return options as z.infer<typeof RegistrationOptions>;
      },
      {
        auth: 'any',
        body: NoBody,
        response: { 200: RegistrationOptions, ...refused },
        detail: {
          operationId: 'passkeyRegistrationOptions',
          summary: 'Options for navigator.credentials.create()',
          tags,
        },
      },
    )
    .post(
      '/passkey/register',
      async ({ identity, body, status }) => {
        const passkey = await finishRegistration(
          db,
          rp,
          {
            userId: accountOf(identity.sub).id,
            response: body.response as RegistrationResponseJSON,
            name: body.name,
          },
          clock(),
        );
        return status(201, summaryOf(passkey));
      },
      {
        auth: 'any',
        body: RegisterBody,
        // 400: the ceremony failed verification; 409: the credential is already registered.
        response: { 201: PasskeySummary, 400: Problem, ...refused, 409: Problem },
        detail: { operationId: 'registerPasskey', summary: 'Finish registering a passkey', tags },
      },
    )
    .post(
      '/passkey/authenticate/options',
      async ({ body }) => {
        const options = await startAuthentication(db, rp, body?.email, clock());
        return options as z.infer<typeof AuthenticationOptions>;
      },
      {
        body: AuthenticateOptionsBody,
        response: { 200: AuthenticationOptions, ...refused },
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
        const address = clientAddressOf(request, config);
        const response = body.response as AuthenticationResponseJSON;
        const user = await verifyPasskeySignIn(db, rp, { response, address }, clock());
        return signedInResponse(deps, request, set, user);
      },
      {
        body: AuthenticateBody,
        response: { 200: SignedIn, 401: Problem, ...refused, 429: Problem },
        detail: {
          operationId: 'authenticateWithPasskey',
          summary: 'Sign in with a passkey (same answer as password sign-in)',
          tags,
        },
      },
    )
    .get(
      '/passkeys',
      ({ identity }) => ({ passkeys: listPasskeys(db, identity.sub).map(summaryOf) }),
      {
        auth: 'any',
        response: { 200: PasskeyList, ...refused },
        detail: { operationId: 'listPasskeys', summary: "The signed-in user's passkeys", tags },
      },
    )
    .patch(
      '/passkeys/:id',
      ({ identity, params, body }) => {
        const passkey = renamePasskey(db, identity.sub, params.id, body.name);
        if (!passkey) throw fail('passkey.not_found');
        return summaryOf(passkey);
      },
      {
        auth: 'any',
        params: PasskeyParams,
        body: RenameBody,
        response: { 200: PasskeySummary, ...refused, 404: Problem },
        detail: { operationId: 'renamePasskey', summary: 'Rename a passkey', tags },
      },
    )
    .delete(
      '/passkeys/:id',
      ({ identity, params, set }) => {
        if (!deletePasskey(db, identity.sub, params.id)) throw fail('passkey.not_found');
        set.status = 204;
        return null;
      },
      {
        auth: 'any',
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
