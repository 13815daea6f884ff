import { z } from 'zod';
import { changeAccount } from '@/accounts/lifecycle';
import { accountByEmail, commandAudit, orFail, storedOnly } from './account-command';
import { cli, fail } from './cli';
import { openStores } from './database';

const usage = 'usage: bun run user:disable -- --email E [--enable]';
const { values, config } = cli(usage, {
  email: { type: 'string' },
  enable: { type: 'boolean' },
});

const input = z.object({ email: z.email() }).safeParse(values);
if (!input.success) fail(`${input.error.issues[0]?.message}\n${usage}`);

const database = await openStores(config.databasePath);
const user = await accountByEmail(database, input.data.email);
// Disabling ends every session and refuses every token; the last active employee stays (exit 1).
const account = await orFail(database, () =>
  changeAccount(
    database.stores.accounts,
    storedOnly,
    { id: user.id, change: { disabled: values.enable !== true } },
    commandAudit(),
  ),
);
console.log(JSON.stringify(account));
await database.close();
