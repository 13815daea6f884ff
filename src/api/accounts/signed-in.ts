import { withHeaders } from '@elysiajs/openapi';
import type { Context } from 'elysia';
import { z } from 'zod';
import { type SignInMethod, signIn } from '@/accounts/sign-in';
import type { ApiDeps } from '@/api/deps';
import { noticeOf, notifiedText } from '@/api/request/notice';
import type { AuditContext } from '@/audit/record';
import type { User } from '@/db/sqlite/schema';
import { NoBody } from '../responses';
import { sessionCookie } from './http';
import { SignInResponse } from './schemas';

const SetCookie = z
  .string()
  .describe('The session cookie (HttpOnly, SameSite=Lax; Secure over HTTPS)');

/** The answer of both sign-ins, documented with its cookie. */
export const SignedIn = withHeaders(SignInResponse, { 'Set-Cookie': SetCookie });

/** Sign-out's 204, documented with the cookie that clears the session. */
export const SignedOut = withHeaders(NoBody, {
  'Set-Cookie': z.string().describe('The session cookie, emptied (Max-Age=0)'),
});

/** What both sign-ins' OpenAPI descriptions say of the new-device notification. */
export const NEW_DEVICE_TEXT = notifiedText(
  'new-device',
  ' when none of its live sessions was started from the same browser, system and network',
);

/** Both sign-in paths answer alike: the token body, a session cookie, never cached. */
export async function signedInResponse(
  { stores: { accounts: accountStore }, tokens, config, accounts }: ApiDeps,
  set: Context['set'],
  request: Request,
  user: User,
  sign: { method: SignInMethod; audit: AuditContext },
) {
  const { body, session } = await signIn(accountStore, tokens, user, {
    ...sign,
    sessionsPerAccount: config.accounts.sessionsPerAccount,
    notice: noticeOf(request, accounts.notifications),
  });
  const now = sign.audit.at;
  const maxAge = Math.floor((session.expiresAt - now) / 1000);
  set.headers['set-cookie'] = sessionCookie(config, session.token, maxAge);
  set.headers['cache-control'] = 'no-store';
  return body;
}
