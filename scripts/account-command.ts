/**
 * What `user:password`, `user:disable` and `user:verify` share: the account by its email,
 * the security-log context of a command, and a refusal as one line.
 * A command announces nothing to running servers: each loads the token
 * cut-offs again within 30 seconds (docs/operations.md); the sessions it
 * ends are gone at once.
 */

import { type AccountChange, changeAccount } from '@/accounts/lifecycle';
import { toolContext } from '@/audit/record';
import type { TokenRevocation } from '@/auth/revocation';
import type { Config } from '@/config';
import { isDomainError } from '@/kernel/errors';
import { mailNotificationsOf, type Notice } from '@/mail/notifications';
import { openStores, type ScriptDatabase } from './database';

/** The cut-off is stored with the change; nothing in this process holds tokens. */
export const storedOnly: TokenRevocation = { revoke: () => {} };

export const commandAudit = () => toolContext(Date.now());

/**
 * The notice of a command's change (the account holder is told, as the
 * server's jobs then send it): a command has no Accept-Language, and the
 * service stores no language per account, so it is in English.
 */
export const commandNotice = (config: Config): Notice => ({
  notifications: mailNotificationsOf(config),
  language: 'en',
});

/** The account of `email`, or exit 1 naming it. */
export async function accountByEmail(database: ScriptDatabase, email: string) {
  const user = await database.stores.accounts.findUserByEmail(email);
  return user ?? (await database.fail(`no account with email ${email}`));
}

/** Runs `change`; a domain refusal (the last employee) exits 1 with its sentence. */
export async function orFail<T>(database: ScriptDatabase, change: () => Promise<T>): Promise<T> {
  try {
    return await change();
  } catch (error) {
    if (isDomainError(error)) return database.fail(error.message);
    throw error;
  }
}

/**
 * `user:disable` and `user:verify`: `change` to the account of `email` on
 * the configured database, the account then printed as JSON; a refusal
 * (the last employee) or an unknown email exits 1.
 */
export async function changeAccountByEmail(
  config: Config,
  email: string,
  change: AccountChange,
  notice?: Notice,
): Promise<void> {
  const database = await openStores(config.databasePath);
  const user = await accountByEmail(database, email);
  const account = await orFail(database, () =>
    changeAccount(
      database.stores.accounts,
      storedOnly,
      { id: user.id, change },
      commandAudit(),
      notice,
    ),
  );
  console.log(JSON.stringify(account));
  await database.close();
}
