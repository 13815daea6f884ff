import { statSync } from 'node:fs';
import type { DatabaseHealth } from '@/db/health';
import { type Db, isDatabaseHealthy } from './client';

const fileSize = (path: string) => statSync(path, { throwIfNoEntry: false })?.size ?? 0;

/** The device and inode of a file, or undefined when nothing is at `path`. */
function identityOf(path: string): string | undefined {
  const stat = statSync(path, { throwIfNoEntry: false });
  return stat && `${stat.dev}:${stat.ino}`;
}

/**
 * SQLite answers at once: one `SELECT 1` on the serving connection, and the
 * file at DATABASE_PATH is still the one that connection opened. An open
 * connection keeps answering from a file that was deleted, replaced, or whose
 * volume went away, while every write is lost with the process and the next
 * start opens an empty database: that is down, not healthy.
 */
export function sqliteHealth(db: Db): DatabaseHealth {
  const path = db.$client.filename;
  const onDisk = path !== ':memory:' && path !== '';
  const opened = onDisk ? identityOf(path) : undefined;
  return {
    name: 'sqlite',
    isHealthy: () => isDatabaseHealthy(db) && (!onDisk || identityOf(path) === opened),
    size() {
      if (!onDisk) return { database: 0, wal: 0 };
      return { database: fileSize(path), wal: fileSize(`${path}-wal`) };
    },
  };
}
