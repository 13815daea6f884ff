import type { AuditContext } from '@/audit/record';
import type { TokenRevocation } from '@/auth/revocation';
import type { EmailLink, User } from '@/db/sqlite/schema';
import { fail, fieldError } from '@/kernel/errors';
import { outboxRowOf } from '@/mail/operations';
import type { MailLanguage } from '@/mail/templates';
import type { AddressBound } from './address-limit';
import { normalizeEmail } from './email';
import type { EmailConfirmation, EmailLinkMail } from './email-link-operations';
import { checkCurrentPassword, type LifecycleGuards } from './lifecycle';
import { hashOfLinkToken, newLinkToken } from './link-tokens';
import { ALREADY_VERIFIED_DETAIL } from './messages';
import type { AccountStore } from './store';

/** How long a verification or change-of-address link works (docs/accounts.md#email-verification). */
export const EMAIL_LINK_TTL_MS = 24 * 3_600_000;

/** Where and how a message about the account's address is written. */
export interface MailContext {
  language: MailLanguage;
  /** The service's public origin: links open its /account page. */
  origin: string;
  service: string;
}

const TEMPLATE_OF = { verify: 'email-verification', change: 'email-change-confirm' } as const;
/** The fragment of /account that carries a link's token (the page posts it back). */
const FRAGMENT_OF = { verify: 'verify', change: 'email-change' } as const;

/**
 * A new link of `purpose` to `email` for `userId` and the message carrying
 * it: a random token in the link, only its hash stored (./link-tokens.ts).
 */
export function newEmailLink(
  purpose: EmailLink['purpose'],
  to: { userId: string; email: string },
  context: MailContext,
  at: number,
): EmailLinkMail {
  const token = newLinkToken();
  const email = normalizeEmail(to.email);
  const mail = outboxRowOf({
    to: email,
    template: TEMPLATE_OF[purpose],
    language: context.language,
    data: {
      service: context.service,
      link: `${context.origin}/account#${FRAGMENT_OF[purpose]}=${token}`,
      hours: String(EMAIL_LINK_TTL_MS / 3_600_000),
    },
  });
  const link = {
    id: hashOfLinkToken(token),
    userId: to.userId,
    purpose,
    email,
    createdAt: new Date(at),
    expiresAt: new Date(at + EMAIL_LINK_TTL_MS),
  };
  return { link, mail };
}

/**
 * Sends the signed-in account a new verification link (the older one stops
 * working), bounded per account (EMAIL_LINKS_PER_ACCOUNT_PER_HOUR, 429 past
 * it). An account verified already: 409 `email.already_verified`, nothing sent.
 */
export async function resendVerification(
  deps: { store: AccountStore; limit: AddressBound },
  user: User,
  context: MailContext,
  audit: AuditContext,
): Promise<void> {
  if (!user.emailUnverified) {
    throw fail('email.already_verified', { detail: ALREADY_VERIFIED_DETAIL });
  }
  await deps.limit.take(user.id);
  const sent = newEmailLink('verify', { userId: user.id, email: user.email }, context, audit.at);
  await deps.store.sendEmailLink(sent, audit, {
    action: 'email_verification.sent',
    subject: user.id,
    details: { email: user.email },
  });
}

/**
 * The signed-in account asks to move to a new address: after its current
 * password is checked (as for a new password), a link goes to the new
 * address and nothing else changes until it is followed. Bounded per
 * account with the verification links. Whether the new address has an
 * account is told only when the link is followed, by its owner: asking
 * reveals nothing. The address it has already: 422.
 */
export async function requestEmailChange(
  deps: { store: AccountStore; limit: AddressBound; guards: Omit<LifecycleGuards, 'revocation'> },
  user: User,
  input: { email: string; currentPassword: string; address: string },
  context: MailContext,
  audit: AuditContext,
): Promise<void> {
  const email = normalizeEmail(input.email);
  if (email === user.email) {
    throw fieldError(['email'], 'different', 'The new address must differ from the current one.');
  }
  await deps.limit.take(user.id);
  await checkCurrentPassword(
    deps.store,
    deps.guards,
    user,
    { ...input, purpose: 'email_change' },
    audit,
  );
  const sent = newEmailLink('change', { userId: user.id, email }, context, audit.at);
  await deps.store.sendEmailLink(sent, audit, {
    action: 'email_change.requested',
    subject: user.id,
    details: { to: email },
  });
}

/**
 * Follows a verification or change link (anonymous: the link may be opened
 * in another browser); see `confirmEmailLink` of the store. The change's
 * notice to the old address is written in `context`'s language.
 */
export async function confirmEmailLink(
  deps: { store: AccountStore; revocation: TokenRevocation },
  token: string,
  context: MailContext,
  audit: AuditContext,
): Promise<EmailConfirmation> {
  const id = hashOfLinkToken(token);
  const change = deps.store.confirmEmailLink(id, audit, (from, to) =>
    outboxRowOf({
      to: from,
      template: 'email-change-notice',
      language: context.language,
      data: { service: context.service, email: to, link: `${context.origin}/account#security-log` },
    }),
  );
  const { value, cutoff } = await change;
  if (cutoff !== undefined) await deps.revocation.revoke(value.userId, cutoff);
  return value;
}
