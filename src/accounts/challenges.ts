import { and, eq, lte } from 'drizzle-orm';
import type { DbOrTx } from '@/db/client';
import { uuidv7 } from '@/db/ids';
import { type WebauthnChallenge, webauthnChallenges } from '@/db/schema';

/** Each WebAuthn challenge is single-use and expires after 5 minutes. */
export const CHALLENGE_TTL_MS = 5 * 60 * 1000;

export type CeremonyKind = WebauthnChallenge['kind'];

export function storeChallenge(
  db: DbOrTx,
  input: { challenge: string; kind: CeremonyKind; userId: string | null },
  now: number,
): void {
  // Expired challenges are useless; dropping them here keeps the table small.
  db.delete(webauthnChallenges)
    .where(lte(webauthnChallenges.expiresAt, new Date(now)))
    .run();
  db.insert(webauthnChallenges)
    .values({ id: uuidv7(now), ...input, expiresAt: new Date(now + CHALLENGE_TTL_MS) })
    .run();
}

/**
 * Takes a challenge out of the store (so it can never be used twice) and
 * returns it when it is still live. A registration challenge is only found
 * for the user it was issued to.
 */
export function consumeChallenge(
  db: DbOrTx,
  input: { challenge: string; kind: CeremonyKind; userId?: string },
  now: number,
): WebauthnChallenge | null {
  const conditions = [
    eq(webauthnChallenges.challenge, input.challenge),
    eq(webauthnChallenges.kind, input.kind),
  ];
  if (input.userId !== undefined) conditions.push(eq(webauthnChallenges.userId, input.userId));
  const row = db
    .delete(webauthnChallenges)
    .where(and(...conditions))
    .returning()
    .get();
  if (!row || row.expiresAt.getTime() <= now) return null;
  return row;
}
