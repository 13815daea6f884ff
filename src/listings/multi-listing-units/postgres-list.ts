import { and, asc, count, eq, inArray, sql } from 'drizzle-orm';
import type { PgDb } from '@/db/pg/client';
import { properties, propertyCounts } from '@/db/pg/schema';
import { holdsNul } from '@/kernel/nul';
import type { Paging } from '@/listings/paging';
import type { MultiListingUnit, MultiListingUnitQuery } from './schemas';

/**
 * GET /multi-listing-units on PostgreSQL (SQLite's `listCounters`): the
 * total and the page in one `REPEATABLE READ READ ONLY` snapshot.
 */
export async function listCountersOn(
  db: PgDb,
  query: MultiListingUnitQuery,
  scopeOwner: string | null,
  paging: Paging,
): Promise<{ total: number; rows: MultiListingUnit[] }> {
  const ids = query.ids?.filter((id) => !holdsNul(id));
  if (ids?.length === 0 || (scopeOwner !== null && holdsNul(scopeOwner))) {
    return { total: 0, rows: [] };
  }
  const where = and(
    scopeOwner === null ? undefined : eq(properties.ownerId, scopeOwner),
    ids ? inArray(properties.id, ids) : undefined,
  );
  return db.transaction(
    async (tx) => {
      // Every property has a counter: unfiltered, the total is the property count.
      const [counted] = where
        ? await tx.select({ total: count() }).from(properties).where(where)
        : await tx
            .select({
              total: sql<number>`coalesce(sum(${propertyCounts.properties}), 0)`.mapWith(Number),
            })
            .from(propertyCounts);
      const total = counted?.total ?? 0;
      const rows =
        paging.offset < total
          ? await tx
              .select({ id: properties.id, unitsCounter: properties.unitsCounter })
              .from(properties)
              .where(where)
              .orderBy(asc(properties.id))
              .limit(paging.itemsPerPage)
              .offset(paging.offset)
          : [];
      return { total, rows };
    },
    { isolationLevel: 'repeatable read', accessMode: 'read only' },
  );
}
