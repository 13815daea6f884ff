import { existsSync } from 'node:fs';
import { AUDIENCES, type Audience, parseDuration, TokenService } from '@/auth/tokens';
import { cli, fail } from './cli';
import { databaseUrlOf, openStores } from './database';

const usage =
  'usage: bun run token -- (--sub ID | --email E) [--aud customer|employee] [--ttl 1h]   (--aud is required with --sub; with --email it defaults to the account role)';
const { values, config } = cli(usage, {
  sub: { type: 'string' },
  email: { type: 'string' },
  aud: { type: 'string' },
  ttl: { type: 'string' },
});

/** `--email`: the account's id (and role) from DATABASE_URL, or else DATABASE_PATH. */
async function accountOf(email: string): Promise<{ id: string; role: Audience }> {
  const path = config.databasePath;
  const noFile = path === ':memory:' || !existsSync(path);
  if (databaseUrlOf(process.env) === undefined && noFile) {
    fail(`no account with email ${email}: there is no database at ${path}`);
  }
  const database = await openStores(path);
  const user = await database.stores.accounts.findUserByEmail(email);
  await database.close();
  if (!user) fail(`no account with email ${email} in ${database.where}`);
  return user;
}

if (Boolean(values.sub) === Boolean(values.email)) fail(usage);
const account = values.email ? await accountOf(values.email) : undefined;
const aud = values.aud ?? account?.role;
if (!(AUDIENCES as readonly string[]).includes(aud ?? '')) fail(usage);
const sub = account?.id ?? values.sub!;
const ttl = parseDuration(values.ttl ?? '1h') ?? fail(`bad --ttl "${values.ttl}"\n${usage}`);
console.log(await new TokenService(config.jwtSecret).issue(sub, aud as Audience, ttl));
