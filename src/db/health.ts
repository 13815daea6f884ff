import { statSync } from 'node:fs';
import type { MaybePromise } from '@/rate-limit/store';
import { type Db, isDatabaseHealthy } from './client';

/** Bytes the database takes (GET /metrics); `wal` only where it has a log of its own. */
export interface DatabaseSize {
  database: number;
  wal?: number;
}

/** Whether the database the service serves from answers (GET /health), and its size. */
export interface DatabaseHealth {
  /** The backend's name in /health. */
  readonly name: 'sqlite' | 'postgresql';
  isHealthy(): MaybePromise<boolean>;
  /** Undefined when it cannot be read now. */
  size(): MaybePromise<DatabaseSize | undefined>;
}

const fileSize = (path: string) => statSync(path, { throwIfNoEntry: false })?.size ?? 0;

/** SQLite answers at once: one `SELECT 1` on the serving connection; the file and its WAL. */
export const sqliteHealth = (db: Db): DatabaseHealth => ({
  name: 'sqlite',
  isHealthy: () => isDatabaseHealthy(db),
  size() {
    const path = db.$client.filename;
    if (path === ':memory:' || path === '') return { database: 0, wal: 0 };
    return { database: fileSize(path), wal: fileSize(`${path}-wal`) };
  },
});
