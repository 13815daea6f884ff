import { statSync } from 'node:fs';
import { copyBackup, createBackup, pruneBackups } from '@/backups';
import type { Config } from '@/config';
import type { Db } from '@/db/sqlite/client';
import type { Clock } from '@/kernel/clock';
import type { JobDetails } from './job';

/** What the job asks of the disk monitor (src/storage/monitor.ts): room, and telling of a skip. */
interface DiskRoom {
  roomFor(
    volume: 'backups',
    bytes: number,
  ): { room: true } | { room: false; freeBytes: number; reason: string };
  skipped(job: string, reason: string): void;
}

const fileSize = (path: string) => statSync(path, { throwIfNoEntry: false })?.size ?? 0;

/**
 * Writes a checked, compressed snapshot of the live database into
 * BACKUP_DIR, then deletes the backups beyond the newest BACKUP_KEEP; with
 * BACKUP_TO_REPLICA, copies it into the replica's folder and keeps as many
 * there. A copy that fails fails the run, the local backup staying.
 * An in-memory database has nothing worth keeping, and a PostgreSQL one is
 * not a file of this process: the run says so. A backup that would leave
 * BACKUP_DIR's file system under DISK_FREE_THRESHOLD_MB is skipped, with a
 * warning and a `backup.skipped` audit event: on a nearly full disk the
 * backup itself would fill it, and the live database needs the room more.
 */
export async function run(deps: {
  db?: Db;
  clock: Clock;
  config: Config;
  disk?: DiskRoom;
}): Promise<JobDetails> {
  const { databasePath, backups } = deps.config;
  // PostgreSQL keeps its own data: its backups are pg_dump's or the server's (docs/postgresql.md).
  if (!deps.db) return { skipped: 'PostgreSQL database: back it up with pg_dump' };
  if (databasePath === ':memory:') return { skipped: 'in-memory database' };
  // The uncompressed snapshot and the compressed copy are both on disk for a while: twice the database at most.
  const needed = 2 * (fileSize(databasePath) + fileSize(`${databasePath}-wal`));
  const room = deps.disk?.roomFor('backups', needed);
  if (room && !room.room) {
    const reason = `not enough free space in ${backups.dir}: ${room.reason}`;
    deps.disk?.skipped('database-backup', reason);
    return { skipped: reason, freeBytes: room.freeBytes, neededBytes: needed };
  }
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
