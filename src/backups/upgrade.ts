import type { Database } from 'bun:sqlite';
import { type Migration, MigrationError } from '@/db/migrations';
import { applyMigrations, MIGRATIONS_TABLE, pendingMigrations } from '@/db/sqlite/migrate';
import { createBackup } from './create';

export interface UpgradeOptions {
  /** BACKUP_DIR: where the backup taken before pending migrations goes. */
  backupDir: string;
  now: number;
  /**
   * How this installation runs the operator commands, for the restore hint of
   * a failed upgrade: `npm run` (the default) or `bun run` in the image.
   */
  commandPrefix?: string;
}

export interface UpgradeResult {
  applied: string[];
  /** The backup taken before migrating, when there was something to keep. */
  backup?: string;
}

/** A failed upgrade: one line for the operator, naming the migration and the backup. */
export class UpgradeError extends Error {
  override readonly name = 'UpgradeError';
}

/**
 * Whether the database holds anything besides the migrations table (a new
 * file holds nothing). Litestream's own tables (`_litestream_seq`,
 * `_litestream_lock`) do not count: under replication Litestream may open a
 * new file and create them before the service first migrates it, and that
 * file is still new.
 */
function hasTables(client: Database): boolean {
  const row = client
    .query(
      "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name <> ? AND name NOT LIKE 'sqlite\\_%' ESCAPE '\\' AND name NOT LIKE '\\_litestream\\_%' ESCAPE '\\' LIMIT 1",
    )
    .get(MIGRATIONS_TABLE);
  return row !== null;
}

/**
 * Brings the database up to `migrations`. When some are pending and the
 * database already holds data, a backup (`…-pre-upgrade.db.gz`) is taken
 * first. The migrations run in one transaction, so a failure leaves the
 * database as it was; the UpgradeError names the migration and the backup.
 */
export async function upgradeDatabase(
  client: Database,
  migrations: readonly Migration[],
  options: UpgradeOptions,
): Promise<UpgradeResult> {
  const pending = pendingMigrations(client, migrations);
  if (pending.length === 0) return { applied: [] };
  let backup: string | undefined;
  if (hasTables(client)) {
    backup = (
      await createBackup(client, { dir: options.backupDir, now: options.now, label: 'pre-upgrade' })
    ).path;
  }
  try {
    return { applied: applyMigrations(client, migrations), backup };
  } catch (error) {
    if (!(error instanceof MigrationError)) throw error;
    const restore = backup
      ? `a backup taken just before: ${backup} (${options.commandPrefix ?? 'npm run'} restore -- ${backup})`
      : 'the database was new: no backup needed';
    throw new UpgradeError(
      `Upgrade failed: migration ${error.tag} failed: ${error.reason}; no migration was applied, the database is as it was; ${restore}`,
    );
  }
}
