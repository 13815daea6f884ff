import { Elysia } from 'elysia';
import type { AppDeps } from '@/deps';
import { jsonTextResponse } from '../../json-response';
import { bearer, commonResponses, ValidationFailed } from '../schemas';
import { parseListQuery, TransactionPage, TransactionQuery } from './schemas';
import { transactionPageBody } from './service';

/** GET /api/v1/c/transactions: a customer's transactions, paged and filtered. */
export const transactionRoutes = ({ auth, db, listAnswers }: AppDeps) =>
  new Elysia({ name: 'customer-transactions' })
    .use(auth)
    .get(
      '/c/transactions',
      ({ identity, query }) =>
        jsonTextResponse(transactionPageBody(db, listAnswers, parseListQuery(query, identity))),
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
