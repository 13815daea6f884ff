import type { SQL } from 'bun';
import { and, asc, eq, gt, lt, lte, max, min, type Placeholder, sql } from 'drizzle-orm';
import { changedRows, type PgDb, pgDatabase } from '@/db/pg/client';
import { events } from '@/db/pg/schema';
import type { FeedTables } from '@/events/tables';
import { holdsNul } from '@/kernel/nul';
import { runLater } from '@/kernel/steps';
import { feedPage } from './operations';
import { announcedAfter, appendEvents } from './postgres-outbox';
import type { EventScope, EventStore } from './store';

/** A value of a page query: given, or a placeholder bound when a built query runs. */
type Value<T> = T | Placeholder;

/**
 * One page in id order: after `after`, of `owner` (null: everyone's), of
 * `types`. With `types`, one index scan a type (`events_owner_type`, or
 * `events_type` for everyone's), each stopped at the limit, merged by id:
 * the read costs at most the limit a type, however many events of other
 * types it skips.
 */
function pageQuery(
  db: PgDb,
  after: Value<number>,
  owner: Value<string> | null,
  types: readonly Value<string>[] | undefined,
  limit: Value<number>,
) {
  const ofOwner = owner === null ? undefined : eq(events.ownerId, owner);
  const page = db.select().from(events);
  if (!types) {
    return page
      .where(and(gt(events.id, after), ofOwner))
      .orderBy(asc(events.id))
      .limit(limit);
  }
  const arms = types.map(
    (type) =>
      sql`(${db
        .select({ id: events.id })
        .from(events)
        .where(and(ofOwner, eq(events.type, type), gt(events.id, after)))
        .orderBy(asc(events.id))
        .limit(limit)})`,
  );
  const ids = sql`SELECT id FROM (${sql.join(arms, sql` UNION ALL `)}) AS arms ORDER BY id LIMIT ${limit}`;
  return page.where(sql`${events.id} IN (${ids})`).orderBy(asc(events.id));
}

/**
 * One page of `scope`, its values in the query (`pageQuery`). Exported for
 * the test that bounds the rows it visits (EXPLAIN ANALYZE), with and
 * without ANALYZE.
 */
export const pageQueryOf = (db: PgDb, { after, owner, types, limit }: EventScope) =>
  pageQuery(db, after, owner, types && [...new Set(types)], limit);

/**
 * Reads pages of the feed with `pageQuery` built once a shape (everyone's
 * or one owner's, the number of types) and prepared, its values bound at
 * each read. drizzle builds a query's SQL on every call otherwise: 0.8 ms
 * of CPU for a customer's unfiltered read, whose 17 types make 17 arms
 * (docs/performance.md). At most 2 × (types + 1) shapes.
 */
function pageReader(db: PgDb) {
  const built = new Map<string, ReturnType<ReturnType<typeof pageQuery>['prepare']>>();
  return (scope: EventScope) => {
    const types = scope.types && [...new Set(scope.types)];
    const shape = `events_page_${scope.owner === null ? 'all' : 'owner'}_${types?.length ?? 'any'}`;
    let prepared = built.get(shape);
    if (!prepared) {
      prepared = pageQuery(
        db,
        sql.placeholder('after'),
        scope.owner === null ? null : sql.placeholder('owner'),
        types?.map((_, index) => sql.placeholder(`type${index}`)),
        sql.placeholder('limit'),
      ).prepare(shape);
      built.set(shape, prepared);
    }
    const values: Record<string, unknown> = { after: scope.after, limit: scope.limit };
    if (scope.owner !== null) values.owner = scope.owner;
    types?.forEach((type, index) => {
      values[`type${index}`] = type;
    });
    return prepared.execute(values);
  };
}

/**
 * The feed on PostgreSQL: the same pages, cursors and errors as
 * `sqliteEventStore`, every answer a promise. Each query of a read runs on
 * its own (READ COMMITTED): the prune check after the page sees a prune
 * that committed between them. The caller owns `client` and closes it.
 */
export function postgresEventStore(client: SQL): EventStore {
  const db = pgDatabase(client);
  const readPage = pageReader(db);
  const tables: FeedTables = {
    async eventsAfter(scope) {
      if (holdsNul(scope.owner)) return [];
      return readPage(scope);
    },
    async prunedThrough() {
      const [oldest] = await db.select({ id: min(events.id) }).from(events);
      if (oldest?.id != null) return oldest.id - 1;
      // The identity's last value: every id up to it was assigned, and is gone.
      const [last] = await db.execute<{ id: string | null }>(
        sql`SELECT pg_sequence_last_value(pg_get_serial_sequence('events', 'id')::regclass) AS id`,
      );
      return Number(last?.id ?? 0);
    },
  };
  return {
    readEvents: (caller, query) => runLater(feedPage(tables, caller, query)),
    async appendEvents(batch) {
      await announcedAfter(db, (tx) => appendEvents(tx, batch));
    },
    async pruneEvents(cutoff) {
      const newest = db
        .select({ id: max(events.id) })
        .from(events)
        .where(lt(events.occurredAt, new Date(cutoff)));
      const removed = await db.delete(events).where(sql`${events.id} <= (${newest})`);
      return changedRows(removed);
    },
    async lastEventId() {
      const [last] = await db.select({ id: max(events.id) }).from(events);
      return last?.id ?? 0;
    },
    appendedBetween: async (after, through) =>
      db
        .selectDistinct({ ownerId: events.ownerId, type: events.type })
        .from(events)
        .where(and(gt(events.id, after), lte(events.id, through))),
  };
}
