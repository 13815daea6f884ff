import { type CallOptions, segment, type Transport } from './http.js';
import type {
  AuditPage,
  AuthenticateBody,
  AuthenticateOptionsBody,
  AuthenticationOptions,
  ChangePasswordBody,
  PasskeyList,
  PasskeySummary,
  RegisterBody,
  RegistrationOptions,
  RegistrationOptionsBody,
  RenameBody,
  SecurityLogQuery,
  SessionList,
  SignInBody,
  SignInResponse,
  SignUpAccepted,
  SignUpBody,
  UserSummary,
} from './types.js';

/**
 * Accounts and passkeys (`/auth`). The WebAuthn ceremonies pass
 * @simplewebauthn's JSON through untouched: hand the options to the browser's
 * `startRegistration()` / `startAuthentication()` and send back its result.
 */
export function authApi(http: Transport) {
  const passkeys = {
    /**
     * Step 1 of registration: options for `navigator.credentials.create()`.
     * Both steps need the session cookie of a sign-in in the last 10 minutes
     * (pass it with `Origin` in `headers`); a bearer token alone answers 403.
     * `{mediation: 'conditional'}` asks for a conditional create.
     */
    registrationOptions: (body?: RegistrationOptionsBody, options?: CallOptions) =>
      http.json<RegistrationOptions>('POST', '/auth/passkey/register/options', {
        ...options,
        body,
      }),
    /** Step 2: the browser's registration result; 201 with the new passkey. */
    register: (body: RegisterBody, options?: CallOptions) =>
      http.json<PasskeySummary>('POST', '/auth/passkey/register', { ...options, body }),
    /** Step 1 of sign-in: a challenge (omit `email` for the usernameless flow). */
    authenticationOptions: (body: AuthenticateOptionsBody = {}, options?: CallOptions) =>
      http.json<AuthenticationOptions>('POST', '/auth/passkey/authenticate/options', {
        ...options,
        body,
      }),
    /** Step 2: the signed assertion; answers like password sign-in. */
    authenticate: (body: AuthenticateBody, options?: CallOptions) =>
      http.json<SignInResponse>('POST', '/auth/passkey/authenticate', { ...options, body }),
    list: (options?: CallOptions) => http.json<PasskeyList>('GET', '/auth/passkeys', options),
    rename: (id: string, body: RenameBody, options?: CallOptions) =>
      http.json<PasskeySummary>('PATCH', `/auth/passkeys/${segment(id)}`, { ...options, body }),
    delete: (id: string, options?: CallOptions) =>
      http.send('DELETE', `/auth/passkeys/${segment(id)}`, options),
  };

  return {
    /**
     * 202 with the same body whether or not the email was free (an existing
     * account is left as it is); 403 while sign-up is closed; 429 per address.
     */
    signUp: (body: SignUpBody, options?: CallOptions) =>
      http.json<SignUpAccepted>('POST', '/auth/sign-up', { ...options, body }),
    /** The bearer token to pass to `client.setToken()`, and the user. */
    signIn: (body: SignInBody, options?: CallOptions) =>
      http.json<SignInResponse>('POST', '/auth/sign-in', { ...options, body }),
    signOut: (options?: CallOptions) => http.send('POST', '/auth/sign-out', options),
    me: (options?: CallOptions) => http.json<UserSummary>('GET', '/auth/me', options),
    /**
     * 204: the password is changed; every other session ends and every bearer
     * token issued until now answers 401, this client's own token included
     * (sign in again). 401 for a wrong current password, 422 for a short new one.
     */
    changePassword: (body: ChangePasswordBody, options?: CallOptions) =>
      http.send('POST', '/auth/password', { ...options, body }),
    /** 204: every session of the account ends and every bearer token issued until now answers 401. */
    signOutEverywhere: (options?: CallOptions) => http.send('DELETE', '/auth/sessions', options),
    passkeys,
    /** The signed-in user's live browser sessions; `revoke` signs one out elsewhere. */
    sessions: {
      list: (options?: CallOptions) => http.json<SessionList>('GET', '/auth/sessions', options),
      revoke: (id: string, options?: CallOptions) =>
        http.send('DELETE', `/auth/sessions/${segment(id)}`, options),
    },
    /** The signed-in user's security log, newest first; pass `nextCursor` as `cursor`. */
    securityLog: (query?: SecurityLogQuery, options?: CallOptions) =>
      http.json<AuditPage>('GET', '/auth/security-log', { ...options, query }),
  };
}
