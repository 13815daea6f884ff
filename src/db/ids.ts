/**
 * UUIDv7 (RFC 9562): time-ordered, so new rows append to the primary-key
 * index. Bun's generator is monotonic within a millisecond, so the rows of
 * one request or one bulk batch keep their insertion order by id.
 */
export const uuidv7 = (now: number = Date.now()): string => Bun.randomUUIDv7('hex', now);
