import { existsSync } from 'node:fs';
import { BackupError, createBackup, pruneBackups } from '@/backups';
import { openDatabase } from '@/db/sqlite/client';
import { command, fail, loadConfig } from './cli';
import { backupCommand } from './commands';
import { refuseOnPostgres } from './database';

const { values } = command(backupCommand);
// Before the configuration, whose other demands (JWT_SECRET with DATABASE_URL) are beside the point.
refuseOnPostgres('backup');
const config = loadConfig();

const path = config.databasePath;
if (path === ':memory:' || !existsSync(path)) fail(`no database at DATABASE_PATH (${path})`);

// A second connection beside the server's, if one runs: WAL lets it read a
// consistent snapshot while the server keeps writing.
const db = openDatabase(path);
try {
  const result = await createBackup(db.$client, {
    dir: config.backups.dir,
    now: Date.now(),
    out: values.out,
  });
  const pruned = values.out ? [] : pruneBackups(config.backups.dir, config.backups.keep);
  console.log(
    `backup written: ${result.path} (${result.size} bytes, database ${result.databaseSize} bytes, ${result.durationMs} ms${pruned.length ? `; pruned ${pruned.join(', ')}` : ''})`,
  );
} catch (error) {
  fail(error instanceof BackupError ? error.message : `backup failed: ${String(error)}`);
} finally {
  db.$client.close();
}
