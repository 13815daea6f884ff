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
 */

/**
 * Most sort-field changes since a walk began that a page of it reads (part
 * B). A page costs as much as the changes since its walk began; past this
 * many the walk answers 410, as an expired feed cursor does, and the client
 * lists again, so no caller can hold a walk open until its pages cost
 * everyone the service's whole write history.
 */
export const MOST_CHANGES_IN_A_WALK = 2_000;

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
