import { hkdfSync } from 'node:crypto';

/**
 * What a key derived from the one configured secret is for. Bearer tokens
 * are signed with JWT_SECRET itself (any issuer holding it may mint them);
 * every other use gets its own key, so a value computed for one purpose is
 * never a valid MAC or signature for another.
 */
export type KeyPurpose = 'passkey-challenge' | 'list-cursor';

/** A 32-byte key for `purpose`: HKDF-SHA256 of the secret, as base64url. */
export function derivedKey(secret: string, purpose: KeyPurpose): string {
  const key = hkdfSync('sha256', secret, 'listings-service', `listings-service/${purpose}`, 32);
  return Buffer.from(key).toString('base64url');
}
