import type { MaybePromise } from '@/rate-limit/store';
import { type Db, isDatabaseHealthy } from './client';

/** Whether the database the service serves from answers (GET /health). */
export interface DatabaseHealth {
  /** The backend's name in /health. */
  readonly name: 'sqlite' | 'postgresql';
  isHealthy(): MaybePromise<boolean>;
}

/** SQLite answers at once: one `SELECT 1` on the serving connection. */
export const sqliteHealth = (db: Db): DatabaseHealth => ({
  name: 'sqlite',
  isHealthy: () => isDatabaseHealthy(db),
});
