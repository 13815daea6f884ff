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
