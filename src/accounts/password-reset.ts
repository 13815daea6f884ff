import type { AuditContext } from '@/audit/record';
import type { TokenRevocation } from '@/auth/revocation';
import { fail } from '@/kernel/errors';
import { outboxRowOf } from '@/mail/operations';
import type { MailLanguage } from '@/mail/templates';
import type { AddressBound } from './address-limit';
import { normalizeEmail } from './email';
import type { CallerHasher } from './hashing';
import { admitHashing, type HashingLimits } from './hashing-limits';
import { hashOfLinkToken, newLinkToken } from './link-tokens';
import type { Notice } from './notifications';
import type { AccountStore } from './store';

/** How long a reset link works after it is sent (docs/accounts.md#password-reset). */
export const PASSWORD_RESET_TTL_MS = 30 * 60_000;

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
 * Sends a reset link to an account's address. Only the bounds are taken
 * before the answer (429 past either, counted the same for every email);
 * everything that differs between an address with an account and one
 * without (the lookup, the link, the message) is deferred until after it,
 * so the answer takes the same time for both (`npm run bench:password-reset`
 * prints the ratio). `defer` tracks that work so a shutdown waits for it.
 */
export async function requestPasswordReset(
  deps: { store: AccountStore; limits: PasswordResetLimits; defer: (task: () => unknown) => void },
  input: PasswordResetRequest,
  audit: AuditContext,
): Promise<void> {
  const { store, limits } = deps;
  await limits.perAddress.take(input.address);
  await limits.perAccount.take(normalizeEmail(input.email));
  deps.defer(() => startPasswordReset(store, input, audit));
}

/**
 * The work of a reset request, after its answer: both cases make a token
 * and its hash, render the message and commit one transaction that writes
 * it and the security-log event; only an account (not disabled) keeps the
 * link and the message.
 */
export async function startPasswordReset(
  store: AccountStore,
  input: PasswordResetRequest,
  audit: AuditContext,
): Promise<void> {
  const token = newLinkToken();
  const id = hashOfLinkToken(token);
  const data = {
    service: input.service,
    link: `${input.origin}/account#reset=${token}`,
    minutes: String(PASSWORD_RESET_TTL_MS / 60_000),
  };
  const user = await store.findUserByEmail(input.email);
  const mail = outboxRowOf({
    to: user?.email ?? normalizeEmail(input.email),
    template: 'password-reset',
    language: input.language,
    data,
  });
  const usable = user !== undefined && user.disabledAt === null;
  const link = usable
    ? {
        id,
        userId: user.id,
        createdAt: new Date(audit.at),
        expiresAt: new Date(audit.at + PASSWORD_RESET_TTL_MS),
      }
    : null;
  await store.startPasswordReset({ link, mail }, audit);
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
  notice?: Notice,
): Promise<void> {
  const caller = { address: input.address };
  await admitHashing(guards.limits, { caller, accountKey: `reset ${input.address}` });
  const id = hashOfLinkToken(input.token);
  const reset = await store.findPasswordReset(id);
  if (!reset || reset.expiresAt.getTime() <= audit.at) throw fail('password_reset.invalid');
  const passwordHash = await guards.hasher.hash(input.password, caller);
  const { cutoff } = await store.completePasswordReset(id, passwordHash, audit, notice);
  if (cutoff !== undefined) await guards.revocation.revoke(reset.userId, cutoff);
}
