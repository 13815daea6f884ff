import { copyBackup, createBackup, pruneBackups } from '@/backups';
import type { Config } from '@/config';
import type { Db } from '@/db/client';
import type { Clock } from '@/kernel/clock';
import type { JobDetails } from './job';

/**
 * Writes a checked, compressed snapshot of the live database into
 * BACKUP_DIR, then deletes the backups beyond the newest BACKUP_KEEP; with
 * BACKUP_TO_REPLICA, copies it into the replica's folder and keeps as many
 * there. A copy that fails fails the run, the local backup staying.
 * An in-memory database has nothing worth keeping, and a PostgreSQL one is
 * not a file of this process: the run says so.
 */
export async function run(deps: { db?: Db; clock: Clock; config: Config }): Promise<JobDetails> {
  const { databasePath, backups } = deps.config;
  // PostgreSQL keeps its own data: its backups are pg_dump's or the server's (docs/postgresql.md).
  if (!deps.db) return { skipped: 'PostgreSQL database: back it up with pg_dump' };
  if (databasePath === ':memory:') return { skipped: 'in-memory database' };
  const backup = await createBackup(deps.db.$client, { dir: backups.dir, now: deps.clock() });
  const pruned = pruneBackups(backups.dir, backups.keep);
  // BACKUP_TO_REPLICA: a copy beside the replica survives the loss of this disk.
  const copy = backups.replicaDir
    ? copyBackup(backup.path, backups.replicaDir, backups.keep)
    : undefined;
  return {
    name: backup.name,
    size: backup.size,
    databaseSize: backup.databaseSize,
    durationMs: backup.durationMs,
    pruned: pruned.length,
    ...(copy && { copiedTo: copy.path, prunedInReplica: copy.pruned.length }),
  };
}
