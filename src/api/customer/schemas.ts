import { z } from 'zod';
import { WINDOW_KINDS } from '@/rate-limit/calendar';

/** The customer API answers errors in Laravel's shape: `{message}`, 422 `{message, errors}`. */
export const Message = z.object({ message: z.string() });
export const ValidationFailed = z.object({
  message: z.string(),
  errors: z.record(z.string(), z.array(z.string())),
});

/** One rate-limit window: `{window, limit, used, remaining, resets_in_seconds, resets_at}`. */
export const WindowRecord = z.object({
  window: z.enum(WINDOW_KINDS),
  limit: z.int(),
  used: z.int(),
  remaining: z.int(),
  resets_in_seconds: z.int(),
  resets_at: z.string().meta({ example: '2026-11-22T12:01:00+00:00' }),
});

/** The 429 body: `{message, rate_limit}` for the exhausted window that resets last. */
export const RateLimited = z.object({ message: z.string(), rate_limit: WindowRecord });

/**
 * Answers every signed-in /api/v1 route may give besides its own; the
 * document adds the rest where they apply (403 employees only, 422 with a
 * body, src/api/docs).
 */
export const commonResponses = { 401: Message, 429: RateLimited } as const;
