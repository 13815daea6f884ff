import { index, integer, sqliteTable, text } from 'drizzle-orm/sqlite-core';

/** Customer transactions: amounts are exact integer cents. */
export const transactions = sqliteTable(
  'transactions',
  {
    id: integer().primaryKey({ autoIncrement: true }),
    customerId: text().notNull(),
    bookingId: text().notNull(),
    amountCents: integer().notNull(),
    currency: text().notNull(),
    /** YYYY-MM-DD; text order is date order. */
    payDate: text().notNull(),
    status: text().notNull(),
    description: text(),
  },
  (table) => [
    // Serves the default order of a customer's list and the pay-date filters.
    index('transactions_customer_pay_date').on(table.customerId, table.payDate, table.id),
    index('transactions_pay_date').on(table.payDate, table.id),
    index('transactions_booking').on(table.bookingId),
  ],
);

export type TransactionRow = typeof transactions.$inferSelect;
