import { bigint, index, pgTable, text } from 'drizzle-orm/pg-core';
import { serialKey } from './columns';

/** Customer transactions: amounts are exact integer cents. */
export const transactions = pgTable(
  'transactions',
  {
    id: serialKey(),
    customerId: text().notNull(),
    bookingId: text().notNull(),
    amountCents: bigint({ mode: 'number' }).notNull(),
    currency: text().notNull(),
    /** YYYY-MM-DD; text order is date order (kept as text so answers are unchanged). */
    payDate: text().notNull(),
    status: text().notNull(),
    description: text(),
  },
  (table) => [
    index('transactions_customer_pay_date').on(table.customerId, table.payDate, table.id),
    index('transactions_pay_date').on(table.payDate, table.id),
    index('transactions_booking').on(table.bookingId),
  ],
);
