/**
 * `bun scripts/make-upgrade-fixture.ts FILE`: the database a release leaves
 * behind, for the upgrade test (test/db/upgrade-from-release.test.ts). Run it
 * from a checkout of the release being recorded: it migrates a new FILE with
 * that release's migrations, fills it with the demo data set through the
 * domain code (accounts, neighbourhoods, properties with units, pages, plans,
 * transactions), adds a session, an idempotency key and a job run, and
 * compacts it. Fixed clock and ids come from the data set, so two runs differ
 * only in generated ids and password salts.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { migrateDatabase, openDatabase } from '@/db/sqlite/client';
import { fail } from './cli';
import { sqliteScriptStores } from './database';
import { fillDemo } from './demo-data';

const [path] = Bun.argv.slice(2).filter((arg) => arg !== '--');
if (!path) fail('usage: bun scripts/make-upgrade-fixture.ts FILE');
if (existsSync(path)) fail(`${path} exists; remove it first`);

const AT = Date.UTC(2026, 10, 24, 12, 0, 0);
const db = openDatabase(path);
migrateDatabase(db);
const { employee } = await fillDemo(
  sqliteScriptStores(db),
  join(import.meta.dir, '..', 'content'),
  AT,
);
const client = db.$client;
client.run(
  "INSERT INTO sessions (id, user_id, created_at, expires_at) VALUES ('fixture-session', ?, ?, ?)",
  [employee.id, AT, AT + 86_400_000],
);
client.run(
  "INSERT INTO idempotency_keys (scope, key, method, path, request_hash, status, headers, body, created_at) VALUES (?, 'fixture-key', 'POST', '/listings/properties', 'h', 201, '{}', '', ?)",
  [`employee:${employee.id}`, AT],
);
client.run(
  "INSERT INTO job_runs (job, started_at, finished_at, outcome, details) VALUES ('database-backup', ?, ?, 'succeeded', '{}')",
  [AT, AT + 1000],
);
client.run('PRAGMA wal_checkpoint(TRUNCATE)');
client.run('VACUUM');
client.close();
console.log(`wrote ${path}`);
