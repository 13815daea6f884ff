/**
 * Strong ETag of a representation: a digest of the exact bytes sent, so it
 * changes with every change a reader could see, whoever made it, without a
 * version column to bump. Equal tags mean byte-equal bodies, which is what
 * "strong" promises: a 64-bit wyhash plus the length (a stale tag colliding
 * with the current one is a 2^-64 event; much cheaper than SHA-256, see
 * docs/performance.md).
 */
export const etagOfText = (text: string): string =>
  `"${Bun.hash.wyhash(text).toString(36)}-${text.length.toString(36)}"`;

/** Strong ETag of a value as a route serializes it (`JSON.stringify`). */
export const etagOfJson = (value: unknown): string => etagOfText(JSON.stringify(value));
