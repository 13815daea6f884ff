import { Elysia } from 'elysia';
import {
  completePasswordReset,
  PASSWORD_RESET_TTL_MS,
  requestPasswordReset,
} from '@/accounts/password-reset';
import type { ApiDeps } from '@/api/deps';
import { auditContextOf } from '@/api/request/audit';
import { noticeOf, notifiedText } from '@/api/request/notice';
import { limitAddressOf } from '@/api/request/peer';
import { NoBody, problems } from '../responses';
import { mailContextOf } from './http';
import { PasswordResetAccepted, PasswordResetBody, PasswordResetConfirmBody } from './schemas';

const tags = ['Accounts'];
const minutes = PASSWORD_RESET_TTL_MS / 60_000;

/** "Forgot your password?": a link by mail, then a new password from it (docs/accounts.md#password-reset). */
export const passwordResetRoutes = (deps: ApiDeps) => {
  const { clock, config, accounts, writes, tokenCutoffs, deferred } = deps;
  const store = deps.stores.accounts;
  return new Elysia({ name: 'accounts-password-reset' })
    .use(writes)
    .post(
      '/password-reset',
      async ({ body, request, status }) => {
        await requestPasswordReset(
          { store, limits: accounts.resets, defer: (task) => deferred.defer(task) },
          {
            email: body.email,
            address: limitAddressOf(request, config),
            ...mailContextOf(request, config),
          },
          auditContextOf(request, config, clock()),
        );
        return status(202, PASSWORD_RESET_ACCEPTED);
      },
      {
        writes: {
          exempt:
            'anonymous: bounded per address and per email (PASSWORD_RESETS_PER_IP_PER_HOUR, PASSWORD_RESETS_PER_ACCOUNT_PER_HOUR)',
        },
        body: PasswordResetBody,
        response: { 202: PasswordResetAccepted, ...problems(422, 429) },
        detail: {
          operationId: 'requestPasswordReset',
          summary:
            'Mail a password reset link (the same 202 whether or not the email has an account)',
          description: `Answered before the work: the lookup and the message follow the 202, so it takes the same time whether or not the email has an account. The link opens /account and works once, for ${minutes} minutes; a newer request replaces it. 429 past PASSWORD_RESETS_PER_IP_PER_HOUR from one address or PASSWORD_RESETS_PER_ACCOUNT_PER_HOUR for one email (Retry-After). The message is in the first language of Accept-Language the service writes mail in (en, es), else English.`,
          tags,
        },
      },
    )
    .post(
      '/password-reset/confirm',
      async ({ body, request, set }) => {
        await completePasswordReset(
          store,
          { ...accounts, revocation: tokenCutoffs },
          { ...body, address: limitAddressOf(request, config) },
          auditContextOf(request, config, clock()),
          noticeOf(request, accounts.notifications),
        );
        set.status = 204;
        return null;
      },
      {
        writes: {
          exempt:
            'anonymous: bounded per address by the hashing limits (PASSWORD_HASHES_PER_IP_PER_MINUTE)',
        },
        body: PasswordResetConfirmBody,
        response: { 204: NoBody, ...problems(400, 422, 429, 503) },
        detail: {
          operationId: 'confirmPasswordReset',
          summary:
            'Set a new password from a reset link (ends every session, revokes bearer tokens)',
          description: `400 \`password_reset.invalid\` for a link unknown, already used or expired (nothing changes); 422 for a password under 8 characters. Every session of the account ends and every bearer token issued until now answers 401, as after a password change. An account whose address was not verified yet is verified (the link reached it). ${notifiedText('password-changed')}`,
          tags,
        },
      },
    );
};

const PASSWORD_RESET_ACCEPTED = {
  message: `If the address has an account, a link to choose a new password is on its way; it works once, for ${minutes} minutes.`,
};
