import { Elysia } from 'elysia';
import type { ApiDeps } from '@/api/deps';
import { parseListQuery, TransactionPage, TransactionQuery } from '@/customer/transactions/schemas';
import { transactionPageBody } from '@/customer/transactions/service';
import { jsonTextResponse } from '../../json-response';
import { bearer, commonResponses, ValidationFailed } from '../schemas';

/** GET /api/v1/c/transactions: a customer's transactions, paged and filtered. */
export const transactionRoutes = ({ auth, db, listAnswers }: ApiDeps) =>
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
