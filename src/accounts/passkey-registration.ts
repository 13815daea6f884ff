import {
  generateRegistrationOptions,
  type PublicKeyCredentialCreationOptionsJSON,
  type RegistrationResponseJSON,
  verifyRegistrationResponse,
} from '@simplewebauthn/server';
import type { AuditContext } from '@/audit/record';
import { uuidv7 } from '@/db/ids';
import type { Passkey, User } from '@/db/sqlite/schema';
import { fail } from '@/kernel/errors';
import { consume, type RelyingParty, readSignedChallenge } from './ceremonies';
import { CHALLENGE_TTL_MS, issueChallenge } from './challenges';
import type { Notice } from './notifications';
import { webauthnTransports } from './passkeys';
import { providerOf } from './provider-names';
import type { AccountStore } from './store';

/**
 * The WebAuthn user handle is the user id's UTF-8 bytes: stable, opaque (a
 * UUIDv7, no email) and mapped back to the account without a lookup table.
 */
const userHandleOf = (userId: string) => new TextEncoder().encode(userId);
const descriptorOf = (passkey: Passkey) => ({
  id: passkey.credentialId,
  transports: passkey.transports,
});

/**
 * Registration options for a signed-in user: a discoverable credential is
 * required, user verification preferred, attestation "none", and the user's
 * existing passkeys excluded so one authenticator is not registered twice.
 */
export async function startRegistration(
  store: AccountStore,
  rp: RelyingParty,
  input: { user: User; conditional: boolean },
  now: number,
): Promise<PublicKeyCredentialCreationOptionsJSON> {
  const { user, conditional } = input;
  const options = await generateRegistrationOptions({
    rpName: rp.name,
    rpID: rp.id,
    userName: user.email,
    userDisplayName: user.email,
    userID: userHandleOf(user.id),
    challenge: issueChallenge(
      rp.challengeKey,
      { kind: 'registration', boundTo: user.id, conditional },
      now,
    ),
    timeout: CHALLENGE_TTL_MS,
    attestationType: 'none',
    excludeCredentials: (await store.listPasskeys(user.id)).map(descriptorOf),
    authenticatorSelection: {
      residentKey: 'required',
      requireResidentKey: true,
      userVerification: 'preferred',
    },
  });
  return options;
}

/**
 * Verifies a registration against a live challenge issued to this user.
 * Any verification failure → 400; a credential id already stored → 409.
 */
export async function finishRegistration(
  store: AccountStore,
  rp: RelyingParty,
  input: { userId: string; response: RegistrationResponseJSON; name?: string },
  audit: AuditContext,
  notice?: Notice,
): Promise<Passkey> {
  const now = audit.at;
  const stored = readSignedChallenge(rp.challengeKey, input.response.response.clientDataJSON, {
    kind: 'registration',
    boundTo: input.userId,
    now,
  });
  if (!stored) throw fail('passkey.ceremony_failed');

  let verified: Awaited<ReturnType<typeof verifyRegistrationResponse>>;
  try {
    verified = await verifyRegistrationResponse({
      response: input.response,
      expectedChallenge: stored.challenge,
      expectedOrigin: rp.origins,
      expectedRPID: rp.id,
      // The options ask for user verification as "preferred", so it is not demanded here.
      requireUserVerification: false,
      // A conditional create (the password manager's silent upgrade after a
      // password sign-in) may come without user presence; only a challenge
      // issued for one admits that.
      requireUserPresence: !stored.conditional,
    });
  } catch {
    throw fail('passkey.ceremony_failed');
  }
  if (!verified.verified) throw fail('passkey.ceremony_failed');
  // Only now, with the attestation verified, is the challenge spent.
  if (!(await consume(store, stored, 'registration', input.userId, now)))
    throw fail('passkey.ceremony_failed');
  const { credential, credentialDeviceType, credentialBackedUp, aaguid } =
    verified.registrationInfo;
  const provider = providerOf(aaguid, rp.providers);

  return store.addPasskey(
    {
      id: uuidv7(now),
      userId: input.userId,
      credentialId: credential.id,
      publicKey: Buffer.from(credential.publicKey),
      counter: credential.counter,
      transports: webauthnTransports(
        credential.transports ?? input.response.response.transports ?? [],
      ),
      deviceType: credentialDeviceType,
      backedUp: credentialBackedUp,
      name: input.name,
      createdAt: new Date(now),
      lastUsedAt: null,
      aaguid,
      provider,
    },
    audit,
    notice,
  );
}
