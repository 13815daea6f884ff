import { chmodSync, existsSync } from 'node:fs';

/** The database file and the WAL and shared-memory files SQLite keeps beside it. */
export const databaseFiles = (path: string) => [path, `${path}-wal`, `${path}-shm`];

/**
 * Runs `open` (which creates the database and its -wal/-shm files) with a
 * umask that makes new files readable and writable by their owner only,
 * then brings files created earlier with wider modes down to 0600. SQLite
 * gives the -wal and -shm files it creates later the database file's mode.
 * A file this process cannot chmod (another owner's) is left as it is.
 */
export function ownerOnly<T>(path: string, open: () => T): T {
  if (path === ':memory:' || path.startsWith('file:')) return open();
  const previous = process.umask(0o077);
  try {
    return open();
  } finally {
    process.umask(previous);
    for (const file of databaseFiles(path)) {
      try {
        if (existsSync(file)) chmodSync(file, 0o600);
      } catch {}
    }
  }
}
