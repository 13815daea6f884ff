/**
 * `npm run demo [-- --reset]`: fills the database (PostgreSQL at
 * DATABASE_URL when it is set, else SQLite at DATABASE_PATH; migrated first)
 * with a small realistic data set (scripts/demo-data.ts), prints the demo
 * accounts' credentials (once, when created), a 24 h token for each and
 * three curl commands to try. Running it again adds nothing. `--reset`
 * deletes the SQLite file (and its -wal / -shm) first, so everything in it
 * is gone, not only the demo's data; the jwt-secret file beside it is kept.
 * Stop the server before a reset. With DATABASE_URL set, `--reset` is
 * refused: emptying a PostgreSQL database is for `dropdb` and `createdb`,
 * by someone who knows what else it holds.
 */
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { TokenService } from '@/auth/tokens';
import { command, fail, loadConfig } from './cli';
import { demoCommand } from './commands';
import { databaseUrlOf, openStores } from './database';
import { countRows, type DemoAccount, fillDemo } from './demo-data';

const { values } = command(demoCommand);
const config = loadConfig();
const path = config.databasePath;
const onPostgres = databaseUrlOf(process.env) !== undefined;
if (onPostgres && values.reset) {
  fail(
    'demo: --reset deletes the SQLite file at DATABASE_PATH; with DATABASE_URL set, drop and create the database instead (dropdb, createdb), then run the demo',
  );
}
if (!onPostgres && path === ':memory:') {
  fail('demo: DATABASE_PATH is :memory:, so the data would vanish at once');
}

if (values.reset) {
  for (const suffix of ['', '-wal', '-shm', '-journal'])
    rmSync(`${path}${suffix}`, { force: true });
  console.log(`reset: deleted ${path}`);
}

const database = await openStores(path);
const demo = await fillDemo(database.stores, join(import.meta.dir, '..', 'content'));
const counts = await countRows(database.countRows);
await database.close();

const DAY_SECONDS = 24 * 3600;
const tokens = new TokenService(config.jwtSecret);
const employeeToken = await tokens.issue(demo.employee.id, 'employee', DAY_SECONDS);
const customerToken = await tokens.issue(demo.customer.id, 'customer', DAY_SECONDS);

const account = (label: string, { email, id, password }: DemoAccount) =>
  `  ${label}  ${email}  id ${id}\n    password: ${
    password ?? '(set when it was created; `npm run demo -- --reset` starts over)'
  }`;
// Where the server answers: PUBLIC_ORIGIN when set, else this machine at PORT.
const base = process.env.PUBLIC_ORIGIN
  ? config.publicOrigins[0]!
  : `${config.tls ? 'https' : 'http'}://localhost:${config.port}`;
const bearer = (token: string) => `-H 'Authorization: Bearer ${token}'`;

console.log(`demo data in ${database.where}:`);
console.log(
  Object.entries(counts)
    .map(([table, n]) => `  ${table.padEnd(26)} ${n}`)
    .join('\n'),
);
for (const { file, reason } of demo.refusedPages) console.error(`page ${file} refused: ${reason}`);
console.log('\naccounts (passwords are shown only when created):');
console.log(account('employee', demo.employee));
console.log(account('customer', demo.customer));
console.log('\ntokens (valid 24 h):');
console.log(`  employee  ${employeeToken}`);
console.log(`  customer  ${customerToken}`);
console.log('\ntry (with `npm start` or `npm run dev` running):');
console.log(`curl ${bearer(customerToken)} '${base}/listings/properties?itemsPerPage=5'`);
console.log(`curl '${base}/listings/properties/${demo.sampleProperty}'`);
console.log(`curl ${bearer(customerToken)} '${base}/api/v1/tokens/limits'`);
