/**
 * What a customer's change-feed read costs in SQLite, on the two index
 * layouts of `events` (docs/performance.md, "Which pages a create writes"):
 *
 * - **merged by type** (the service): `events_owner_type` (owner, type, id)
 *   only; a read without a `types` filter merges every type's ids in id
 *   order, one index seek a type, as `scopeOf` asks for it;
 * - **by owner and id** (the build before): the same plus
 *   `events_owner_id` (owner, id), read in one range.
 *
 * `--events` events (400,000 by default) over `--owners` owners (1,000),
 * the types in the mix a create writes (one `property.created`, several
 * `unit.created`); then, per layout, the time of one read (the statement
 * only, in-process, after a warm-up) for a page of 100 from the start, one
 * from the middle, and a caught-up read that finds nothing (a long poll's
 * wake). Prints µs a read and merged ÷ by owner.
 *
 *   npm run bench:feed-reads -- [--events 400000 --owners 1000 --reads 3000]
 */
import { parseArgs } from 'node:util';
import { migrateDatabase, openDatabase } from '@/db/sqlite/client';
import { cursorOf } from '@/events/cursor';
import { scopeOf } from '@/events/operations';
import { pageQueryOf } from '@/events/sqlite-store';
import type { EventScope } from '@/events/store';
import { tempDir } from '../test/support/harness';

const { values } = parseArgs({
  args: Bun.argv.slice(2).filter((arg) => arg !== '--'),
  options: {
    events: { type: 'string', default: '400000' },
    owners: { type: 'string', default: '1000' },
    reads: { type: 'string', default: '3000' },
  },
});
const events = Number(values.events);
const owners = Number(values.owners);
const reads = Number(values.reads);

const db = openDatabase(`${tempDir('listings-bench-feed-')}/app.db`);
migrateDatabase(db);
const client = db.$client;
/** One create's events in the mix: its property, then its units, now and then a later change. */
const MIX = ['property.created', 'unit.created', 'unit.created', 'unit.created', 'unit.updated'];
client.run(`INSERT INTO events (type, occurred_at, resource_kind, resource_id, owner_id, data)
  WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < ${events})
  SELECT CASE i % ${MIX.length} ${MIX.map((type, k) => `WHEN ${k} THEN '${type}'`).join(' ')} END,
    i, 'property', 'p' || i, 'owner-' || ((i * 7919) % ${owners}), '{"id":"p"}' FROM n`);
client.run('ANALYZE');

const owner = 'owner-7';
const reader = { sub: owner, aud: 'customer' } as const;
const READS: [string, number][] = [
  ['a page of 100 from the start', 0],
  ['a page of 100 from the middle', Math.floor(events / 2)],
  ['caught up: nothing new', events],
];

/** µs one read of `scope` takes, its statement prepared once; and the ids it read. */
function timed(scope: EventScope) {
  const { sql, params } = pageQueryOf(scope);
  const query = client.query(sql);
  const ids = (query.all(...params) as { id: number }[]).map((row) => row.id).join(',');
  for (let i = 0; i < Math.min(200, reads); i++) query.all(...params);
  const started = performance.now();
  for (let i = 0; i < reads; i++) query.all(...params);
  return { micros: ((performance.now() - started) / reads) * 1000, ids };
}

/** The customer's scope for a read after `after`, as the feed builds it. */
const scopeAfter = (after: number) =>
  scopeOf(reader, after === 0 ? {} : { after: cursorOf(after) });
const merged = READS.map(([, after]) => timed(scopeAfter(after)));
client.run('CREATE INDEX events_owner_id ON events (owner_id, id)');
// The build before read a customer's unfiltered page as one range of that index.
const byOwner = READS.map(([, after]) => timed({ ...scopeAfter(after), types: undefined }));
client.close();
READS.forEach(([name], n) => {
  if (merged[n]!.ids !== byOwner[n]!.ids)
    throw new Error(`${name}: the two layouts read different events`);
});

console.log(
  `${events.toLocaleString('en')} events, ${owners} owners; a customer's read without a filter, µs (${reads} reads each)`,
);
console.log(
  `${'read'.padEnd(32)}${'merged by type'.padStart(16)}${'by owner and id'.padStart(17)}${'ratio'.padStart(8)}`,
);
READS.forEach(([name], n) => {
  const [m, o] = [merged[n]!.micros, byOwner[n]!.micros];
  console.log(
    `${name.padEnd(32)}${m.toFixed(1).padStart(16)}${o.toFixed(1).padStart(17)}${(m / o).toFixed(2).padStart(8)}`,
  );
});
