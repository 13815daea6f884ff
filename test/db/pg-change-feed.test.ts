import { describe, expect, test } from 'bun:test';
import { SQL } from 'bun';
import type { Change } from '@/db/change-feed';
import { PostgresChangeFeed } from '@/db/pg/change-feed';
import { ReadCache } from '@/db/read-cache';
import { migratedDatabaseForSuite, pgSuite, postgresAvailable } from '../support/postgres';

/**
 * The read cache's change feed on PostgreSQL: every committed write to
 * `cache_changes` is told exactly once, in whatever order the writers
 * commit, by any connection; a look starts after it is asked for; lost
 * rows and an unreachable server are never taken for "nothing changed".
 */
describe.skipIf(!postgresAvailable)(pgSuite('PostgreSQL change feed'), () => {
  const database = migratedDatabaseForSuite(6);
  const client = () => database.client();

  const recorder = () => {
    const told: (Change | 'reset')[] = [];
    return {
      told,
      apply: (change: Change) => told.push(change),
      reset: () => told.push('reset'),
    };
  };
  const change = (topic: string, key: string) =>
    client()`INSERT INTO cache_changes (topic, key) VALUES (${topic}, ${key})`;

  test('the first look only sets where the feed starts; later looks tell each commit once', async () => {
    const feed = new PostgresChangeFeed(client());
    const { told, apply, reset } = recorder();
    await change('page', 'before');
    expect(feed.started).toBe(false);
    expect(await feed.poll(apply, reset)).toBe(true);
    expect(feed.started).toBe(true);
    expect(told).toEqual(['reset']);
    await change('page', 'a');
    await change('transaction', 'b');
    expect(await feed.poll(apply, reset)).toBe(true);
    expect(await feed.poll(apply, reset)).toBe(true);
    expect(told).toEqual([
      'reset',
      { topic: 'page', key: 'a' },
      { topic: 'transaction', key: 'b' },
    ]);
  });

  test('a row written first but committed last is still told (seq order is not commit order)', async () => {
    const feed = new PostgresChangeFeed(client());
    const { told, apply, reset } = recorder();
    await feed.poll(apply, reset);
    const slow = await client().reserve();
    try {
      await slow`BEGIN`;
      // Takes the lower seq, commits after the other write and after a look.
      await slow`INSERT INTO cache_changes (topic, key) VALUES ('page', 'slow')`;
      await change('page', 'quick');
      await feed.poll(apply, reset);
      expect(told).toEqual(['reset', { topic: 'page', key: 'quick' }]);
      await slow`COMMIT`;
    } finally {
      slow.release();
    }
    await feed.poll(apply, reset);
    expect(told).toEqual([
      'reset',
      { topic: 'page', key: 'quick' },
      { topic: 'page', key: 'slow' },
    ]);
  });

  test('rows pruned before a look saw them drop everything (reset), as does a reset row', async () => {
    const feed = new PostgresChangeFeed(client());
    const { told, apply, reset } = recorder();
    await feed.poll(apply, reset);
    await change('page', 'unseen');
    // What the pruning trigger does past 8,192 rows, for the row just written.
    await client()`WITH gone AS (DELETE FROM cache_changes WHERE key = 'unseen' RETURNING xid)
      UPDATE cache_changes_pruned SET xid = (SELECT max(xid) FROM gone)`;
    await feed.poll(apply, reset);
    expect(told).toEqual(['reset', 'reset']);
    await change('reset', '');
    await change('page', 'after');
    await feed.poll(apply, reset);
    expect(told).toEqual(['reset', 'reset', 'reset']);
  });

  test('the pruning trigger keeps the newest 8,192 rows and marks what it removed', async () => {
    const [bulk] = await client()<{ xid: string }[]>`
      WITH added AS (INSERT INTO cache_changes (topic, key)
        SELECT 'page', 'bulk-' || i FROM generate_series(1, 9000) AS i RETURNING xid)
      SELECT min(xid)::text AS xid FROM added`;
    const [row] = await client()<{ n: number; marked: string }[]>`
      SELECT (SELECT count(*)::int FROM cache_changes) AS n,
        (SELECT xid::text FROM cache_changes_pruned) AS marked`;
    expect(row!.n).toBeLessThanOrEqual(8192 + 256);
    expect(row!.marked).toBe(bulk!.xid);
    // The tests after this one start with nothing pruned: a look counts the
    // marker as lost while its snapshot's xmin is older, and xmin is the
    // whole server's (any session's open transaction, in any database).
    await client()`DELETE FROM cache_changes`;
    await client()`UPDATE cache_changes_pruned SET xid = '0'::xid8`;
  });

  test('looks asked for while one runs share the next one, which starts after it ends', async () => {
    const feed = new PostgresChangeFeed(client());
    const { told, apply, reset } = recorder();
    await feed.poll(apply, reset);
    await change('page', 'before');
    const first = feed.poll(apply, reset);
    const second = feed.poll(apply, reset);
    const third = feed.poll(apply, reset);
    expect(third).toBe(second);
    expect(second).not.toBe(first);
    let firstEnded = false;
    void first.then(() => {
      firstEnded = true;
    });
    await second;
    expect(firstEnded).toBe(true);
    expect(told).toEqual(['reset', { topic: 'page', key: 'before' }]);
  });

  test('an unreachable server answers false, and the next look catches up', async () => {
    const dead = new SQL('postgres://postgres@127.0.0.1:1/none', { max: 1, connectionTimeout: 1 });
    const unreachable = new PostgresChangeFeed(dead);
    const { apply, reset } = recorder();
    expect(await unreachable.poll(apply, reset)).toBe(false);
    expect(unreachable.started).toBe(false);
    await dead.close();
  });

  test('a cache on the feed: a value held is checked by a look; a write elsewhere drops it before the next read', async () => {
    const cache = new ReadCache({ postgres: client() });
    let reads = 0;
    const read = () =>
      cache.answer('s:about', async () => {
        reads++;
        const [row] = await client()<{ n: number }[]>`SELECT count(*)::int AS n FROM cache_changes`;
        return { value: row!.n, size: 1, tags: ['s:about'] };
      });
    await cache.synced(); // the feed's starting point
    await read();
    expect(await read()).toBe(await read());
    expect(reads).toBe(1);
    expect(cache.hits).toBe(2);
    await change('page', 'terms'); // another slug: kept
    await read();
    expect(reads).toBe(1);
    await change('page', 'about');
    await read();
    expect(reads).toBe(2);
  });
});
