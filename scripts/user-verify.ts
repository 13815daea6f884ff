import { changeAccount } from '@/accounts/lifecycle';
import { accountByEmail, commandAudit, orFail, storedOnly } from './account-command';
import { command, loadConfig } from './cli';
import { userVerifyCommand } from './commands';
import { openStores } from './database';

const { values } = command(userVerifyCommand);
const config = loadConfig();

const database = await openStores(config.databasePath);
const user = await accountByEmail(database, values.email);
// As following its link: the verification links go, the tokens that said unverified end.
const account = await orFail(database, () =>
  changeAccount(
    database.stores.accounts,
    storedOnly,
    { id: user.id, change: { emailVerified: true } },
    commandAudit(),
  ),
);
console.log(JSON.stringify(account));
await database.close();
