import { and, count, desc, eq, gte, lte, type SQL } from 'drizzle-orm';
import type { Db, DbOrTx } from '@/db/client';
import { type TransactionRow, transactions } from '@/db/schema';
import { formatCents } from '../validation';

export interface TransactionFilter {
  customerId?: string;
  payDateFrom?: string;
  payDateTo?: string;
  amountFrom?: number;
  amountTo?: number;
  bookingId?: string;
}

export type NewTransaction = typeof transactions.$inferInsert;

function conditionsOf(filter: TransactionFilter): SQL | undefined {
  const conditions: SQL[] = [];
  if (filter.customerId !== undefined)
    conditions.push(eq(transactions.customerId, filter.customerId));
  if (filter.payDateFrom) conditions.push(gte(transactions.payDate, filter.payDateFrom));
  if (filter.payDateTo) conditions.push(lte(transactions.payDate, filter.payDateTo));
  if (filter.amountFrom !== undefined)
    conditions.push(gte(transactions.amountCents, filter.amountFrom));
  if (filter.amountTo !== undefined)
    conditions.push(lte(transactions.amountCents, filter.amountTo));
  if (filter.bookingId !== undefined) conditions.push(eq(transactions.bookingId, filter.bookingId));
  return and(...conditions);
}

/** One page, newest pay date first, id breaking ties (CONTRACT §8). */
export function listTransactions(
  db: DbOrTx,
  filter: TransactionFilter,
  page: number,
  perPage: number,
) {
  const where = conditionsOf(filter);
  return db.transaction((tx) => {
    const total = tx.select({ n: count() }).from(transactions).where(where).get()?.n ?? 0;
    const rows =
      total > (page - 1) * perPage
        ? tx
            .select()
            .from(transactions)
            .where(where)
            .orderBy(desc(transactions.payDate), desc(transactions.id))
            .limit(perPage)
            .offset((page - 1) * perPage)
            .all()
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
