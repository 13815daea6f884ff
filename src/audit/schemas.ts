import { z } from 'zod';
import { AUDIT_ACTIONS } from '@/db/stored-values';

/** One event of the security log or the audit log, as the API shows it. */
export const AuditEvent = z.object({
  id: z.string().meta({ description: 'increasing with the order the events were written' }),
  at: z.string().meta({ example: '2026-11-22T12:00:00.000Z' }),
  action: z.enum(AUDIT_ACTIONS),
  actor: z.string().nullable().meta({ description: "the caller's id; null when anonymous" }),
  subject: z.string().nullable().meta({ description: 'the account the event concerns' }),
  target: z.string().nullable().meta({ description: 'the object acted on' }),
  ip: z.string().nullable(),
  userAgent: z.string().nullable(),
  requestId: z.string().nullable(),
  details: z.record(z.string(), z.unknown()),
  count: z.int().min(1).meta({
    description:
      'how many times it happened: past a limit, repeats within a window are counted into one event (docs/accounts.md)',
  }),
  lastAt: z
    .string()
    .nullable()
    .meta({ description: 'the latest of the repeats counted into it; null when it happened once' }),
});
export type AuditEvent = z.infer<typeof AuditEvent>;

/** A page of events, newest first; `nextCursor` asks for the older ones (null: no more). */
export const AuditPage = z.object({
  events: z.array(AuditEvent),
  nextCursor: z.string().nullable(),
});
export type AuditPage = z.infer<typeof AuditPage>;

/** `GET /admin/audit`'s page: the events, and the emails of the accounts they name. */
export const AdminAuditPage = AuditPage.extend({
  emails: z.record(z.string(), z.string()).optional().meta({
    description:
      "the email of each account named as an event's actor or subject on this page, by id; an id that is no account (deleted, or a token's own subject) is left out",
  }),
});
export type AdminAuditPage = z.infer<typeof AdminAuditPage>;

const cursor = z
  .string()
  .regex(/^[1-9]\d{0,15}$/, 'must be the nextCursor of the previous page')
  .optional()
  .meta({ description: 'the nextCursor of the previous page' });
const limit = z
  .string()
  .regex(/^[1-9]\d{0,2}$/, 'must be an integer from 1 to 100')
  .transform(Number)
  .pipe(z.int().max(100, 'must be an integer from 1 to 100'))
  .optional()
  .meta({ description: 'events per page, 1 to 100 (default 20)' });
const id = z.string().min(1).max(200);
const time = z.iso
  .datetime({ offset: true })
  .max(40)
  .optional()
  .meta({ description: 'ISO 8601 time with offset, inclusive' });

/** `GET /auth/security-log`: the signed-in user's own events (`user` may only name them). */
export const SecurityLogQuery = z.strictObject({
  cursor,
  limit,
  user: id.optional().meta({ description: "the signed-in user's own id (anyone else: 404)" }),
});
export type SecurityLogQuery = z.output<typeof SecurityLogQuery>;

/** `GET /admin/audit`: every event, filtered. */
export const AuditQuery = z.strictObject({
  cursor,
  limit,
  actor: id.optional(),
  subject: id.optional(),
  action: z.enum(AUDIT_ACTIONS).optional(),
  from: time,
  to: time,
});
export type AuditQuery = z.output<typeof AuditQuery>;
