/**
 * `bun test/support/upgrade-process.ts DATABASE MIGRATIONS_FOLDER BACKUP_DIR`:
 * the start-up upgrade of src/index.ts, step for step, against a migrations
 * folder of the test's choosing (the server always uses migrations/).
 */
import { UpgradeError, upgradeDatabase } from '@/backups';
import { readMigrations } from '@/db/migrations';
import { openDatabase } from '@/db/sqlite/client';

const [database, folder, backupDir] = Bun.argv.slice(2);
const db = openDatabase(database!);
try {
  const upgrade = await upgradeDatabase(db.$client, readMigrations(folder!), {
    backupDir: backupDir!,
    now: Date.now(),
  });
  console.log(JSON.stringify(upgrade));
} catch (error) {
  if (!(error instanceof UpgradeError)) throw error;
  console.error(error.message);
  process.exit(1);
}
