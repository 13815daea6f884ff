import { Elysia } from 'elysia';
import {
  confirmEmailLink,
  EMAIL_LINK_TTL_MS,
  requestEmailChange,
  resendVerification,
} from '@/accounts/email-links';
import { accountOf } from '@/accounts/users';
import type { ApiDeps } from '@/api/deps';
import { auditContextOf } from '@/api/request/audit';
import { limitAddressOf } from '@/api/request/peer';
import { problems } from '../responses';
import { mailContextOf } from './http';
import { EmailChangeBody, EmailConfirmed, EmailLinkBody, EmailLinkSent } from './schemas';

const tags = ['Accounts'];
const hours = EMAIL_LINK_TTL_MS / 3_600_000;

/** The account's address: verified after sign-up, or changed (docs/accounts.md#email-verification). */
export const emailRoutes = (deps: ApiDeps) => {
  const { clock, config, auth, accounts, writes, tokenCutoffs } = deps;
  const store = deps.stores.accounts;
  const limit = accounts.emailLinks;
  return new Elysia({ name: 'accounts-email' })
    .use(auth)
    .use(writes)
    .post(
      '/email/verification',
      async ({ caller, request, status }) => {
        const user = await accountOf(store, caller.sub, 'account.required');
        await resendVerification(
          { store, limit },
          user,
          mailContextOf(request, config),
          auditContextOf(request, config, clock(), caller.sub),
        );
        return status(202, { message: VERIFICATION_SENT });
      },
      {
        auth: 'account',
        writes: 1,
        response: { 202: EmailLinkSent, ...problems(401, 403, 409, 429) },
        detail: {
          operationId: 'resendEmailVerification',
          summary: 'Mail a new link that verifies the account’s address',
          description: `For an account signed up under SIGN_UP=verify whose link was not followed yet: a new link (valid ${hours} hours) replaces the older one. 409 \`email.already_verified\` for a verified account; 429 past EMAIL_LINKS_PER_ACCOUNT_PER_HOUR (Retry-After).`,
          tags,
        },
      },
    )
    .post(
      '/email/change',
      async ({ caller, body, request, status }) => {
        const user = await accountOf(store, caller.sub, 'account.required');
        await requestEmailChange(
          { store, limit, guards: accounts },
          user,
          { ...body, address: limitAddressOf(request, config) },
          mailContextOf(request, config),
          auditContextOf(request, config, clock(), caller.sub),
        );
        return status(202, { message: CHANGE_SENT });
      },
      {
        auth: 'account',
        writes: 1,
        body: EmailChangeBody,
        response: { 202: EmailLinkSent, ...problems(401, 403, 422, 429, 503) },
        detail: {
          operationId: 'requestEmailChange',
          summary: 'Move the account to a new address, once confirmed from that address',
          description: `After the current password is checked (401 when wrong, counted as a failed sign-in), a link valid ${hours} hours is mailed to the new address; the account keeps its address until the link is followed, and the old address is then told. 422 for the address the account has already; 429 past EMAIL_LINKS_PER_ACCOUNT_PER_HOUR (Retry-After).`,
          tags,
        },
      },
    )
    .post(
      '/email/confirm',
      async ({ body, request }) => {
        const { email, purpose } = await confirmEmailLink(
          { store, revocation: tokenCutoffs },
          body.token,
          mailContextOf(request, config),
          auditContextOf(request, config, clock()),
        );
        return { email, purpose };
      },
      {
        writes: { exempt: 'anonymous: a link works once, and only its token finds a row' },
        body: EmailLinkBody,
        response: { 200: EmailConfirmed, ...problems(400, 409, 422) },
        detail: {
          operationId: 'confirmEmailLink',
          summary: 'Follow a verification or change-of-address link',
          description:
            '`verify`: the account’s address is verified and the account may use the API (bearer tokens issued before answer 401: sign in again). `change`: the account takes the new address, verified, and a notice goes to the old one. 400 `email_link.invalid` for a link unknown, used, expired or for an address the account no longer has; 409 `account.email_taken` when another account took the new address meanwhile; nothing changes either way.',
          tags,
        },
      },
    );
};

const VERIFICATION_SENT = `A new link to verify your address is on its way; it works once, for ${hours} hours.`;
const CHANGE_SENT = `A link to confirm the new address is on its way to it; it works once, for ${hours} hours. Your address stays as it is until then.`;
