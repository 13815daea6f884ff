import { BackupError, restoreDatabase } from '@/backups';
import { ConfigError, parseConfig } from '@/config';
import { migrateDatabase, openDatabase } from '@/db/client';
import { fail } from './cli';

const usage =
  'usage: bun run restore -- FILE   (a backup .db.gz, or a SQLite file; server stopped)';
const args = Bun.argv.slice(2).filter((arg) => arg !== '--');
const [file] = args;
if (args.length !== 1 || !file || file.startsWith('-')) fail(usage);

let config: ReturnType<typeof parseConfig>;
try {
  config = parseConfig(process.env);
} catch (error) {
  fail(error instanceof ConfigError ? `Invalid configuration: ${error.message}` : String(error));
}
const path = config.databasePath;
if (path === ':memory:') fail('DATABASE_PATH is :memory:; nothing to restore into');

try {
  const { previous } = await restoreDatabase(file, path);
  const db = openDatabase(path);
  migrateDatabase(db);
  db.$client.close();
  console.log(
    `restored ${file} into ${path}${previous ? `; the replaced database is kept as ${previous}` : ''}`,
  );
} catch (error) {
  fail(
    error instanceof BackupError
      ? `restore refused: ${error.message}`
      : `restore failed: ${String(error)}`,
  );
}
