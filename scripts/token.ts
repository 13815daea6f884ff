import { existsSync } from 'node:fs';
import { type Audience, parseDuration, TokenService } from '@/auth/tokens';
import { command, fail, loadConfig } from './cli';
import { tokenCommand } from './commands';
import { databaseUrlOf, openStores } from './database';

const { values, refuse } = command(tokenCommand);
const { email, sub } = values;
if (Boolean(sub) === Boolean(email)) refuse('give one of --sub and --email');
if (sub && !values.aud) refuse('--aud is required with --sub');
const config = loadConfig();

/**
 * The account of --email (exit 1 when there is none), or of --sub when it
 * is an account's id; in the database of DATABASE_URL, or else DATABASE_PATH.
 */
async function accountOf() {
  const path = config.databasePath;
  const noFile = path === ':memory:' || !existsSync(path);
  if (databaseUrlOf(process.env) === undefined && noFile) {
    // No database, no account: a --sub is signed as given.
    return email
      ? fail(`no account with email ${email}: there is no database at ${path}`)
      : undefined;
  }
  const database = await openStores(path);
  const { accounts } = database.stores;
  const user = email ? await accounts.findUserByEmail(email) : await accounts.findUserById(sub!);
  await database.close();
  if (!user && email) fail(`no account with email ${email} in ${database.where}`);
  return user;
}

const account = await accountOf();
// --sub comes with --aud; an --email without an account has exited 1.
const aud: Audience = values.aud ?? account!.role;
if (account && account.role !== aud) {
  const whose = `${account.email} (${account.id}) is ${account.role === 'employee' ? 'an' : 'a'} ${account.role}`;
  // The service grants what the audience says, not what the account is.
  if (!values['allow-role-mismatch']) {
    refuse(
      `--aud ${aud} is not the account's role: ${whose}; add --allow-role-mismatch to mint it anyway`,
    );
  }
  console.error(
    `token: WARNING: --allow-role-mismatch: ${whose}, and this token grants it ${aud} access until it expires`,
  );
}
const ttl = parseDuration(values.ttl ?? '1h')!;
console.log(await new TokenService(config.jwtSecret).issue(account?.id ?? sub!, aud, ttl));
