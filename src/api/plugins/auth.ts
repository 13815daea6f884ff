import { Elysia } from 'elysia';
import { UNVERIFIED_DETAIL } from '@/accounts/messages';
import { docExtension } from '@/api/docs/extensions';
import type { SessionResolver, TokenService, VerifiedCaller } from '@/auth/tokens';
import type { Config } from '@/config';
import { fail } from '@/kernel/errors';

export interface AuthOptions {
  tokens: TokenService;
  sessions?: SessionResolver;
  /** Origins (PUBLIC_ORIGIN) a cookie-authenticated state-changing request must come from. */
  origins?: readonly string[];
  /** The session cookie's name (`sessionCookieNameOf`); `session` when not given. */
  cookieName?: string;
}

/** The session cookie's name over plain HTTP (local use). */
export const SESSION_COOKIE = 'session';
/**
 * Its name when the service is configured for HTTPS: a browser keeps a
 * `__Host-` cookie only when it is Secure, has Path=/ and names no Domain,
 * so no subdomain or plain-HTTP page can set or shadow it.
 */
export const HOST_SESSION_COOKIE = '__Host-session';

/**
 * `Secure` from configuration alone: the service serves TLS itself, or one
 * of PUBLIC_ORIGIN is https (a TLS-terminating proxy in front). Never from
 * the request: its `Origin` and `X-Forwarded-Proto` are written by whoever
 * sends it, and a cookie issued without `Secure` would travel over plain
 * HTTP later.
 */
export const isSecureCookie = (config: Pick<Config, 'tls' | 'publicOrigins'>): boolean =>
  config.tls !== undefined || config.publicOrigins.some((origin) => origin.startsWith('https:'));

/** The session cookie's name, from configuration as `Secure` is. */
export const sessionCookieNameOf = (config: Pick<Config, 'tls' | 'publicOrigins'>): string =>
  isSecureCookie(config) ? HOST_SESSION_COOKIE : SESSION_COOKIE;

/** The session cookie a request carries, under the configured name. */
export const sessionCookieOf = (
  request: Request,
  config: Pick<Config, 'tls' | 'publicOrigins'>,
): string | undefined => cookieValue(request.headers.get('cookie'), sessionCookieNameOf(config));

/**
 * Who may call a route: `any` signed-in account whose address is verified,
 * `employee` only, or `account`: any signed-in account, verified or not
 * (the account's own routes, which the /account page needs before its
 * address is verified).
 */
export type AuthRequirement = 'any' | 'employee' | 'account';

/**
 * An account not verified yet may use only its own account routes
 * (docs/accounts.md#email-verification): 403 `account.unverified` anywhere else.
 */
function assertVerified(caller: VerifiedCaller, requirement: AuthRequirement): void {
  if (caller.unverified && requirement !== 'account') {
    throw fail('account.unverified', { detail: UNVERIFIED_DETAIL });
  }
}

function bearerOf(header: string | null): string | null | undefined {
  if (header === null) return undefined;
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
  return match ? match[1]! : null;
}

export function cookieValue(header: string | null, name: string): string | undefined {
  if (!header) return undefined;
  for (const part of header.split(';')) {
    const [key, ...rest] = part.trim().split('=');
    if (key !== name) continue;
    const value = rest.join('=');
    // A malformed escape is just an unknown credential, never a 500.
    try {
      return decodeURIComponent(value);
    } catch {
      return value;
    }
  }
  return undefined;
}

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/**
 * Cookies ride along on cross-site requests, so a state-changing request
 * authenticated by the session cookie must name one of our origins in
 * `Origin` (browsers send it on every non-GET request); otherwise 403.
 * Bearer tokens are never sent implicitly and are exempt.
 */
export function assertSameOrigin(request: Request, origins: readonly string[] = []): void {
  if (!isSameOrigin(request, origins)) throw fail('auth.cross_origin');
}

/** `assertSameOrigin` as a test: false where it would answer 403. */
export function isSameOrigin(request: Request, origins: readonly string[] = []): boolean {
  if (SAFE_METHODS.has(request.method)) return true;
  const origin = request.headers.get('origin');
  return origin !== null && origins.includes(origin);
}

/**
 * Who is calling: a bearer token wins; otherwise the session cookie.
 * `undefined` = no credential at all; `null` = a credential that is invalid.
 */
export async function identify(
  request: Request,
  { tokens, sessions, origins, cookieName = SESSION_COOKIE }: AuthOptions,
): Promise<VerifiedCaller | null | undefined> {
  const bearer = bearerOf(request.headers.get('authorization'));
  if (bearer === null) return null;
  if (bearer !== undefined) return tokens.verify(bearer);
  const session = cookieValue(request.headers.get('cookie'), cookieName);
  if (session === undefined || !sessions) return undefined;
  const caller = await sessions(session);
  if (caller) assertSameOrigin(request, origins);
  return caller;
}

/**
 * The caller of `request` if it meets `requirement`: 401 without a valid
 * credential, 403 for a customer where an employee is needed. What the
 * `auth` macro checks, for a public route that needs a credential only for
 * some of its answers (the static pages' drafts).
 */
export async function callerMeeting(
  request: Request,
  options: AuthOptions,
  requirement: AuthRequirement,
): Promise<VerifiedCaller> {
  const caller = await identify(request, options);
  if (!caller) throw fail('auth.unauthenticated');
  if (requirement === 'employee' && caller.aud !== 'employee') throw fail('auth.forbidden');
  assertVerified(caller, requirement);
  return caller;
}

/** A credential only the full pipeline can settle (see `knownCaller`). */
export const UNSETTLED = Symbol('unsettled');

/**
 * `identify` without a promise, for the fast lane: no credential at all
 * (undefined) or a bearer token verified before; UNSETTLED for anything
 * else — a session cookie, a token not verified yet, a malformed header —
 * which the full pipeline then checks (and remembers, for bearer tokens).
 */
export function knownCaller(
  request: Request,
  tokens: TokenService,
): VerifiedCaller | undefined | typeof UNSETTLED {
  const header = request.headers.get('authorization');
  if (header === null) return request.headers.has('cookie') ? UNSETTLED : undefined;
  // The common spelling first: a verified token has no white space, so
  // `Bearer <token>` is exactly what `bearerOf` would have taken apart.
  // An unverified account's token is refused by the full pipeline (`assertVerified`).
  if (header.startsWith('Bearer ')) {
    const known = tokens.cached(header.slice(7));
    if (known && !known.unverified) return known;
  }
  const bearer = bearerOf(header);
  const known = bearer ? tokens.cached(bearer) : undefined;
  return known && !known.unverified ? known : UNSETTLED;
}

/** Callers checked in `transform`, picked up by `resolve` (same request). */
const checked = new WeakMap<Request, VerifiedCaller | null>();

/**
 * The caller the route's `auth` / `optionalAuth` check settled (null:
 * anonymous), or undefined when the route has neither.
 */
export const checkedCaller = (request: Request): VerifiedCaller | null | undefined =>
  checked.get(request);

/**
 * The document's account of who may call a route (src/api/docs): a bearer
 * token or the session cookie, with the role it needs (OpenAPI 3.1 names
 * roles in the requirement of a non-OAuth scheme); `{}` first when anyone may.
 */
const securityOf = (roles: string[]): Record<string, string[]>[] => [
  { bearer: roles },
  { session: roles },
];

/** The `transform` of every `auth` check, found again on the routes by `credentialChecksOf`. */
const authChecks = new WeakSet<object>();

type RequestOnly = { request: Request };
type CredentialCheck = (context: RequestOnly) => Promise<void>;

/**
 * `auth: 'any' | 'employee'` on a route resolves `caller` (401 without a
 * valid credential, 403 for a customer on an employee route);
 * `optionalAuth: true` resolves `caller` (null when anonymous). A credential
 * that is present but invalid is 401 in both cases, even on a public read.
 *
 * The check runs before the body is read: the body parser (json-body.ts)
 * runs the route's `auth` check first (`credentialChecksOf`), since Elysia
 * parses a body before any hook of the route. Without a body the check runs
 * in `transform`, before schema validation. Either way a caller without the
 * right credential costs no body read and learns nothing about the input
 * rules: 401/403 come before 400/413/415/422.
 */
export const authPlugin = (options: AuthOptions) =>
  new Elysia({ name: 'auth' }).macro({
    auth: (requirement: AuthRequirement) => {
      const check: CredentialCheck = async ({ request }) => {
        // Settled already when the body parser ran it first.
        if (checked.has(request)) return;
        checked.set(request, await callerMeeting(request, options, requirement));
      };
      authChecks.add(check);
      return {
        detail: {
          security: securityOf(requirement === 'employee' ? ['employee'] : []),
          ...docExtension({ 'x-verified-only': requirement !== 'account' }),
        },
        transform: check,
        resolve({ request }: RequestOnly) {
          const caller = checked.get(request);
          if (!caller) throw fail('auth.unauthenticated');
          return { caller };
        },
      };
    },
    optionalAuth: (enabled: boolean) => ({
      detail: {
        security: enabled ? [{}, ...securityOf([])] : [],
        ...docExtension({ 'x-verified-only': enabled }),
      },
      async transform({ request }) {
        const caller = enabled ? await identify(request, options) : undefined;
        if (caller === null) throw fail('auth.unauthenticated');
        if (caller) assertVerified(caller, 'any');
        checked.set(request, caller ?? null);
      },
      resolve({ request }) {
        return { caller: checked.get(request) ?? null };
      },
    }),
  });

/** A route as the app lists it (`app.routes`). */
interface ListedRoute {
  method: string;
  path: string;
  hooks: { transform?: unknown };
}

const hookFunctions = (hooks: unknown): unknown[] =>
  (Array.isArray(hooks) ? hooks : hooks === undefined ? [] : [hooks]).map((hook) =>
    typeof hook === 'object' && hook !== null && 'fn' in hook ? hook.fn : hook,
  );

/**
 * The `auth` check of each route that has one, by method and route pattern
 * (the `route` Elysia gives the body parser): what must pass before a body
 * is read.
 */
export function credentialChecksOf(routes: readonly ListedRoute[]) {
  const byRoute = new Map<string, CredentialCheck>();
  for (const route of routes) {
    const check = hookFunctions(route.hooks.transform).find((fn) => authChecks.has(fn as object));
    if (check) byRoute.set(`${route.method} ${route.path}`, check as CredentialCheck);
  }
  return (request: Request, route: string): Promise<void> | undefined =>
    byRoute.get(`${request.method} ${route}`)?.({ request });
}
