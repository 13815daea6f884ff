import { createHash } from 'node:crypto';

/** The lookup key of a session: the SHA-256 (hex) of its cookie value. */
export const hashOf = (token: string) => createHash('sha256').update(token).digest('hex');

/**
 * The id a session is shown and revoked by: derived from the stored hash (so
 * it needs no column), and not the hash itself, which is the lookup key.
 */
export const publicSessionIdOf = (hash: string) =>
  createHash('sha256').update(`session-id:${hash}`).digest('base64url').slice(0, 22);
