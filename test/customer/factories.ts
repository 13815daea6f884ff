import type { Db } from '@/db/client';
import { transactions } from '@/db/schema';

export type TransactionSeed = Partial<typeof transactions.$inferInsert>;

let sequence = 0;

/** Inserts a transaction with sensible defaults; returns its id. */
export function makeTransaction(db: Db, overrides: TransactionSeed = {}): number {
  sequence++;
  return db
    .insert(transactions)
    .values({
      customerId: 'customer-1',
      bookingId: `BK-${sequence}`,
      amountCents: 10_000,
      currency: 'EUR',
      payDate: '2026-01-15',
      status: 'paid',
      ...overrides,
    })
    .returning({ id: transactions.id })
    .get().id;
}
