import { changeAccount } from '@/accounts/lifecycle';
import { accountByEmail, commandAudit, commandNotice, orFail, storedOnly } from './account-command';
import { command, loadConfig } from './cli';
import { userDisableCommand } from './commands';
import { openStores } from './database';

const { values } = command(userDisableCommand);
const config = loadConfig();

const database = await openStores(config.databasePath);
const user = await accountByEmail(database, values.email);
// Disabling ends every session and refuses every token; the last active employee stays (exit 1).
const account = await orFail(database, () =>
  changeAccount(
    database.stores.accounts,
    storedOnly,
    { id: user.id, change: { disabled: values.enable !== true } },
    commandAudit(),
    commandNotice(config),
  ),
);
console.log(JSON.stringify(account));
await database.close();
