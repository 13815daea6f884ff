import { z } from 'zod';
import { MAX_PAGE, MAX_PER_PAGE, TransactionQuery } from '@/customer/transactions/schemas';

/**
 * GET /api/v1/c/transactions's query as clients write it, for the OpenAPI
 * document only (the route reads the raw URL and checks it with
 * `parseTransactionQuery`, answering 422): integers, dates and amounts typed.
 * test/api/parameters.test.ts checks the bounds against the service.
 */
export const TransactionParameters = TransactionQuery.extend({
  page: z.int().min(1).max(MAX_PAGE).optional().describe('Page number, from 1 (default 1)'),
  per_page: z.int().min(1).max(MAX_PER_PAGE).optional().describe('Page size (default 15)'),
  pay_date_from: z.iso.date().optional().describe('YYYY-MM-DD, inclusive'),
  pay_date_to: z.iso.date().optional().describe('YYYY-MM-DD, inclusive'),
  amount_from: z
    .number()
    .optional()
    .describe('Inclusive minimum amount: a decimal with at most 2 places and 13 digits'),
  amount_to: z
    .number()
    .optional()
    .describe('Inclusive maximum amount: a decimal with at most 2 places and 13 digits'),
});
