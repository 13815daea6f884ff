import { existsSync } from 'node:fs';
import { findUserByEmail } from '@/accounts/users';
import { AUDIENCES, type Audience, parseDuration, TokenService } from '@/auth/tokens';
import { migrateDatabase, openDatabase } from '@/db/client';
import { cli, fail } from './cli';

const usage =
  'usage: bun run token -- (--sub ID | --email E) [--aud customer|employee] [--ttl 1h]   (--aud is required with --sub; with --email it defaults to the account role)';
const { values, config } = cli(usage, {
  sub: { type: 'string' },
  email: { type: 'string' },
  aud: { type: 'string' },
  ttl: { type: 'string' },
});

/** `--email`: the account's id (and role) from DATABASE_PATH. */
function accountOf(email: string): { id: string; role: Audience } {
  const path = config.databasePath;
  if (path === ':memory:' || !existsSync(path)) {
    fail(`no account with email ${email}: there is no database at ${path}`);
  }
  const db = openDatabase(path);
  migrateDatabase(db);
  const user = findUserByEmail(db, email);
  db.$client.close();
  if (!user) fail(`no account with email ${email} in ${path}`);
  return user;
}

if (Boolean(values.sub) === Boolean(values.email)) fail(usage);
const account = values.email ? accountOf(values.email) : undefined;
const aud = values.aud ?? account?.role;
if (!(AUDIENCES as readonly string[]).includes(aud ?? '')) fail(usage);
const sub = account?.id ?? values.sub!;
const ttl = parseDuration(values.ttl ?? '1h') ?? fail(`bad --ttl "${values.ttl}"\n${usage}`);
console.log(await new TokenService(config.jwtSecret).issue(sub, aud as Audience, ttl));
