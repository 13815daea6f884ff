import type { Caller } from '@/auth/tokens';
import { formatCents } from '@/customer/validation';
import type { Db } from '@/db/client';
import type { ReadCache } from '@/db/read-cache';
import { type TransactionRow, transactions } from '@/db/schema';
import { readSnapshot } from '@/db/snapshot';
import { type Bindings, Conditions } from '@/db/where';
import { utf8 } from '@/kernel/utf8';
import { transactionQueryOf } from './query';
import { parseListQuery, type TransactionFilter } from './schemas';

export type NewTransaction = typeof transactions.$inferInsert;

const COLUMNS = `id, customer_id AS customerId, booking_id AS bookingId,
  amount_cents AS amountCents, currency, pay_date AS payDate, status, description`;

/** The WHERE clause of the filters present (plain SQL, see `Conditions`). */
function whereOf(filter: TransactionFilter): Conditions {
  const where = new Conditions();
  if (filter.customerId !== undefined) where.add('customer_id = ?', filter.customerId);
  if (filter.payDateFrom) where.add('pay_date >= ?', filter.payDateFrom);
  if (filter.payDateTo) where.add('pay_date <= ?', filter.payDateTo);
  if (filter.amountFrom !== undefined) where.add('amount_cents >= ?', filter.amountFrom);
  if (filter.amountTo !== undefined) where.add('amount_cents <= ?', filter.amountTo);
  if (filter.bookingId !== undefined) where.add('booking_id = ?', filter.bookingId);
  return where;
}

/** One page, newest pay date first, id breaking ties. */
export function listTransactions(db: Db, filter: TransactionFilter, page: number, perPage: number) {
  const { sql, params } = whereOf(filter);
  const client = db.$client;
  const offset = (page - 1) * perPage;
  // One read transaction: the total and the page see the same snapshot.
  return readSnapshot(client, () => {
    const total = client
      .query<{ n: number }, Bindings>(`SELECT count(*) AS n FROM transactions ${sql}`)
      .get(...params)!.n;
    const rows =
      total > offset
        ? client
            .query<TransactionRow, Bindings>(
              `SELECT ${COLUMNS} FROM transactions ${sql} ORDER BY pay_date DESC, id DESC LIMIT ? OFFSET ?`,
            )
            .all(...params, perPage, offset)
        : [];
    return { total, rows };
  });
}

/** Laravel-style envelope; an empty page has `from`/`to` null and `last_page` at least 1. */
export function pageOf<T>(items: T[], total: number, page: number, perPage: number) {
  const from = items.length > 0 ? (page - 1) * perPage + 1 : null;
  return {
    pagination: {
      total,
      per_page: perPage,
      current_page: page,
      last_page: Math.max(1, Math.ceil(total / perPage)),
      from,
      to: from === null ? null : from + items.length - 1,
    },
    data: items,
  };
}

export const toResource = (row: TransactionRow) => ({
  id: row.id,
  booking_id: row.bookingId,
  amount: formatCents(row.amountCents),
  currency: row.currency,
  pay_date: row.payDate,
  status: row.status,
  description: row.description,
});

/** SQLite binds at most 32766 variables: 8 columns × 500 rows stays well below. */
const CHUNK = 500;

/** All or nothing: one transaction for the whole import. */
export function importTransactions(db: Db, rows: readonly NewTransaction[]): number {
  db.transaction((tx) => {
    for (let i = 0; i < rows.length; i += CHUNK) {
      tx.insert(transactions)
        .values(rows.slice(i, i + CHUNK))
        .run();
    }
  });
  return rows.length;
}

/**
 * The body of one page of GET /api/v1/c/transactions for `caller` and the
 * raw query string (with its `?`, or ''), remembered in `cache` under both
 * until a transaction of its customer (of anyone, without a customer filter)
 * is written: a repeated query is answered without being parsed again.
 * Throws the 400/422 of a bad query, which is never remembered.
 */
export function transactionPageBody(db: Db, cache: ReadCache, caller: Caller, search: string) {
  return cache.answer(`x:${caller.aud}:${caller.sub}\u0000${search}`, () => {
    const { filter, page, perPage } = parseListQuery(transactionQueryOf(search), caller);
    const { total, rows } = listTransactions(db, filter, page, perPage);
    const body = utf8(JSON.stringify(pageOf(rows.map(toResource), total, page, perPage)));
    const tags = [filter.customerId === undefined ? 'X' : `x:${filter.customerId}`];
    return { value: body, size: body.byteLength, tags };
  });
}
