import { z } from 'zod';
import type { Caller } from '@/auth/tokens';
import { attributeName, FieldErrors, isDate, toCents } from '@/customer/validation';

export const Transaction = z.object({
  id: z.int(),
  booking_id: z.string(),
  amount: z.string().meta({ description: 'exact decimal, two places', example: '1234.50' }),
  currency: z.string(),
  pay_date: z.string().meta({ example: '2026-11-22' }),
  status: z.string(),
  description: z.string().nullable(),
});

/** The customer API's page envelope: `{pagination: {total, per_page, …, from, to}, data}`. */
export const TransactionPage = z.object({
  pagination: z.object({
    total: z.int(),
    per_page: z.int(),
    current_page: z.int(),
    last_page: z.int(),
    from: z.int().nullable(),
    to: z.int().nullable(),
  }),
  data: z.array(Transaction),
});

const optional = (description: string) => z.string().optional().meta({ description });

/** Declared as strings so every rule is checked (and answered 422) by `parseTransactionQuery`. */
export const TransactionQuery = z.object({
  page: optional('page number, from 1 (default 1)'),
  per_page: optional('page size, 1 to 100 (default 15)'),
  pay_date_from: optional('YYYY-MM-DD, inclusive'),
  pay_date_to: optional('YYYY-MM-DD, inclusive'),
  amount_from: optional('decimal, inclusive minimum amount'),
  amount_to: optional('decimal, inclusive maximum amount'),
  booking_id: optional('exact booking reference'),
  customer_id: optional('employees only: one customer'),
});
export type TransactionQuery = z.infer<typeof TransactionQuery>;

export const DEFAULT_PER_PAGE = 15;
export const MAX_PER_PAGE = 100;
export const MAX_PAGE = 1_000_000_000;
const MAX_ID_LENGTH = 200;
const NUMERIC = /^-?\d+(\.\d+)?$/;
const INTEGER = /^-?\d+$/;

/** Which transactions a list shows; every field optional. */
export interface TransactionFilter {
  customerId?: string;
  payDateFrom?: string;
  payDateTo?: string;
  amountFrom?: number;
  amountTo?: number;
  bookingId?: string;
}

export interface ListRequest {
  filter: TransactionFilter;
  page: number;
  perPage: number;
}

/** Empty parameters count as absent (as Laravel's empty-string-to-null middleware does). */
const given = (value: string | undefined) =>
  value === undefined || value === '' ? undefined : value;

function integerParam(
  errors: FieldErrors,
  field: string,
  value: string | undefined,
  [min, max]: [number, number],
  fallback: number,
): number {
  if (value === undefined) return fallback;
  const name = attributeName(field);
  if (!INTEGER.test(value)) {
    errors.add(field, 'integer', `The ${name} field must be an integer.`);
    return fallback;
  }
  const number = Number(value);
  if (number < min || number > max) {
    errors.add(field, 'between', `The ${name} field must be between ${min} and ${max}.`);
  }
  return number;
}

function dateParam(errors: FieldErrors, field: string, value: string | undefined) {
  if (value === undefined || isDate(value)) return value;
  errors.add(
    field,
    'date_format',
    `The ${attributeName(field)} field must match the format Y-m-d.`,
  );
  return undefined;
}

function amountParam(errors: FieldErrors, field: string, value: string | undefined) {
  if (value === undefined) return undefined;
  const name = attributeName(field);
  const cents = toCents(value);
  if (cents !== null) return cents;
  if (!NUMERIC.test(value)) errors.add(field, 'numeric', `The ${name} field must be a number.`);
  else if ((value.split('.')[1]?.length ?? 0) > 2)
    errors.add(field, 'decimal', `The ${name} field must have 0-2 decimal places.`);
  else errors.add(field, 'max_digits', `The ${name} field must not have more than 13 digits.`);
  return undefined;
}

function textParam(errors: FieldErrors, field: string, value: string | undefined) {
  if (value === undefined || value.length <= MAX_ID_LENGTH) return value;
  errors.add(
    field,
    'max',
    `The ${attributeName(field)} field must not be greater than ${MAX_ID_LENGTH} characters.`,
  );
  return undefined;
}

/**
 * Validates the list query: filters are inclusive, a bad date
 * or amount and a `per_page` outside 1..100 answer 422. A customer is always
 * limited to its own transactions; an employee may name one customer.
 */
export function parseTransactionQuery(query: TransactionQuery, caller: Caller): ListRequest {
  const errors = new FieldErrors();
  const page = integerParam(errors, 'page', given(query.page), [1, MAX_PAGE], 1);
  const perPage = integerParam(
    errors,
    'per_page',
    given(query.per_page),
    [1, MAX_PER_PAGE],
    DEFAULT_PER_PAGE,
  );
  const filter: TransactionFilter = {
    payDateFrom: dateParam(errors, 'pay_date_from', given(query.pay_date_from)),
    payDateTo: dateParam(errors, 'pay_date_to', given(query.pay_date_to)),
    amountFrom: amountParam(errors, 'amount_from', given(query.amount_from)),
    amountTo: amountParam(errors, 'amount_to', given(query.amount_to)),
    bookingId: textParam(errors, 'booking_id', given(query.booking_id)),
    customerId:
      caller.aud === 'employee'
        ? textParam(errors, 'customer_id', given(query.customer_id))
        : caller.sub,
  };
  if (filter.payDateFrom && filter.payDateTo && filter.payDateTo < filter.payDateFrom) {
    errors.add(
      'pay_date_to',
      'after_or_equal',
      'The pay date to field must be a date after or equal to pay date from.',
    );
  }
  if (
    filter.amountFrom !== undefined &&
    filter.amountTo !== undefined &&
    filter.amountTo < filter.amountFrom
  ) {
    errors.add(
      'amount_to',
      'gte',
      'The amount to field must be greater than or equal to amount from.',
    );
  }
  errors.throwIfAny();
  return { filter, page, perPage };
}
