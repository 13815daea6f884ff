import { fail } from '@/kernel/errors';
import { type Steps, step } from '@/kernel/steps';
import type { WalkTables } from '@/listings/properties/tables';
import { type PropertyFilter, usedFilters } from './list-filters';
import type { KeyValues, SortKey } from './list-plan';
import type { PropertyRecord } from './representation';

/*
 * A keyset walk sorted by a field writes change (anything but `_id`) keeps
 * the order of the snapshot its first page was read from, feed position S:
 * a property is placed by its sort fields as of S. A write that changes a
 * sort field keeps the fields as they were (`property_sort_changes`, kept
 * by a trigger), placed after every S whose snapshot cannot see it. So the
 * key of a property within the walk is the prior fields of its first
 * change placed after S, or its fields now when it has none; that key never
 * changes while the walk goes on, and each property is on one page only.
 * A page is then two parts merged: the (field, id) index range of the
 * properties unchanged since S, and the properties changed since S with
 * their keys as of S (as many as writes changed since the walk started,
 * whatever the depth). Filters and the caller's scope hold on what is now.
 *
 * A walk confined to one owner (`walkOwnerOf`) reads only the changes of
 * that owner's properties: those a change row names as its owner before
 * (`owner_id`) or after (`new_owner_id`, a move). A property the owner has
 * now and changed since S has such a row (kept by the owner all along, or
 * moved to it), so part B finds every one; its key is still its first
 * change after S, whoever owned it then. Other owners' writes then cost
 * the walk nothing and do not count towards its bound.
 */

/**
 * Most sort-field changes in a walk's scope since it began that a page of
 * it reads (part B): a walk confined to one owner counts that owner's
 * changes, any other walk every change. A page costs as much as those
 * changes; past this many the walk answers 410, as an expired feed cursor
 * does, and the client lists again, so no caller can hold a walk open
 * until its pages cost everyone the service's whole write history, and no
 * owner's writes expire another owner's walks.
 */
export const MOST_CHANGES_IN_A_WALK = 2_000;

/**
 * The one owner a list is confined to: a customer's own properties, or an
 * `ownerId` filter (a customer's filter naming another owner matches
 * nothing, so either serves). Null: every owner's properties (an
 * employee's or an anonymous reader's list without the filter).
 */
export function walkOwnerOf(filter: PropertyFilter): string | null {
  const owner = usedFilters(filter).find((used) => used.name === 'ownerId');
  return owner?.on === 'column' ? String(owner.values[0]) : null;
}

/** Whether a walk in `sort` order needs the order of its first snapshot: the id never changes. */
export const walksFrozen = (sort: SortKey[]): boolean => sort[0]!.column !== 'id';

/** A row of a walk's part with its key as of S (`walk_0`…). */
export type KeyedRecord = PropertyRecord & Record<`walk_${number}`, string | number>;

/** The row without its key columns, and its key. */
export function keyedOf(
  keyed: KeyedRecord,
  sort: SortKey[],
): { row: PropertyRecord; key: KeyValues } {
  const row: Record<string, unknown> = { ...keyed };
  const key = sort.map((_, i) => {
    const value = keyed[`walk_${i}`]!;
    delete row[`walk_${i}`];
    return value;
  });
  return { row: row as unknown as PropertyRecord, key };
}

/**
 * A page of a walk begun at feed position `from`, or 410
 * (`events.cursor_expired`) when the walk has expired: more changes in its
 * scope since it began than a page reads (`MOST_CHANGES_IN_A_WALK`), or
 * begun before the oldest event kept, the changes it needs gone with the
 * events, as the feed answers. The second is read after the page, so a
 * prune between the two is not missed.
 */
export function* walkPage<Page>(
  tables: WalkTables<Page>,
  from: number,
  owner: string | null,
): Steps<Page> {
  const changes = yield* step(tables.changesSince(from, owner));
  if (changes > MOST_CHANGES_IN_A_WALK) throw fail('events.cursor_expired');
  const page = yield* step(tables.page());
  if (from < (yield* step(tables.prunedThrough()))) throw fail('events.cursor_expired');
  return page;
}
