import type { TokenService } from '@/auth/tokens';
import { Forbidden, Unauthorized } from '../errors';
import { identify, SESSION_COOKIE } from '../plugins/auth';

type Requirement = 'any' | 'employee';

const hasSessionCookie = (request: Request) =>
  (request.headers.get('cookie') ?? '')
    .split(';')
    .some((part) => part.trim().startsWith(`${SESSION_COOKIE}=`));

/**
 * Elysia validates params and body before the `auth` macro resolves, which
 * would answer 400/422 to a caller without credentials. This transform hook
 * runs before validation and refuses a missing or invalid bearer token (401)
 * and a customer on an employee route (403) first; the macro still resolves
 * the identity (cached by TokenService). A session cookie is left to the
 * macro, which alone knows how to resolve sessions.
 */
export function callerFirst(tokens: TokenService, requirement: Requirement) {
  return async ({ request }: { request: Request }) => {
    const identity = await identify(request, { tokens });
    if (identity === null) throw new Unauthorized();
    if (identity === undefined) {
      if (hasSessionCookie(request)) return;
      throw new Unauthorized();
    }
    if (requirement === 'employee' && identity.aud !== 'employee') throw new Forbidden();
  };
}

/** Route options for a caller requirement: the `auth` macro plus the early check. */
export const callers = (tokens: TokenService) => ({
  any: { auth: 'any' as const, transform: callerFirst(tokens, 'any') },
  employee: { auth: 'employee' as const, transform: callerFirst(tokens, 'employee') },
});
