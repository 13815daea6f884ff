import { createHash, randomBytes } from 'node:crypto';

/**
 * The secret of a link sent by mail (a password reset, an email
 * verification or change): 256 random bits; only its SHA-256 is stored, so
 * a copy of the database holds no usable link.
 */
export const newLinkToken = () => randomBytes(32).toString('base64url');

/** The stored id of a link's token. */
export const hashOfLinkToken = (token: string) => createHash('sha256').update(token).digest('hex');
