import type { Database, Statement } from 'bun:sqlite';
import type { Db } from '@/db/sqlite/client';
import type { Bindings } from '@/db/sqlite/where';
import { announcedAfter } from '@/events/sqlite-outbox';

const MAX_CACHED = 256;
const caches = new WeakMap<Database, Map<string, Statement>>();

/**
 * A prepared statement per SQL text and connection, compiled once. List
 * queries are built from the filters present, so the cache is bounded (the
 * oldest statement is finalized) instead of growing with every combination.
 */
export function statement<Row = unknown>(db: Db, text: string): Statement<Row, Bindings> {
  const client = db.$client;
  let cache = caches.get(client);
  if (!cache) {
    cache = new Map();
    caches.set(client, cache);
  }
  let prepared = cache.get(text);
  if (prepared) {
    cache.delete(text);
  } else {
    prepared = client.prepare(text);
    if (cache.size >= MAX_CACHED) {
      const [oldest, evicted] = cache.entries().next().value!;
      cache.delete(oldest);
      evicted.finalize();
    }
  }
  cache.set(text, prepared);
  return prepared as Statement<Row, Bindings>;
}

export const one = <Row>(db: Db, text: string, ...params: Bindings): Row | null =>
  statement<Row>(db, text).get(...params);

export const many = <Row>(db: Db, text: string, ...params: Bindings): Row[] =>
  statement<Row>(db, text).all(...params);

/** The rows of `sql` (its one `?` bound to `key`), counted up to `limit`: the scan stops there. */
export const countUpTo = (db: Db, sql: string, key: string, limit: number) =>
  one<{ n: number }>(db, `SELECT count(*) AS n FROM (${sql} LIMIT ?)`, key, limit)!.n;

export const exec = (db: Db, text: string, ...params: Bindings): number =>
  statement(db, text).run(...params).changes;

/**
 * Runs `work` in one write transaction (BEGIN IMMEDIATE, so a concurrent
 * writer waits on the busy timeout instead of failing half-way); nested calls
 * become savepoints. Synchronous by construction: a failure rolls every
 * statement back, so a failed request leaves the database as it was. The
 * events it appended are announced once it committed (`announcedAfter`);
 * a nested call leaves them to the outer one.
 */
export function writeTransaction<T>(db: Db, work: () => T): T {
  const client = db.$client;
  const run = client.transaction(work);
  return client.inTransaction ? run() : announcedAfter(() => run.immediate());
}
