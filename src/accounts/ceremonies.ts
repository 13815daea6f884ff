import { uuidv7 } from '@/db/ids';
import type { MaybePromise } from '@/kernel/maybe-promise';
import {
  type CeremonyKind,
  type LiveChallenge,
  readChallenge,
  signedChallenge,
} from './challenges';
import type { AccountStore } from './store';

/** The relying party, from configuration (PUBLIC_ORIGIN, RP_ID, RP_NAME). */
export interface RelyingParty {
  id: string;
  name: string;
  origins: string[];
  /** Signs the stateless challenges. */
  challengeKey: string;
  /** The operator's provider names by AAGUID, over the vendored list. */
  providers: Readonly<Record<string, string>>;
}

/** The live challenge a response signed, when it is one this server issued for `kind` and `boundTo`. */
export function readSignedChallenge(
  secret: string,
  clientDataJSON: string,
  input: { kind: CeremonyKind; boundTo: string | null; now: number },
): LiveChallenge | null {
  const challenge = signedChallenge(clientDataJSON);
  return challenge === null ? null : readChallenge(secret, challenge, input, input.now);
}

/**
 * Takes a verified ceremony's challenge out of play; false when it was
 * already (a replay: of two uses at once, on any store, exactly one wins).
 */
export function consume(
  store: AccountStore,
  live: LiveChallenge,
  kind: CeremonyKind,
  userId: string,
  now: number,
): MaybePromise<boolean> {
  return store.markChallengeUsed(
    {
      id: uuidv7(now),
      challenge: live.challenge,
      kind,
      userId,
      expiresAt: new Date(live.expiresAt),
    },
    now,
  );
}
