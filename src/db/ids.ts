/** UUIDv7 (RFC 9562): time-ordered, so new rows append to the primary-key index. */
export const uuidv7 = (now: number = Date.now()): string => Bun.randomUUIDv7('hex', now);
