import { z } from 'zod';
import { argon2idHasher } from '@/accounts/hashing';
import { accountSummaryOf, setAccountPassword } from '@/accounts/lifecycle';
import { accountByEmail, commandAudit, orFail, storedOnly } from './account-command';
import { cli, fail } from './cli';
import { openStores } from './database';
import { readPassword } from './read-password';

const usage =
  'usage: bun run user:password -- --email E (the new password on stdin or at the prompt)';
const { values, config } = cli(usage, { email: { type: 'string' } });

const input = z
  .object({
    email: z.email(),
    password: z.string().min(8, 'password must be at least 8 characters'),
  })
  .safeParse({ ...values, password: values.email === undefined ? '' : await readPassword() });
if (!input.success) fail(`${input.error.issues[0]?.message}\n${usage}`);

const database = await openStores(config.databasePath);
const user = await accountByEmail(database, input.data.email);
// Every session of the account ends; its bearer tokens issued until now are refused.
await orFail(database, () =>
  setAccountPassword(
    database.stores.accounts,
    { hasher: argon2idHasher, revocation: storedOnly },
    { id: user.id, password: input.data.password },
    commandAudit(),
  ),
);
console.log(JSON.stringify(accountSummaryOf(user)));
await database.close();
