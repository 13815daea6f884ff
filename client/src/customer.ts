import { type CallOptions, type IdempotentCallOptions, segment, type Transport } from './http.js';
import { envelopeItems, envelopePages } from './pagination.js';
import type {
  EmployeeRateLimit,
  Imported,
  Plan,
  PlanAssignment,
  PlanInput,
  PlanList,
  TokenLimits,
  Transaction,
  TransactionImportRow,
  TransactionPage,
  TransactionQuery,
} from './types.js';

const BASE = '/api/v1';

/** The customer API (/api/v1); errors are `ApiError`s. */
export function customerApi(http: Transport) {
  const transactions = {
    /** One page; a documented no-results 404 with an empty `data` is returned as that page. */
    list: (query?: TransactionQuery, options?: CallOptions) =>
      http.json<TransactionPage>('GET', `${BASE}/c/transactions`, {
        ...options,
        query,
        emptyOn404: true,
      }),
    /** Every page from `query.page` (default 1) to `last_page`. */
    pages: (query: TransactionQuery = {}, options?: CallOptions) =>
      envelopePages<TransactionPage>(
        (page) => transactions.list({ ...query, page }, options),
        Number(query.page ?? 1),
      ),
    /** Every transaction matching the filters, page after page. */
    all: (query?: TransactionQuery, options?: CallOptions) =>
      envelopeItems<Transaction>(transactions.pages(query, options)),
  };

  const plan = (id: number) => `${BASE}/admin/plans/${segment(id)}`;
  const admin = {
    plans: {
      list: (options?: CallOptions) => http.json<PlanList>('GET', `${BASE}/admin/plans`, options),
      create: (body: PlanInput, options?: IdempotentCallOptions) =>
        http.json<Plan>('POST', `${BASE}/admin/plans`, { ...options, body }),
      update: (id: number, body: PlanInput, options?: CallOptions) =>
        http.json<Plan>('PUT', plan(id), { ...options, body }),
      delete: (id: number, options?: CallOptions) => http.send('DELETE', plan(id), options),
    },
    /** `planId: null` puts the customer back on Standard. */
    assignPlan: (sub: string, body: PlanAssignment, options?: CallOptions) =>
      http.send('PUT', `${BASE}/admin/customers/${segment(sub)}/plan`, { ...options, body }),
    /** At least 2000 per minute (else 422). */
    setEmployeeRateLimit: (sub: string, body: EmployeeRateLimit, options?: CallOptions) =>
      http.send('PUT', `${BASE}/admin/employees/${segment(sub)}/rate-limit`, { ...options, body }),
    /** All or nothing: one bad row answers 422 naming it (`"3.amount"`). */
    importTransactions: (rows: TransactionImportRow[], options?: IdempotentCallOptions) =>
      http.json<Imported>('POST', `${BASE}/admin/transactions`, { ...options, body: rows }),
  };

  return {
    /** The caller's plan and the usage of every window; does not consume quota. */
    tokenLimits: (options?: CallOptions) =>
      http.json<TokenLimits>('GET', `${BASE}/tokens/limits`, options),
    transactions,
    admin,
  };
}
