import type { Bindings, Conditions } from '@/db/sqlite/where';
import { afterOf, afterSql, keyValuesOf } from './list-cursor';
import type { KeyValues, SortKey } from './list-plan';
import type { PropertyRecord } from './representation';
import { PROPERTY_COLUMNS } from './sqlite-record';
import { type KeyedRecord, keyedOf, MOST_CHANGES_IN_A_WALK } from './walk-order';

/* SQLite's half of the walk of walk-order.ts: part B's statement and the merge of parts A and B. */

/** Part A's condition on `p`: no sort field changed since feed position `?` (an index probe). */
export const UNCHANGED_SINCE =
  'NOT EXISTS (SELECT 1 FROM property_sort_changes c WHERE c.property_id = p.id AND c.feed_position > ?)';

/** The sort field `column` as of S in part B: the prior value kept, the id as it is. */
const asOf = (column: string) => (column === 'id' ? 'p.id' : `f.${column}`);

/** Each property's first change after S, its fields before it (bare columns follow `min`). */
const FIRST_CHANGES = `SELECT min(id) AS id, property_id, type, owner_id, total_units, rentable_units
  FROM property_sort_changes INDEXED BY property_sort_changes_position_idx
  WHERE feed_position > ? GROUP BY property_id`;

/** The properties an owner's changes after S name, before (`owner_id`) or after a move. */
const OWNER_CHANGED = `SELECT property_id FROM property_sort_changes
    INDEXED BY property_sort_changes_owner_idx WHERE owner_id = ? AND feed_position > ?
  UNION SELECT property_id FROM property_sort_changes
    INDEXED BY property_sort_changes_new_owner_idx WHERE new_owner_id = ? AND feed_position > ?`;

/**
 * FIRST_CHANGES for the properties of one owner's changes: each one's first
 * change after S by one probe of its (property_id, feed_position) range.
 * A property's changes are placed in the order they were written, so the
 * first by position (then id) is the one with the least id.
 */
const OWNER_FIRST_CHANGES = `SELECT f.id, f.property_id, f.type, f.owner_id, f.total_units, f.rentable_units
  FROM (${OWNER_CHANGED}) k CROSS JOIN property_sort_changes f ON f.id = (SELECT c.id
    FROM property_sort_changes c INDEXED BY property_sort_changes_property_idx
    WHERE c.property_id = k.property_id AND c.feed_position > ? ORDER BY c.feed_position, c.id LIMIT 1)`;

/** The first changes after `from` a walk reads: its owner's (`walkOwnerOf`), or everyone's. */
const firstChangesOf = (from: number, owner: string | null): { sql: string; params: Bindings } =>
  owner === null
    ? { sql: FIRST_CHANGES, params: [from] }
    : { sql: OWNER_FIRST_CHANGES, params: [owner, from, owner, from, from] };

/**
 * The changes after `from` in a walk's scope (`walkOwnerOf`), counted up to
 * one past the bound (`MOST_CHANGES_IN_A_WALK`): an index range each, on
 * the owner indexes for one owner.
 */
export function changesInAWalkSql(
  from: number,
  owner: string | null,
): { sql: string; params: Bindings } {
  const upTo = (where: string, index: string) =>
    `(SELECT count(*) FROM (SELECT 1 FROM property_sort_changes INDEXED BY ${index}
      WHERE ${where} AND feed_position > ? LIMIT ${MOST_CHANGES_IN_A_WALK + 1}))`;
  if (owner === null) {
    return {
      sql: `SELECT ${upTo('1', 'property_sort_changes_position_idx')} AS n`,
      params: [from],
    };
  }
  return {
    sql: `SELECT ${upTo('owner_id = ?', 'property_sort_changes_owner_idx')}
      + ${upTo('new_owner_id = ?', 'property_sort_changes_new_owner_idx')} AS n`,
    params: [owner, from, owner, from],
  };
}

/**
 * Part B on SQLite: the properties changed since `from` that match `where`
 * (the list's filters, without the position) now, placed by their keys as
 * of `from` after `after`, in that order, at most `limit`; each row also
 * carries its key (`walk_0`…). `owner`: the one owner the list is confined
 * to (`walkOwnerOf`), whose changes alone are read.
 */
export function changedSinceSql(
  where: Conditions,
  sort: SortKey[],
  after: KeyValues | null,
  walk: { from: number; owner: string | null },
  limit: number,
): { sql: string; params: Bindings } {
  const parts = [...where.parts];
  const first = firstChangesOf(walk.from, walk.owner);
  const params: Bindings = [...first.params, ...where.params];
  if (after) {
    const position = afterSql(afterOf(sort, after), asOf);
    parts.push(position.sql);
    params.push(...position.params);
  }
  const keys = sort.map((key, i) => `${asOf(key.column)} AS walk_${i}`).join(', ');
  const order = sort.map((key, i) => `walk_${i} ${key.descending ? 'DESC' : 'ASC'}`).join(', ');
  const walkKeys = sort.map((_, i) => `k.walk_${i}`).join(', ');
  // CROSS JOIN keeps the changes first: each one finds its property by id. The
  // keys and row ids are sorted, the page's whole rows read after, by rowid.
  return {
    sql: `SELECT ${PROPERTY_COLUMNS}, ${walkKeys} FROM (SELECT p.seq, ${keys}
      FROM (${first.sql}) f CROSS JOIN properties p ON p.id = f.property_id
      ${parts.length > 0 ? `WHERE ${parts.join(' AND ')}` : ''} ORDER BY ${order} LIMIT ?) k
      CROSS JOIN properties p ON p.seq = k.seq ORDER BY ${order}`,
    params: [...params, limit],
  };
}

/** SQLite's order of two values of one column: numbers by value, text byte by byte (BINARY). */
const compareValues = (a: string | number, b: string | number): number =>
  typeof a === 'number' && typeof b === 'number'
    ? a - b
    : Buffer.compare(Buffer.from(String(a)), Buffer.from(String(b)));

/**
 * The first `limit` of parts A (`unchanged`, keyed by their fields) and B
 * (`changed`, keyed as of S), each in order, and the key of each: SQLite's
 * merge (PostgreSQL merges in its statement, in its collation).
 */
export function mergeWalk(
  unchanged: PropertyRecord[],
  changed: KeyedRecord[],
  sort: SortKey[],
  limit: number,
): { rows: PropertyRecord[]; sortKeys: KeyValues[] } {
  const keyed = [
    ...unchanged.map((row) => ({ row, key: keyValuesOf(row, sort) })),
    ...changed.map((row) => keyedOf(row, sort)),
  ];
  keyed.sort((a, b) => {
    for (const [i, key] of sort.entries()) {
      const order = compareValues(a.key[i]!, b.key[i]!);
      if (order !== 0) return key.descending ? -order : order;
    }
    return 0;
  });
  const page = keyed.slice(0, limit);
  return { rows: page.map((item) => item.row), sortKeys: page.map((item) => item.key) };
}
