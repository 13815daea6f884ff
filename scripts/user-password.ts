import { z } from 'zod';
import { argon2idHasher } from '@/accounts/hashing';
import { accountSummaryOf, setAccountPassword } from '@/accounts/lifecycle';
import { accountByEmail, commandAudit, commandNotice, orFail, storedOnly } from './account-command';
import { command, fail, loadConfig } from './cli';
import { userPasswordCommand } from './commands';
import { openStores } from './database';
import { readPassword } from './read-password';

const { values } = command(userPasswordCommand);
const config = loadConfig();

const password = z
  .string()
  .min(8, 'password must be at least 8 characters')
  .safeParse(await readPassword());
if (!password.success) fail(password.error.issues[0]!.message);

const database = await openStores(config.databasePath);
const user = await accountByEmail(database, values.email);
// Every session of the account ends; its bearer tokens issued until now are refused.
await orFail(database, () =>
  setAccountPassword(
    database.stores.accounts,
    { hasher: argon2idHasher, revocation: storedOnly },
    { id: user.id, password: password.data },
    commandAudit(),
    commandNotice(config),
  ),
);
console.log(JSON.stringify(accountSummaryOf(user)));
await database.close();
