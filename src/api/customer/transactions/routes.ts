import { Elysia } from 'elysia';
import type { AppDeps } from '@/deps';
import { jsonResponse } from '../../json-response';
import { bearer, commonResponses, ValidationFailed } from '../schemas';
import { parseListQuery, TransactionPage, TransactionQuery } from './schemas';
import { listTransactions, pageOf, toResource } from './service';

/** GET /api/v1/c/transactions (SPEC.md, CONTRACT §8). */
export const transactionRoutes = ({ auth, db }: AppDeps) =>
  new Elysia({ name: 'customer-transactions' }).use(auth).get(
    '/c/transactions',
    ({ identity, query }) => {
      const { filter, page, perPage } = parseListQuery(query, identity);
      const { total, rows } = listTransactions(db, filter, page, perPage);
      return jsonResponse(pageOf(rows.map(toResource), total, page, perPage));
    },
    {
      auth: 'any',
      query: TransactionQuery,
      response: { 200: TransactionPage, ...commonResponses, 422: ValidationFailed },
      detail: {
        summary:
          "A page of transactions (a customer's own; an employee's choice with customer_id), newest pay date first",
        tags: ['Customer API'],
        security: bearer,
      },
    },
  );
