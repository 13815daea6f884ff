import { Elysia } from 'elysia';
import type { ApiDeps } from '@/api/deps';
import { documentedQuery } from '@/api/request/query';
import { searchOf } from '@/api/request/url';
import { TransactionPage } from '@/customer/transactions/schemas';
import { whenReady } from '@/kernel/maybe-promise';
import { responseOf } from '../../answer';
import { transactionsAnswer } from '../reads';
import { commonResponses, ValidationFailed } from '../schemas';
import { TransactionParameters } from './parameters';

/** GET /api/v1/c/transactions: a customer's transactions, paged and filtered. */
export const transactionRoutes = (deps: ApiDeps) =>
  new Elysia({ name: 'customer-transactions' })
    .use(deps.auth)
    .get(
      '/c/transactions',
      ({ caller, request }) =>
        whenReady(transactionsAnswer(deps, caller, searchOf(request.url)), responseOf),
      {
        auth: 'any',
        query: documentedQuery(TransactionParameters),
        response: { 200: TransactionPage, ...commonResponses, 422: ValidationFailed },
        detail: {
          operationId: 'listTransactions',
          summary:
            "A page of transactions (a customer's own; an employee's choice with customer_id), newest pay date first",
          tags: ['Customer API'],
        },
      },
    );
