import type { MaybePromise } from '@/kernel/maybe-promise';

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
