import { Elysia } from 'elysia';
import { commonResponses } from '@/api/customer/schemas';
import type { ApiDeps } from '@/api/deps';
import { ImportBody, Imported, type ImportRow, MAX_IMPORT_ROWS } from '@/customer/admin/schemas';
import { toCents } from '@/customer/validation';
import { fail } from '@/kernel/errors';
import { whenReady } from '@/kernel/maybe-promise';

const toNew = (row: ImportRow) => ({
  customerId: row.customer_id,
  bookingId: row.booking_id,
  amountCents: toCents(row.amount)!,
  currency: row.currency,
  payDate: row.pay_date,
  status: row.status,
  description: row.description ?? null,
});

/**
 * POST /api/v1/admin/transactions: a JSON array, all or nothing. Row
 * failures are reported by the body schema as `"3.amount"`; a body that is
 * not an array is a 400.
 */
export const importRoutes = ({ auth, stores: { customer }, idempotency }: ApiDeps) =>
  new Elysia({ name: 'customer-admin-import' })
    .use(auth)
    .use(idempotency)
    .post(
      '/transactions',
      ({ body, status }) => {
        if (body.length > MAX_IMPORT_ROWS) {
          const message = `At most ${MAX_IMPORT_ROWS} transactions may be imported at once.`;
          throw fail('request.invalid', {
            fields: [{ path: ['transactions'], rule: 'max', message }],
          });
        }
        return whenReady(customer.importTransactions(body.map(toNew)), (imported) =>
          status(201, { imported }),
        );
      },
      {
        auth: 'employee',
        idempotent: true,
        body: ImportBody,
        response: { 201: Imported, ...commonResponses },
        detail: {
          operationId: 'importTransactions',
          summary: 'Import transactions (a JSON array, each with customer_id); all or nothing',
          tags: ['Customer API admin'],
        },
      },
    );
