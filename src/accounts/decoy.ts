import { createHmac } from 'node:crypto';
import { normalizeEmail } from './email';
import type { PasskeyShape } from './store';

/** The shape used before any passkey exists: a 32-byte id, a phone or laptop's transports. */
const DEFAULT_SHAPE = { bytes: 32, transports: ['hybrid', 'internal'] };

/** `length` bytes keyed by the secret and the email (HMAC-SHA256 blocks, counter mode). */
function keyedBytes(secret: string, email: string, length: number): Buffer {
  const blocks: Buffer[] = [];
  for (let block = 0; blocks.length * 32 < length; block++) {
    blocks.push(
      createHmac('sha256', secret)
        .update(`passkey-decoy\0${block}\0${normalizeEmail(email)}`)
        .digest(),
    );
  }
  return Buffer.concat(blocks).subarray(0, length);
}

/**
 * The allowCredentials entry answered for an email without passkeys (unknown
 * or not): the same on every call, and shaped like the credentials this
 * service really holds — the id length and transports of the newest stored
 * passkey — so a decoy cannot be told from a real passkey by its form.
 */
export function decoyDescriptor(newest: PasskeyShape | undefined, secret: string, email: string) {
  const shape = newest
    ? {
        bytes: Buffer.from(newest.credentialId, 'base64url').length,
        transports: newest.transports,
      }
    : DEFAULT_SHAPE;
  return {
    id: keyedBytes(secret, email, shape.bytes).toString('base64url'),
    transports: shape.transports,
  };
}
