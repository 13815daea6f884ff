/**
 * Customer API shapes of CONTRACT §8, written here until the service's own
 * customer schemas (src/api/customer/**) are on this branch. The client only
 * imports this module's types (`import type`), so zod is never loaded at run time.
 */
import { z } from 'zod';

const WINDOW_KINDS = ['minute', 'hour', 'day', 'week', 'month'] as const;

/** SPEC.md "Rate-limit window record". */
export const WindowRecord = z.object({
  window: z.enum(WINDOW_KINDS),
  limit: z.int(),
  used: z.int(),
  remaining: z.int(),
  resets_in_seconds: z.int(),
  resets_at: z.string(),
});

/** SPEC.md Errors, 429. */
export const RateLimited = z.object({ message: z.string(), rate_limit: WindowRecord });

export const TokenLimits = z.object({
  message: z.string(),
  rate_limits: z.object({
    audience: z.enum(['customer', 'employee']),
    plan: z.object({ id: z.int(), name: z.string(), slug: z.string() }),
    limits: z.array(WindowRecord),
  }),
});

export const Transaction = z.object({
  id: z.int(),
  booking_id: z.string(),
  amount: z.string(),
  currency: z.string(),
  pay_date: z.string(),
  status: z.string(),
  description: z.string().nullable(),
});

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

const optional = z.string().optional();
export const TransactionQuery = z.object({
  page: optional,
  per_page: optional,
  pay_date_from: optional,
  pay_date_to: optional,
  amount_from: optional,
  amount_to: optional,
  booking_id: optional,
  customer_id: optional,
});

const limit = z.int().min(1);
export const PlanLimits = z.strictObject({
  minute: limit.optional(),
  hour: limit.optional(),
  day: limit.optional(),
  week: limit.optional(),
  month: limit.optional(),
});

export const PlanInput = z.strictObject({
  name: z.string().min(1).max(100),
  slug: z.string().min(1).max(64),
  limits: PlanLimits.default({}),
});

export const Plan = z.object({
  id: z.int(),
  name: z.string(),
  slug: z.string(),
  limits: PlanLimits,
});
export const PlanList = z.object({ data: z.array(Plan) });
export const PlanAssignment = z.strictObject({ planId: z.int().nullable() });
export const EmployeeRateLimit = z.strictObject({ perMinute: z.int().min(2000) });

export const ImportRow = z.strictObject({
  customer_id: z.string().min(1),
  booking_id: z.string().min(1),
  amount: z.union([z.string(), z.number()]),
  currency: z.string(),
  pay_date: z.string(),
  status: z.string().min(1),
  description: z.string().nullish(),
});
export const ImportBody = z.array(ImportRow);
export const Imported = z.object({ imported: z.int() });
