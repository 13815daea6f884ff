/**
 * `bun test/support/postgres-clones.ts TEMPLATE COUNT`: makes COUNT copies
 * of the test database TEMPLATE (creating and migrating it first when it is
 * not there yet) and prints their names as a JSON array. A child process,
 * so that `createTestApp`, which is synchronous, can wait for databases
 * (test/support/postgres-mode.ts).
 */
import { SQL } from 'bun';
import { migratePostgres } from '@/db/pg/migrate';
import {
  createTestDatabase,
  POSTGRES_ADMIN_URL,
  testDatabaseName,
  testDatabaseUrl,
} from './postgres';

const [templateName, countText = '1'] = process.argv.slice(2);
if (!templateName) throw new Error('usage: postgres-clones.ts TEMPLATE COUNT');

const admin = new SQL(POSTGRES_ADMIN_URL, { max: 1 });
const [found] = await admin`SELECT 1 FROM pg_database WHERE datname = ${templateName}`;
await admin.close();
if (!found) {
  await createTestDatabase(undefined, templateName);
  await migratePostgres(testDatabaseUrl(templateName));
}
const template = { name: templateName, url: testDatabaseUrl(templateName), drop: async () => {} };
const names: string[] = [];
for (let i = 0; i < Number(countText); i++) {
  names.push((await createTestDatabase(template, testDatabaseName())).name);
}
console.log(JSON.stringify(names));
