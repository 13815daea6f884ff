import { z } from 'zod';
import { insertUser } from '@/accounts/users';
import { command, fail, loadConfig } from './cli';
import { userCreateCommand } from './commands';
import { openStores } from './database';
import { ARGV_PASSWORD_WARNING, readPassword } from './read-password';

// Every option is checked before the password is asked for.
const { values } = command(userCreateCommand);
const config = loadConfig();

/** `--password` still works, with a warning: prefer stdin or the prompt. */
async function passwordOf(given: string | undefined): Promise<string> {
  if (given === undefined) return readPassword();
  console.error(ARGV_PASSWORD_WARNING);
  return given;
}

const input = z
  .object({
    email: z.email(),
    password: z.string().min(8, 'password must be at least 8 characters'),
    role: z.enum(['customer', 'employee']).default('customer'),
  })
  .safeParse({ ...values, password: await passwordOf(values.password) });
if (!input.success) fail(input.error.issues[0]!.message);

const database = await openStores(config.databasePath);
const taken = `a user with email ${input.data.email} exists`;
const accounts = database.stores.accounts;
if (await accounts.findUserByEmail(input.data.email)) await database.fail(taken);
// Undefined when another creation of this email committed first.
const user = (await insertUser(accounts, input.data)) ?? (await database.fail(taken));
console.log(JSON.stringify({ id: user.id, email: user.email, role: user.role }));
await database.close();
