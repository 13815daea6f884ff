import { rmSync } from 'node:fs';
import { BackupError, restoreDatabase, UpgradeError, upgradeDatabase } from '@/backups';
import { readMigrations } from '@/db/migrations';
import { migrationsFolder, openDatabase } from '@/db/sqlite/client';
import { databaseFiles } from '@/db/sqlite/file-mode';
import { copyFromReplica, forgetReplicationState } from '@/replication';
import { command, fail, loadConfig } from './cli';
import { restoreCommand } from './commands';
import { refuseOnPostgres } from './database';

const { values, operands, refuse } = command(restoreCommand);
const fromReplica = values['from-replica'] === true;
const [given] = operands;
if (fromReplica === (given !== undefined)) refuse('give a FILE or --from-replica, one of them');
if (values.timestamp !== undefined && !fromReplica) refuse('--timestamp goes with --from-replica');
refuseOnPostgres('restore');
const config = loadConfig();
const path = config.databasePath;
if (path === ':memory:') fail('DATABASE_PATH is :memory:; nothing to restore into');

/** The file restored: the one given, or the replica's state copied beside the database. */
async function sourceFile(): Promise<string> {
  if (given !== undefined) return given;
  if (!config.replica) fail('--from-replica: REPLICA_URL is not set');
  const copy = await copyFromReplica(path, config.replica, { timestamp: values.timestamp });
  if ('problem' in copy) fail(copy.problem);
  return copy.path;
}

const file = await sourceFile();
// The replica's copy goes whatever happens next, a refusal included.
if (fromReplica) {
  process.on('exit', () => {
    for (const leftover of databaseFiles(file)) rmSync(leftover, { force: true });
  });
}
const shown = fromReplica
  ? `the replica ${config.replica!.url}${values.timestamp ? ` at ${values.timestamp}` : ''}`
  : file;
try {
  // The same checks as for a backup (integrity_check, the migrations table) before it takes the file's place.
  const { previous } = await restoreDatabase(file, path);
  // Litestream's notes about the replaced file would not match the restored one.
  if (config.replica) forgetReplicationState(path);
  console.log(
    `restored ${shown} into ${path}${previous ? `; the replaced database is kept as ${previous}` : ''}`,
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
