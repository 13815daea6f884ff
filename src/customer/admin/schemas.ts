import { z } from 'zod';
import { isDate, toCents } from '@/customer/validation';
import { EMPLOYEE_MINIMUM_PER_MINUTE } from '@/rate-limit/limiter';

const limit = z.int().min(1, 'The limit must be at least 1.').max(1_000_000_000);

export const PlanLimits = z.strictObject({
  minute: limit.optional(),
  hour: limit.optional(),
  day: limit.optional(),
  week: limit.optional(),
  month: limit.optional(),
});

const SLUG = /^[a-z0-9]+(?:-[a-z0-9]+)*$/;

export const PlanInput = z.strictObject({
  name: z.string().trim().min(1).max(100),
  slug: z
    .string()
    .min(1)
    .max(64)
    .refine((slug) => SLUG.test(slug), {
      message: 'The slug may only contain lower-case letters, digits and single dashes.',
      params: { rule: 'slug' },
    }),
  limits: PlanLimits.default({}),
});
export type PlanInput = z.infer<typeof PlanInput>;

export const Plan = z.object({
  id: z.int(),
  name: z.string(),
  slug: z.string(),
  limits: PlanLimits,
});
export type Plan = z.infer<typeof Plan>;

export const PlanList = z.object({ data: z.array(Plan) });

export const PlanIdParams = z.object({ id: z.string() });
export const SubParams = z.object({ sub: z.string().min(1).max(200) });

export const PlanAssignment = z.strictObject({
  planId: z.int().nullable().meta({ description: 'a stored plan, or null (or 1) for Standard' }),
});

export const EmployeeRateLimit = z.strictObject({
  perMinute: z
    .int()
    .min(
      EMPLOYEE_MINIMUM_PER_MINUTE,
      `The per minute must be at least ${EMPLOYEE_MINIMUM_PER_MINUTE}.`,
    )
    .max(1_000_000, 'The per minute may not be greater than 1000000.'),
});

/** Upper bound of one import (the 1 MiB body limit usually binds first). */
export const MAX_IMPORT_ROWS = 10_000;

export const ImportRow = z.strictObject({
  customer_id: z.string().min(1).max(200),
  booking_id: z.string().min(1).max(100),
  amount: z
    .union([z.string(), z.number()], {
      error: (issue) =>
        issue.input === undefined
          ? "Value is required and can't be empty"
          : 'The amount must be a number or a decimal string.',
    })
    .refine((amount) => toCents(amount) !== null, {
      message: 'The amount must be a decimal number with at most 2 decimal places.',
      params: { rule: 'decimal' },
    }),
  currency: z.string().refine((code) => /^[A-Z]{3}$/.test(code), {
    message: 'The currency must be a three-letter ISO 4217 code (e.g. EUR).',
    params: { rule: 'currency' },
  }),
  pay_date: z.string().refine(isDate, {
    message: 'The pay date must be a date in the format YYYY-MM-DD.',
    params: { rule: 'date_format' },
  }),
  status: z.string().min(1).max(50),
  description: z.string().max(1000).nullish(),
});
export type ImportRow = z.infer<typeof ImportRow>;

export const ImportBody = z.array(ImportRow);
export const Imported = z.object({ imported: z.int() });
