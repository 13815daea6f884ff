/**
 * How `MEMORY_BUDGET_MB` is shared, the one place it is decided: on SQLite,
 * a fifth to SQLite's page cache (`PRAGMA cache_size` of the serving
 * connection) and four fifths to the read cache's answers; on PostgreSQL
 * there is no page cache in this process, so all of it to the read cache.
 * The page cache gets the small share because a larger one bought nothing
 * measurable: point reads spread over 200,000 properties cost the
 * same CPU with 8, 16, 32 or 64 MiB of it (`bench/page-cache-cost.ts`),
 * each read's leaf pages missing it anyway, while every answer held saves
 * the whole read. What the process holds besides (the runtime, the code,
 * requests in flight and garbage not yet collected) is outside the budget:
 * docs/performance.md (Memory) gives the resident size measured with each
 * budget.
 */
export function splitMemoryBudget(
  budgetMib: number,
  backend: 'sqlite' | 'postgres',
): { sqlitePageCacheKib: number; readCacheChars: number } {
  const sqliteMib = backend === 'sqlite' ? budgetMib / 5 : 0;
  return {
    sqlitePageCacheKib: Math.floor(sqliteMib * 1024),
    readCacheChars: Math.floor((budgetMib - sqliteMib) * 1024 * 1024),
  };
}
