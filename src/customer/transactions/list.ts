import type { Caller } from '@/auth/tokens';
import type { CustomerStore, TransactionListing } from '@/customer/store';
import { formatCents } from '@/customer/validation';
import type { ReadCache } from '@/db/read-cache';
import type { TransactionRow } from '@/db/sqlite/schema';
import { type MaybePromise, whenReady } from '@/kernel/maybe-promise';
import { type Utf8, utf8 } from '@/kernel/utf8';
import { transactionQueryOf } from './query';
import { parseTransactionQuery } from './schemas';

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

const pageBodyOf = ({ total, rows }: TransactionListing, page: number, perPage: number) =>
  utf8(JSON.stringify(pageOf(rows.map(toResource), total, page, perPage)));

/**
 * The body of one page of GET /api/v1/c/transactions for `caller` and the
 * raw query string (with its `?`, or ''), remembered in `cache` under both
 * until a transaction of its customer (of anyone, without a customer
 * filter) is written: a repeated query is answered without being parsed
 * again. Throws the 400/422 of a bad query, which is never remembered.
 */
export function transactionPageBody(
  store: CustomerStore,
  cache: ReadCache,
  caller: Caller,
  search: string,
): MaybePromise<Utf8> {
  return cache.answer(`x:${caller.aud}:${caller.sub}\u0000${search}`, () => {
    const { filter, page, perPage } = parseTransactionQuery(transactionQueryOf(search), caller);
    return whenReady(store.listTransactions(filter, page, perPage), (listing) => {
      const body = pageBodyOf(listing, page, perPage);
      const tags = [filter.customerId === undefined ? 'X' : `x:${filter.customerId}`];
      return { value: body, size: body.byteLength, tags };
    });
  });
}
