import { Elysia } from 'elysia';
import type { Identity, TokenService } from '@/auth/tokens';
import { Forbidden, Unauthorized } from '../errors';

/** Looks a session cookie up (filled by the accounts feature); null when unknown. */
export type SessionResolver = (sessionId: string) => Identity | null;

export interface AuthOptions {
  tokens: TokenService;
  sessions?: SessionResolver;
}

export const SESSION_COOKIE = 'session';

export type AuthRequirement = 'any' | 'employee';

function bearerOf(header: string | null): string | null | undefined {
  if (header === null) return undefined;
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
  return match ? match[1]! : null;
}

/** Percent-decoded; a value that is not valid percent-encoding is kept as sent (it matches no session). */
function decodeCookie(value: string): string {
  try {
    return decodeURIComponent(value);
  } catch {
    return value;
  }
}

function cookieValue(header: string | null, name: string): string | undefined {
  if (!header) return undefined;
  for (const part of header.split(';')) {
    const [key, ...rest] = part.trim().split('=');
    if (key === name) return decodeCookie(rest.join('='));
  }
  return undefined;
}

/**
 * Who is calling: a bearer token wins; otherwise the session cookie.
 * `undefined` = no credential at all; `null` = a credential that is invalid.
 */
export async function identify(
  request: Request,
  { tokens, sessions }: AuthOptions,
): Promise<Identity | null | undefined> {
  const bearer = bearerOf(request.headers.get('authorization'));
  if (bearer === null) return null;
  if (bearer !== undefined) return tokens.verify(bearer);
  const session = cookieValue(request.headers.get('cookie'), SESSION_COOKIE);
  if (session === undefined || !sessions) return undefined;
  return sessions(session);
}

/**
 * `auth: 'any' | 'employee'` on a route resolves `identity` (401 without a
 * valid credential, 403 for a customer on an employee route);
 * `optionalAuth: true` resolves `viewer` (null when anonymous). A credential
 * that is present but invalid is 401 in both cases (CONTRACT §3).
 */
export const authPlugin = (options: AuthOptions) =>
  new Elysia({ name: 'auth' }).macro({
    auth: (requirement: AuthRequirement) => ({
      async resolve({ request }) {
        const identity = await identify(request, options);
        if (!identity) throw new Unauthorized();
        if (requirement === 'employee' && identity.aud !== 'employee') throw new Forbidden();
        return { identity };
      },
    }),
    optionalAuth: (enabled: boolean) => ({
      async resolve({ request }) {
        const viewer = enabled ? await identify(request, options) : undefined;
        if (viewer === null) throw new Unauthorized();
        return { viewer: viewer ?? null };
      },
    }),
  });
