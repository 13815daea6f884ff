import { BackupError, restoreDatabase, UpgradeError, upgradeDatabase } from '@/backups';
import { migrationsFolder, openDatabase } from '@/db/client';
import { readMigrations } from '@/db/migrate';
import { command, fail, loadConfig } from './cli';
import { restoreCommand } from './commands';
import { refuseOnPostgres } from './database';

const [file] = command(restoreCommand).operands as [string];
refuseOnPostgres('restore');
const config = loadConfig();
const path = config.databasePath;
if (path === ':memory:') fail('DATABASE_PATH is :memory:; nothing to restore into');

try {
  const { previous } = await restoreDatabase(file, path);
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

// A backup of an older version is brought up to date as the server would at start.
const db = openDatabase(path);
try {
  const { applied } = await upgradeDatabase(db.$client, readMigrations(migrationsFolder), {
    backupDir: config.backups.dir,
    now: Date.now(),
  });
  if (applied.length > 0)
    console.log(`applied ${applied.length} migration(s): ${applied.join(', ')}`);
} catch (error) {
  fail(error instanceof UpgradeError ? error.message : `migration failed: ${String(error)}`);
} finally {
  db.$client.close();
}
