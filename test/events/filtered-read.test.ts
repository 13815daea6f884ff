import { describe, expect, test } from 'bun:test';
import type { SQL } from 'bun';
import type { Caller } from '@/auth/tokens';
import { pgDatabase } from '@/db/pg/client';
import type { Db } from '@/db/sqlite/client';
import { cursorOf } from '@/events/cursor';
import { scopeOf } from '@/events/operations';
import { pageQueryOf as postgresPageQuery } from '@/events/postgres-store';
import type { EventType } from '@/events/schemas';
import { pageQueryOf as sqlitePageQuery } from '@/events/sqlite-store';
import type { EventScope } from '@/events/store';
import { sqliteDatabase } from '../support/harness';
import { pgSuite, postgresAvailable } from '../support/postgres';
import { sqliteOnly } from '../support/postgres-mode';
import { pgSuiteDatabase } from './stores';

/**
 * A `types` filter must cost the page it answers, not the events of other
 * types it skips: a filter that never matches once scanned every event of
 * the caller on each read, and a long poll reads on every wake. Each
 * database holds SKIPPED events of owner-1 of one type, then a few of
 * another; the reads ask for types that skip them all. The plans are read
 * before any ANALYZE (a new database, or one nobody analyses) and after.
 */
const SKIPPED = 20_000;
const LATER = 5;
const LIMIT = 11;

/** A customer's and an employee's filtered reads, all but the last skipping every SKIPPED event. */
const SCOPES: [string, EventScope][] = [
  ['a type that never matches', scope('owner-1', ['static_page.deleted'])],
  ['two types, one matching only after', scope('owner-1', ['static_page.deleted', 'unit.updated'])],
  ['an employee: every owner', scope(null, ['unit.updated', 'neighbourhood.updated'])],
  ['an employee, one type', scope(null, ['neighbourhood.updated'])],
  // Not skipped but matching: the page stops at the limit, whatever follows it.
  ['two types, both matching', scope('owner-1', ['unit.updated', 'property.created'])],
  // No filter: an owner's events have no index by owner and id, so the read merges every type.
  [
    "a customer's read without a filter",
    scopeOf(customer('owner-2'), { after: cursorOf(SKIPPED), limit: LIMIT - 1 }),
  ],
];

function scope(owner: string | null, types: EventType[]): EventScope {
  return { after: 0, owner, types, limit: LIMIT };
}

function customer(sub: string): Caller {
  return { sub, aud: 'customer' };
}

/**
 * The indexes on `events`: keyed by owner only with the type, so a create
 * writes one owner-keyed entry an event, not two (docs/performance.md,
 * "Which pages a create writes").
 */
const EVENT_INDEXES = ['events_occurred_at', 'events_owner_type', 'events_type'];

/** SKIPPED `property.created` of owner-1, then LATER `unit.updated` of owner-1 and owner-2 each. */
const FILL = `INSERT INTO events (type, occurred_at, resource_kind, resource_id, owner_id, data)
  WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < ${SKIPPED + 2 * LATER})
  SELECT CASE WHEN i <= ${SKIPPED} THEN 'property.created' ELSE 'unit.updated' END, i, 'property',
    'p' || i, CASE WHEN i > ${SKIPPED} AND i % 2 = 0 THEN 'owner-2' ELSE 'owner-1' END, '{}'
  FROM n`;

/** The ids a page of `scope` holds, computed the plain way. */
function expectedIds({ after, owner, types, limit }: EventScope): number[] {
  const ids: number[] = [];
  for (let i = after + 1; i <= SKIPPED + 2 * LATER && ids.length < limit; i++) {
    const type = i <= SKIPPED ? 'property.created' : 'unit.updated';
    const ownerOf = i > SKIPPED && i % 2 === 0 ? 'owner-2' : 'owner-1';
    if ((owner === null || owner === ownerOf) && types!.includes(type as EventType)) ids.push(i);
  }
  return ids;
}

const SEEKS = [
  // One probe a type, in id order, on the index that holds the type after the owner.
  /^SEARCH events USING COVERING INDEX events_owner_type \(owner_id=\? AND type=\? AND id>\?\)$/,
  /^SEARCH events USING COVERING INDEX events_type \(type=\? AND id>\?\)$/,
  // Then the rows of the page, by id.
  /^SEARCH events USING INTEGER PRIMARY KEY \(rowid=\?\)$/,
];

/** What SQLite's plan does with `events`: every step a seek above, never a scan or a sort. */
function sqlitePlanOf(db: Db, of: EventScope): string[] {
  const { sql, params } = sqlitePageQuery(of);
  const steps = db.$client.query(`EXPLAIN QUERY PLAN ${sql}`).all(...params) as {
    detail: string;
  }[];
  return steps.map((step) => step.detail);
}

sqliteOnly.describe('reads the SQLite file', 'a filtered feed read on SQLite', () => {
  test('perf: no index by owner and id on events', () => {
    const db = sqliteDatabase();
    const rows = db.$client.query("SELECT name FROM pragma_index_list('events')").all() as {
      name: string;
    }[];
    expect(rows.map((row) => row.name).sort()).toEqual(EVENT_INDEXES);
  });

  test('perf: each type is one index seek, merged in id order: no scan of the events a filter skips, with or without ANALYZE', () => {
    const db = sqliteDatabase();
    db.$client.run(FILL);
    for (const analysed of [false, true]) {
      if (analysed) db.$client.run('ANALYZE');
      for (const [name, of] of SCOPES) {
        const plan = sqlitePlanOf(db, of);
        const onEvents = plan.filter((step) => /\bevents\b/.test(step));
        const unexpected = onEvents.filter((step) => !SEEKS.some((seek) => seek.test(step)));
        expect([name, analysed, unexpected]).toEqual([name, analysed, []]);
        expect([name, plan.filter((step) => /TEMP B-TREE|SCAN/.test(step))]).toEqual([name, []]);
        // The seeks by type are there (one a type), not only the lookups by id.
        const byType = onEvents.filter((step) => step.includes('type=?'));
        expect([name, byType.length]).toEqual([name, new Set(of.types).size]);
        const { sql, params } = sqlitePageQuery(of);
        const ids = (db.$client.query(sql).all(...params) as { id: number }[]).map((r) => r.id);
        expect([name, ids]).toEqual([name, expectedIds(of)]);
      }
    }
  });
});

/** The plan's JSON, whether the driver parsed it or not. */
type PlanNode = Record<string, unknown> & { Plans?: PlanNode[] };

/** Rows the plan's nodes on `events` (or its indexes) produced or threw away, in all loops. */
function rowsVisited(node: PlanNode): number {
  const onEvents =
    node['Relation Name'] === 'events' || String(node['Index Name'] ?? '').startsWith('events');
  const own = onEvents
    ? Number(node['Actual Rows']) * Number(node['Actual Loops']) +
      Number(node['Rows Removed by Filter'] ?? 0) +
      Number(node['Rows Removed by Index Recheck'] ?? 0)
    : 0;
  return own + (node.Plans ?? []).reduce((sum, child) => sum + rowsVisited(child), 0);
}

async function explained(client: SQL, of: EventScope) {
  const query = postgresPageQuery(pgDatabase(client), of);
  const { sql, params } = query.toSQL();
  const [row] = (await client.unsafe(`EXPLAIN (ANALYZE, FORMAT JSON) ${sql}`, params)) as {
    'QUERY PLAN': unknown;
  }[];
  const raw = row!['QUERY PLAN'];
  const [plan] = (typeof raw === 'string' ? JSON.parse(raw) : raw) as { Plan: PlanNode }[];
  return { visited: rowsVisited(plan!.Plan), ids: (await query).map((r) => Number(r.id)) };
}

describe.skipIf(!postgresAvailable)(pgSuite('a filtered feed read on PostgreSQL'), () => {
  const database = pgSuiteDatabase();

  test('perf: no index by owner and id on events', async () => {
    const rows = (await database
      .connect()
      .unsafe("SELECT indexname FROM pg_indexes WHERE tablename = 'events'")) as {
      indexname: string;
    }[];
    expect(rows.map((row) => row.indexname).sort()).toEqual(
      [...EVENT_INDEXES, 'events_pkey'].sort(),
    );
  });

  test('perf: the rows it visits are bounded by the page and the types, not by the events skipped, with or without ANALYZE', async () => {
    const client = database.connect();
    // No autovacuum ANALYZE behind the test's back: the first plans are made without statistics.
    await client.unsafe('ALTER TABLE events SET (autovacuum_enabled = false)');
    await client.unsafe(FILL);
    for (const analysed of [false, true]) {
      if (analysed) await client.unsafe('ANALYZE events');
      for (const [name, of] of SCOPES) {
        const { visited, ids } = await explained(client, of);
        expect([name, ids]).toEqual([name, expectedIds(of)]);
        // Each type's scan stops at the limit, then the page's rows by id: far below SKIPPED.
        const bound = 3 * (LIMIT + 1) * (new Set(of.types).size + 1);
        expect([name, analysed, visited <= bound]).toEqual([name, analysed, true]);
      }
    }
  });
});
