/**
 * How `MEMORY_BUDGET_MB` is shared, the one place it is decided: on SQLite,
 * half to SQLite's page cache (`PRAGMA cache_size` of the serving
 * connection) and half to the read cache's answers; on PostgreSQL there is
 * no page cache in this process, so all of it to the read cache. What the
 * process holds besides (the runtime, the code, requests in flight and
 * garbage not yet collected) is outside the budget: docs/performance.md
 * (Memory) gives the resident size measured with each budget.
 */
export function splitMemoryBudget(
  budgetMib: number,
  backend: 'sqlite' | 'postgres',
): { sqlitePageCacheKib: number; readCacheChars: number } {
  const sqliteMib = backend === 'sqlite' ? budgetMib / 2 : 0;
  return {
    sqlitePageCacheKib: Math.floor(sqliteMib * 1024),
    readCacheChars: Math.floor((budgetMib - sqliteMib) * 1024 * 1024),
  };
}
