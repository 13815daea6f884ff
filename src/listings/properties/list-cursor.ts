import { createCipheriv, createDecipheriv, createHash, createHmac } from 'node:crypto';
import { fail } from '@/kernel/errors';
import type { KeyValues, SortKey } from './list-plan';
import { CURSOR_REASON, type PropertyListQuery } from './list-query';
import type { PropertyRecord } from './representation';

/** Parameters that may change between the pages of one walk: not part of what a cursor is bound to. */
const UNBOUND = new Set(['cursor', 'total', 'itemsPerPage', 'page']);

/**
 * What a cursor is bound to: the caller's scope and every filter and the
 * sort of the query it was issued for, as a digest. A cursor used with
 * other filters, another sort or by another customer fails to open.
 */
export function bindingOf(query: PropertyListQuery, scopeOwner: string | null): Buffer {
  const entries = Object.entries(query)
    .filter(([key, value]) => !UNBOUND.has(key) && value !== undefined)
    .sort(([a], [b]) => (a < b ? -1 : 1));
  return createHash('sha256')
    .update(JSON.stringify([scopeOwner, entries]))
    .digest();
}

export const keyValuesOf = (row: PropertyRecord, sort: SortKey[]): KeyValues =>
  sort.map((key) => row[key.column as keyof PropertyRecord] as string | number);

const IV = 12;
const TAG = 16;

/** Where a walk is: after `after` in the order of the snapshot at feed position `from`. */
export interface WalkPosition {
  after: KeyValues;
  from: number;
}

/**
 * A keyset cursor: the position and the feed position of the walk's first
 * page sealed with AES-256-GCM under the service's list-cursor key, its
 * binding as additional data. Clients can neither read the ids in it nor
 * forge or move one to another query.
 */
export function sealCursor(key: Buffer, binding: Buffer, position: WalkPosition): string {
  const plain = JSON.stringify([...position.after, position.from]);
  // A synthetic IV (a MAC of what is sealed): one position of one query is always the
  // same cursor, so the fast lane, the full pipeline and the cache answer byte-equal pages.
  const iv = createHmac('sha256', key).update(binding).update(plain).digest().subarray(0, IV);
  const cipher = createCipheriv('aes-256-gcm', key, iv).setAAD(binding);
  const sealed = Buffer.concat([cipher.update(plain), cipher.final()]);
  return Buffer.concat([iv, cipher.getAuthTag(), sealed]).toString('base64url');
}

const foreignCursor = () =>
  fail('query.invalid', {
    invalidParams: [{ name: 'cursor', reason: CURSOR_REASON }],
  });

/** The position of a cursor this service sealed for `binding`; anything else is a 400. */
export function openCursor(
  key: Buffer,
  binding: Buffer,
  cursor: string,
  sort: SortKey[],
): WalkPosition {
  const bytes = Buffer.from(cursor, 'base64url');
  if (bytes.length <= IV + TAG) throw foreignCursor();
  let values: unknown;
  try {
    const decipher = createDecipheriv('aes-256-gcm', key, bytes.subarray(0, IV))
      .setAAD(binding)
      .setAuthTag(bytes.subarray(IV, IV + TAG));
    const text = Buffer.concat([decipher.update(bytes.subarray(IV + TAG)), decipher.final()]);
    values = JSON.parse(text.toString('utf8'));
  } catch {
    throw foreignCursor();
  }
  if (
    !Array.isArray(values) ||
    values.length !== sort.length + 1 ||
    !values.every((v) => typeof v === 'string' || typeof v === 'number') ||
    !Number.isSafeInteger(values.at(-1))
  ) {
    throw foreignCursor();
  }
  return { after: values.slice(0, -1) as KeyValues, from: values.at(-1) as number };
}

export interface Comparison {
  column: string;
  op: '=' | '<' | '>';
  value: string | number;
}

/**
 * "After `values` in `sort` order", for each dialect to render: one
 * row-value comparison when every key goes one way (an index range on the
 * (field, id) index), else an OR of ANDs, one per key, the keys before it
 * equal.
 */
export type After =
  | { row: { columns: string[]; op: '<' | '>'; values: KeyValues } }
  | { any: Comparison[][] };

export function afterOf(sort: SortKey[], values: KeyValues): After {
  const op = (key: SortKey) => (key.descending ? '<' : '>');
  if (sort.every((key) => key.descending === sort[0]!.descending)) {
    return { row: { columns: sort.map((key) => key.column), op: op(sort[0]!), values } };
  }
  return {
    any: sort.map((key, i) => [
      ...sort
        .slice(0, i)
        .map((k, j) => ({ column: k.column, op: '=' as const, value: values[j]! })),
      { column: key.column, op: op(key), value: values[i]! },
    ]),
  };
}

/** `after` as SQLite text with `?` placeholders over alias `p`, or the expressions `expression` names. */
export function afterSql(
  after: After,
  expression = (column: string) => `p.${column}`,
): { sql: string; params: KeyValues } {
  if ('row' in after) {
    const { columns, op, values } = after.row;
    const list = (items: string[]) => (items.length === 1 ? items[0]! : `(${items.join(', ')})`);
    return {
      sql: `${list(columns.map(expression))} ${op} ${list(columns.map(() => '?'))}`,
      params: values,
    };
  }
  const params: KeyValues = [];
  const ors = after.any.map((ands) =>
    ands
      .map((c) => {
        params.push(c.value);
        return `${expression(c.column)} ${c.op} ?`;
      })
      .join(' AND '),
  );
  return { sql: `(${ors.map((and) => `(${and})`).join(' OR ')})`, params };
}
