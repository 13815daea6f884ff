/**
 * The service built in-process over a seeded file, as the in-process
 * measurements use it (`bench/read-cache-cost.ts`, `bench/memory-probe.ts`,
 * `bench/page-cache-cost.ts`): workers off, the employee's limit out of
 * reach, requests through `fetch` without a socket.
 */
import { Database } from 'bun:sqlite';
import { createService } from '@/app';
import { parseConfig } from '@/config';
import { openDatabase } from '@/db/sqlite/client';
import { buildDeps } from '@/deps';
import { createLogger } from '@/logger';
import { BENCH_SECRET } from './seeded-file';

/** Every property id of the file, in table order. */
export function propertyIdsOf(path: string): string[] {
  const db = new Database(path, { readonly: true });
  try {
    return db
      .query<{ id: string }, []>('SELECT id FROM properties')
      .all()
      .map((row) => row.id);
  } finally {
    db.close();
  }
}

/** A service on its own connection to `path`, with READ_CACHE and MEMORY_BUDGET_MB as given. */
export function inProcessService(
  path: string,
  { readCache, memoryBudget }: { readCache: string; memoryBudget: string },
) {
  const config = parseConfig({
    DATABASE_PATH: path,
    JWT_SECRET: BENCH_SECRET,
    WORKERS: 'off',
    READ_CACHE: readCache,
    MEMORY_BUDGET_MB: memoryBudget,
    RATE_LIMIT_EMPLOYEE_PER_MINUTE: '1000000',
  });
  const db = openDatabase(path, { pageCacheKib: config.sqlitePageCacheKib });
  return {
    db,
    ...createService(buildDeps({ config, db, logger: createLogger('info', () => {}) })),
  };
}
