import { z } from 'zod';

/** One browser session of the signed-in user, as `GET /auth/sessions` lists it. */
export const SessionSummary = z.object({
  id: z.string().meta({ description: 'the id to revoke it by (not the cookie)' }),
  createdAt: z.string().meta({ example: '2026-11-22T12:00:00.000Z' }),
  lastSeenAt: z.string().meta({ description: 'the last request with it, to within 5 minutes' }),
  expiresAt: z.string(),
  ip: z.string().nullable(),
  userAgent: z.string().nullable(),
  current: z.boolean().meta({ description: 'the session of this request' }),
});
export type SessionSummary = z.infer<typeof SessionSummary>;

export const SessionList = z.object({ sessions: z.array(SessionSummary) });

export const SessionParams = z.object({ id: z.string().min(1).max(64) });

/** An account as employees see it (`/admin/users`). */
export const AccountSummary = z.object({
  id: z.string(),
  email: z.string(),
  role: z.enum(['customer', 'employee']),
  disabled: z
    .boolean()
    .meta({ description: 'true: it cannot sign in and its credentials answer 401' }),
  createdAt: z.string().meta({ example: '2026-11-22T12:00:00.000Z' }),
  disabledAt: z.string().nullable(),
  emailVerified: z.boolean().meta({
    description:
      'false: signed up under SIGN_UP=verify and no link followed yet; every route but its own /auth ones answers 403',
  }),
});
export type AccountSummary = z.infer<typeof AccountSummary>;

/** A page of accounts, newest first; `nextCursor` asks for the older ones (null: no more). */
export const AccountPage = z.object({
  users: z.array(AccountSummary),
  nextCursor: z.string().nullable(),
});

const ACCOUNT_ID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** `GET /admin/users`: filters combine; keyset paged by id (the order accounts were made). */
export const AccountSearchQuery = z.strictObject({
  email: z.string().min(1).max(254).optional().meta({ description: 'part of the email, any case' }),
  role: z.enum(['customer', 'employee']).optional(),
  state: z.enum(['active', 'disabled']).optional(),
  cursor: z
    .string()
    .regex(ACCOUNT_ID, 'must be the nextCursor of the previous page')
    .optional()
    .meta({ description: 'the nextCursor of the previous page' }),
  limit: z
    .string()
    .regex(/^[1-9]\d{0,2}$/, 'must be an integer from 1 to 100')
    .transform(Number)
    .pipe(z.int().max(100, 'must be an integer from 1 to 100'))
    .optional()
    .meta({ description: 'accounts per page, 1 to 100 (default 20)' }),
});
export type AccountSearchQuery = z.output<typeof AccountSearchQuery>;

export const AccountParams = z.object({ id: z.string().min(1).max(64) });

/** `PATCH /admin/users/{id}`: what to change (at least one). */
export const AccountChangeBody = z
  .strictObject({
    role: z.enum(['customer', 'employee']).optional(),
    disabled: z.boolean().optional(),
    emailVerified: z
      .literal(true)
      .optional()
      .meta({ description: 'marks the address verified (it cannot be unverified)' }),
  })
  .refine(
    (body) =>
      body.role !== undefined || body.disabled !== undefined || body.emailVerified !== undefined,
    {
      path: ['role'],
      message: 'Name role, disabled or emailVerified',
      params: { rule: 'required' },
    },
  );
