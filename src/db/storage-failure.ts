import { codeOf, someCause, sqlStateOf } from './pg/connection';

/** Why a database refused to store a write: no space left, or a file system that only reads. */
export type StorageFailure = 'full' | 'read-only';

/**
 * PostgreSQL's SQLSTATEs of a server that cannot store: disk_full (53100),
 * insufficient_resources (53000, which a full disk raises when a file
 * cannot be extended), and read_only_sql_transaction (25006, a standby or a
 * server put in read-only mode). 53300 (too many connections) is not one:
 * it means unavailable, answered 503.
 */
const POSTGRES_STATES: Record<string, StorageFailure> = {
  '53100': 'full',
  '53000': 'full',
  '25006': 'read-only',
};

/**
 * SQLite's codes (Bun gives the extended code when there is one):
 * SQLITE_FULL is a full disk; SQLITE_READONLY… a file or a file system that
 * only reads (a remount read-only included, SQLITE_READONLY_DBMOVED and
 * the like); SQLITE_IOERR on a write, a sync or a truncation is the kernel
 * refusing the bytes, which on a healthy disk means no space (ENOSPC) or a
 * file system turned read-only (EROFS). `undefined`: another failure.
 */
function sqliteFailureOf(code: string): StorageFailure | undefined {
  if (code === 'SQLITE_FULL') return 'full';
  if (code.startsWith('SQLITE_READONLY')) return 'read-only';
  if (/^SQLITE_IOERR(_(WRITE|FSYNC|DIR_FSYNC|TRUNCATE|SHMSIZE|SHMMAP|MMAP|CLOSE))?$/.test(code))
    return 'full';
  return undefined;
}

function failureOf(error: Error): StorageFailure | undefined {
  const code = codeOf(error);
  if (code === 'ERR_POSTGRES_SERVER_ERROR') return POSTGRES_STATES[sqlStateOf(error)];
  return sqliteFailureOf(code);
}

/**
 * Whether `error` (or a cause: drizzle wraps the driver's error) is a
 * database refusing a write for want of storage, and which kind. The write
 * it ended was rolled back whole: SQLite and PostgreSQL keep nothing of a
 * transaction that could not be written.
 */
export function storageFailureOf(error: unknown): StorageFailure | undefined {
  let found: StorageFailure | undefined;
  someCause(error, (cause) => {
    found = failureOf(cause);
    return found !== undefined;
  });
  return found;
}
