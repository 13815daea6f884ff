import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import type { WebauthnChallenge } from '@/db/schema';

/** Each WebAuthn challenge is single-use and expires after 5 minutes. */
export const CHALLENGE_TTL_MS = 5 * 60 * 1000;

/**
 * Used challenges remembered at most. Only a signed, live, unused challenge
 * presented in a verification adds one, and each lives 5 minutes; past the
 * bound verifications answer 503 (busy) rather than forget one and allow
 * its replay.
 */
export const USED_CHALLENGES_MAX = 100_000;

export type CeremonyKind = WebauthnChallenge['kind'];

const KINDS: readonly CeremonyKind[] = ['registration', 'authentication'];
const NONCE_BYTES = 16;
const MAC_BYTES = 16;
/** nonce ‖ expiry (ms, 8 bytes) ‖ kind ‖ flags (bound to a user; for a conditional create) */
const PAYLOAD_BYTES = NONCE_BYTES + 8 + 1 + 1;
const BOUND = 1;
const CONDITIONAL = 2;

const macOf = (secret: string, payload: Uint8Array, userId: string | null) =>
  createHmac('sha256', secret)
    .update('webauthn-challenge\0')
    .update(payload)
    .update(userId ?? '')
    .digest()
    .subarray(0, MAC_BYTES);

/**
 * A stateless challenge: random bytes with their expiry, ceremony kind and
 * (MAC only) the user it is bound to, signed with the server secret. Issuing
 * one stores nothing, so a flood of option requests cannot grow the
 * database or push real ceremonies out; the server still recognises, at
 * verification, exactly the challenges it issued.
 */
export function issueChallenge(
  secret: string,
  input: { kind: CeremonyKind; userId: string | null; conditional?: boolean },
  now: number,
): Uint8Array<ArrayBuffer> {
  const payload = Buffer.alloc(PAYLOAD_BYTES);
  randomBytes(NONCE_BYTES).copy(payload, 0);
  payload.writeBigUInt64BE(BigInt(now + CHALLENGE_TTL_MS), NONCE_BYTES);
  payload[NONCE_BYTES + 8] = KINDS.indexOf(input.kind);
  payload[NONCE_BYTES + 9] =
    (input.userId === null ? 0 : BOUND) | (input.conditional ? CONDITIONAL : 0);
  return new Uint8Array(Buffer.concat([payload, macOf(secret, payload, input.userId)]));
}

export interface LiveChallenge {
  /** base64url, as in the options and in clientDataJSON. */
  challenge: string;
  /** The user the challenge was bound to, or null. */
  userId: string | null;
  /** Issued for a conditional create (registration without user presence). */
  conditional: boolean;
  expiresAt: number;
}

/**
 * Reads a challenge this server issued for `kind`, still live, whose MAC
 * holds for the user it names: a bound challenge only for `boundTo`. Null
 * for anything else (forged, altered, expired, another kind or user).
 */
export function readChallenge(
  secret: string,
  challenge: string,
  input: { kind: CeremonyKind; boundTo: string | null },
  now: number,
): LiveChallenge | null {
  const bytes = Buffer.from(challenge, 'base64url');
  if (bytes.length !== PAYLOAD_BYTES + MAC_BYTES || bytes.toString('base64url') !== challenge)
    return null;
  const payload = bytes.subarray(0, PAYLOAD_BYTES);
  if (KINDS[payload[NONCE_BYTES + 8]!] !== input.kind) return null;
  const flags = payload[NONCE_BYTES + 9]!;
  if ((flags & ~(BOUND | CONDITIONAL)) !== 0) return null;
  const bound = (flags & BOUND) !== 0;
  const userId = bound ? input.boundTo : null;
  if (bound && userId === null) return null;
  if (!timingSafeEqual(bytes.subarray(PAYLOAD_BYTES), macOf(secret, payload, userId))) return null;
  const expiresAt = Number(payload.readBigUInt64BE(NONCE_BYTES));
  if (expiresAt <= now) return null;
  return { challenge, userId, conditional: (flags & CONDITIONAL) !== 0, expiresAt };
}

/** The challenge a response signed, read from its clientDataJSON; null when unreadable. */
export function signedChallenge(clientDataJSON: string): string | null {
  try {
    const data = JSON.parse(Buffer.from(clientDataJSON, 'base64url').toString('utf8'));
    return typeof data?.challenge === 'string' ? data.challenge : null;
  } catch {
    return null;
  }
}
