import { createHash, randomBytes } from 'node:crypto';
import type { AuditContext } from '@/audit/record';
import type { TokenRevocation } from '@/auth/revocation';
import type { Clock } from '@/kernel/clock';
import { fail } from '@/kernel/errors';
import { queueMail } from '@/mail/operations';
import { renderMail } from '@/mail/render';
import type { MailOutboxStore } from '@/mail/store';
import type { MailLanguage } from '@/mail/templates';
import type { AddressBound } from './address-limit';
import { normalizeEmail } from './email';
import type { CallerHasher } from './hashing';
import { admitHashing, type HashingLimits } from './hashing-limits';
import type { AccountStore } from './store';

/** How long a reset link works after it is sent (docs/accounts.md#password-reset). */
export const PASSWORD_RESET_TTL_MS = 30 * 60_000;

/** The link's secret: 256 random bits; only its SHA-256 is stored. */
const newToken = () => randomBytes(32).toString('base64url');
const hashOfToken = (token: string) => createHash('sha256').update(token).digest('hex');

/** Reset requests per client address and per typed email, each within its own hour. */
export interface PasswordResetLimits {
  perAddress: AddressBound;
  perAccount: AddressBound;
}

export interface PasswordResetRequest {
  email: string;
  address: string;
  language: MailLanguage;
  /** Where the link points: the account page of the service's public origin. */
  origin: string;
  service: string;
}

/**
 * Sends a reset link to an account's address. Answered the same whether
 * or not the address has a usable account, in the same work: both make a
 * token and its hash, render the message and write one transaction with
 * the security-log event; only an account (not disabled) gets the link
 * stored and the message queued. Bounded per client address and per typed
 * email (429 past either), counted the same for every email.
 */
export async function requestPasswordReset(
  deps: { store: AccountStore; mail: MailOutboxStore; clock: Clock; limits: PasswordResetLimits },
  input: PasswordResetRequest,
  audit: AuditContext,
): Promise<void> {
  const { store, mail, clock, limits } = deps;
  await limits.perAddress.take(input.address);
  await limits.perAccount.take(normalizeEmail(input.email));
  const token = newToken();
  const id = hashOfToken(token);
  const link = `${input.origin}/account#reset=${token}`;
  const minutes = String(PASSWORD_RESET_TTL_MS / 60_000);
  const data = { service: input.service, link, minutes };
  // Rendered for an unknown address too: the two answers cost the same.
  renderMail('password-reset', input.language, data);
  const user = await store.findUserByEmail(input.email);
  const usable = user !== undefined && user.disabledAt === null;
  await store.startPasswordReset(
    usable
      ? {
          id,
          userId: user.id,
          createdAt: new Date(audit.at),
          expiresAt: new Date(audit.at + PASSWORD_RESET_TTL_MS),
        }
      : null,
    audit,
  );
  if (usable) {
    await queueMail(mail, clock, {
      to: user.email,
      template: 'password-reset',
      language: input.language,
      data,
    });
  }
}

/**
 * Sets a new password from a reset link: under the hashing limits of the
 * address; a link unknown, used or expired is refused (400) before
 * anything is hashed, and again inside the write, so two uses at once set
 * one password. Then, as a password change: every session ends and every
 * bearer token issued until now is refused.
 */
export async function completePasswordReset(
  store: AccountStore,
  guards: { hasher: CallerHasher; limits: HashingLimits; revocation: TokenRevocation },
  input: { token: string; password: string; address: string },
  audit: AuditContext,
): Promise<void> {
  const caller = { address: input.address };
  await admitHashing(guards.limits, { caller, accountKey: `reset ${input.address}` });
  const id = hashOfToken(input.token);
  const reset = await store.findPasswordReset(id);
  if (!reset || reset.expiresAt.getTime() <= audit.at) throw fail('password_reset.invalid');
  const passwordHash = await guards.hasher.hash(input.password, caller);
  const { cutoff } = await store.completePasswordReset(id, passwordHash, audit);
  if (cutoff !== undefined) await guards.revocation.revoke(reset.userId, cutoff);
}
