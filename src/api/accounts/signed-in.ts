import type { Context } from 'elysia';
import { signIn } from '@/accounts/sign-in';
import type { ApiDeps } from '@/api/deps';
import type { User } from '@/db/schema';
import { sessionCookie } from './http';

/** Both sign-in paths answer alike: the token body, a session cookie, never cached. */
export async function signedInResponse(
  { db, tokens, clock, config }: ApiDeps,
  request: Request,
  set: Context['set'],
  user: User,
) {
  const now = clock();
  const { body, session } = await signIn(db, tokens, user, now);
  const maxAge = Math.floor((session.expiresAt - now) / 1000);
  set.headers['set-cookie'] = sessionCookie(request, config, session.token, maxAge);
  set.headers['cache-control'] = 'no-store';
  return body;
}
