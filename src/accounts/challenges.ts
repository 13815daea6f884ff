import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import type { WebauthnChallenge } from '@/db/sqlite/schema';
import { normalizeEmail } from './email';

/** Each WebAuthn challenge is single-use and expires after 5 minutes. */
export const CHALLENGE_TTL_MS = 5 * 60 * 1000;

/**
 * Used challenges remembered at most. Only a verified ceremony adds one —
 * a registration or an assertion whose signature holds for a stored
 * passkey — and each lives 5 minutes; past the bound verifications answer
 * 503 (busy) rather than forget one and allow its replay. Junk assertions
 * never reach the set, so only holders of passkeys could fill it, and
 * `USED_CHALLENGES_PER_ACCOUNT` keeps any one account to a small share.
 */
export const USED_CHALLENGES_MAX = 100_000;

/**
 * Used challenges one account may hold at once (its ceremonies of the last
 * 5 minutes): 60, a sign-in every 5 seconds. Past it that account's next
 * ceremony answers 429 until its oldest challenge expires; other accounts
 * are not affected.
 */
export const USED_CHALLENGES_PER_ACCOUNT = 60;

export type CeremonyKind = WebauthnChallenge['kind'];

const KINDS: readonly CeremonyKind[] = ['registration', 'authentication'];
const NONCE_BYTES = 16;
const MAC_BYTES = 16;
/** expiry (ms, 8 bytes) ‖ kind ‖ flags (bound; for a conditional create), sent masked. */
const META_BYTES = 8 + 1 + 1;
const CHALLENGE_BYTES = NONCE_BYTES + META_BYTES + MAC_BYTES;
const BOUND = 1;
const CONDITIONAL = 2;

/**
 * The keystream masking the metadata of a challenge, from its nonce: every
 * byte after the nonce looks random, so a challenge tells nothing — bound
 * or not, conditional or not, when it expires — to anyone but this server.
 */
const maskOf = (secret: string, nonce: Uint8Array) =>
  createHmac('sha256', secret)
    .update('webauthn-challenge-mask\0')
    .update(nonce)
    .digest()
    .subarray(0, META_BYTES);

const xor = (bytes: Uint8Array, mask: Uint8Array) =>
  Buffer.from(bytes.map((byte, index) => byte ^ mask[index]!));

/** Over the challenge as sent (nonce ‖ masked metadata) and the binding. */
const macOf = (secret: string, sent: Uint8Array, binding: string | null) =>
  createHmac('sha256', secret)
    .update('webauthn-challenge\0')
    .update(sent)
    .update(binding ?? '')
    .digest()
    .subarray(0, MAC_BYTES);

/**
 * A stateless challenge: a random nonce, its expiry, ceremony kind and
 * whether it is bound (masked), and a MAC over them and the binding — the
 * registering user's id, or the email a sign-in was asked for — made with
 * the server secret. Issuing one stores nothing, so a flood of option
 * requests cannot grow the database or push real ceremonies out; the
 * server still recognises, at verification, exactly the challenges it
 * issued. Every challenge has the same length and, past the nonce, bytes
 * only this server can read.
 */
export function issueChallenge(
  secret: string,
  input: { kind: CeremonyKind; boundTo: string | null; conditional?: boolean },
  now: number,
): Uint8Array<ArrayBuffer> {
  const nonce = randomBytes(NONCE_BYTES);
  const meta = Buffer.alloc(META_BYTES);
  meta.writeBigUInt64BE(BigInt(now + CHALLENGE_TTL_MS), 0);
  meta[8] = KINDS.indexOf(input.kind);
  meta[9] = (input.boundTo === null ? 0 : BOUND) | (input.conditional ? CONDITIONAL : 0);
  const sent = Buffer.concat([nonce, xor(meta, maskOf(secret, nonce))]);
  return new Uint8Array(Buffer.concat([sent, macOf(secret, sent, input.boundTo)]));
}

export interface LiveChallenge {
  /** base64url, as in the options and in clientDataJSON. */
  challenge: string;
  /** What the challenge was bound to, or null. */
  boundTo: string | null;
  /** Issued for a conditional create (registration without user presence). */
  conditional: boolean;
  expiresAt: number;
}

/**
 * Reads a challenge this server issued for `kind`, still live, whose MAC
 * holds for what it is bound to: a bound challenge only for `boundTo`.
 * Null for anything else (forged, altered, expired, another kind or binding).
 * It reads, it does not consume: a verification takes the challenge out of
 * play only once the signature over it holds (`markChallengeUsed`).
 */
export function readChallenge(
  secret: string,
  challenge: string,
  input: { kind: CeremonyKind; boundTo: string | null },
  now: number,
): LiveChallenge | null {
  const bytes = Buffer.from(challenge, 'base64url');
  if (bytes.length !== CHALLENGE_BYTES || bytes.toString('base64url') !== challenge) return null;
  const sent = bytes.subarray(0, NONCE_BYTES + META_BYTES);
  const meta = xor(sent.subarray(NONCE_BYTES), maskOf(secret, sent.subarray(0, NONCE_BYTES)));
  if (KINDS[meta[8]!] !== input.kind) return null;
  const flags = meta[9]!;
  if ((flags & ~(BOUND | CONDITIONAL)) !== 0) return null;
  const bound = (flags & BOUND) !== 0;
  const boundTo = bound ? input.boundTo : null;
  if (bound && boundTo === null) return null;
  const mac = bytes.subarray(NONCE_BYTES + META_BYTES);
  if (!timingSafeEqual(mac, macOf(secret, sent, boundTo))) return null;
  const expiresAt = Number(meta.readBigUInt64BE(0));
  if (expiresAt <= now) return null;
  return { challenge, boundTo, conditional: (flags & CONDITIONAL) !== 0, expiresAt };
}

/**
 * What a sign-in challenge asked with an email is bound to: the email,
 * normalized, so only that account's passkeys are accepted — and an
 * unknown email's challenge accepts none, exactly like one of an account
 * without passkeys.
 */
export const emailBinding = (email: string) => `email\0${normalizeEmail(email)}`;

/** The challenge a response signed, read from its clientDataJSON; null when unreadable. */
export function signedChallenge(clientDataJSON: string): string | null {
  try {
    const data = JSON.parse(Buffer.from(clientDataJSON, 'base64url').toString('utf8'));
    return typeof data?.challenge === 'string' ? data.challenge : null;
  } catch {
    return null;
  }
}
