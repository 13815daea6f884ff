import type { Db } from '@/db/sqlite/client';
import { transactions } from '@/db/sqlite/schema';

export type TransactionSeed = Partial<typeof transactions.$inferInsert>;

let sequence = 0;

/** A transaction with sensible defaults, a booking id of its own, and `overrides`. */
export function transactionOf(overrides: TransactionSeed = {}) {
  sequence++;
  return {
    customerId: 'customer-1',
    bookingId: `BK-${sequence}`,
    amountCents: 10_000,
    currency: 'EUR',
    payDate: '2026-01-15',
    status: 'paid',
    ...overrides,
  };
}

/** Inserts a transaction into a SQLite file; returns its id. */
export function makeTransaction(db: Db, overrides: TransactionSeed = {}): number {
  return db
    .insert(transactions)
    .values(transactionOf(overrides))
    .returning({ id: transactions.id })
    .get().id;
}
