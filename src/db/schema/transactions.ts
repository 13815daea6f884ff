import { bigInteger, serialKey, text } from './columns';
import { index, table } from './table';

/** Customer transactions: amounts are exact integer cents. */
export const transactions = table(
  'transactions',
  {
    id: serialKey({ neverReused: true }),
    customerId: text().notNull(),
    bookingId: text().notNull(),
    amountCents: bigInteger().notNull(),
    currency: text().notNull(),
    /** YYYY-MM-DD; text order is date order (kept as text on both, so answers are the same). */
    payDate: text().notNull(),
    status: text().notNull(),
    description: text(),
  },
  (t) => [
    // Serves the default order of a customer's list and the pay-date filters.
    index('transactions_customer_pay_date').on(t.customerId, t.payDate, t.id),
    index('transactions_pay_date').on(t.payDate, t.id),
    index('transactions_booking').on(t.bookingId),
  ],
);
