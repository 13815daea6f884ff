import {
  type AuthenticationResponseJSON,
  generateAuthenticationOptions,
  generateRegistrationOptions,
  type PublicKeyCredentialCreationOptionsJSON,
  type PublicKeyCredentialRequestOptionsJSON,
  type RegistrationResponseJSON,
  verifyAuthenticationResponse,
  verifyRegistrationResponse,
} from '@simplewebauthn/server';
import type { AuditContext } from '@/audit/record';
import { uuidv7 } from '@/db/ids';
import type { Passkey, User } from '@/db/schema';
import { fail } from '@/kernel/errors';
import type { MaybePromise } from '@/kernel/maybe-promise';
import {
  type CeremonyKind,
  CHALLENGE_TTL_MS,
  emailBinding,
  issueChallenge,
  type LiveChallenge,
  readChallenge,
  signedChallenge,
} from './challenges';
import { UNKNOWN_CREDENTIAL_DETAIL } from './messages';
import { webauthnTransports } from './passkeys';
import { providerOf } from './provider-names';
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

/**
 * The WebAuthn user handle is the user id's UTF-8 bytes: stable, opaque (a
 * UUIDv7, no email) and mapped back to the account without a lookup table.
 */
const userHandleOf = (userId: string) => new TextEncoder().encode(userId);
const userIdOfHandle = (handle: string) => Buffer.from(handle, 'base64url').toString('utf8');

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
  );
}

/**
 * Authentication options, user verification required, `allowCredentials`
 * always empty: every passkey here is discoverable (registration requires
 * it), so the browser offers the site's passkeys itself. With an email the
 * challenge is bound to it (inside its MAC) and only accepts that account's
 * passkeys. Nothing is looked up: the answer for an account with passkeys,
 * one without and an unknown email is alike in every byte's distribution
 * (and in time), so it tells nobody which emails have passkeys.
 */
export function startAuthentication(
  rp: RelyingParty,
  email: string | undefined,
  now: number,
): Promise<PublicKeyCredentialRequestOptionsJSON> {
  const boundTo = email === undefined ? null : emailBinding(email);
  return generateAuthenticationOptions({
    rpID: rp.id,
    allowCredentials: [],
    // A passkey replaces the password: the authenticator must verify the person (PIN, biometrics).
    userVerification: 'required',
    challenge: issueChallenge(rp.challengeKey, { kind: 'authentication', boundTo }, now),
    timeout: CHALLENGE_TTL_MS,
  });
}

/**
 * Verifies an assertion against the live challenge it signed and the stored
 * credential, then takes the challenge out of play (a replay fails) and
 * updates the counter, backup state and last use. The challenge is spent
 * only once the signature holds: a junk assertion spends nothing and adds
 * nothing to the used set. Every failure is the same 401.
 */
export async function finishAuthentication(
  store: AccountStore,
  rp: RelyingParty,
  response: AuthenticationResponseJSON,
  now: number,
): Promise<User> {
  const passkey = await store.findPasskeyByCredentialId(response.id);
  if (!passkey) throw fail('credentials.invalid', { detail: UNKNOWN_CREDENTIAL_DETAIL });
  const user = await store.findUserById(passkey.userId);
  if (!user) throw fail('credentials.invalid');
  // A challenge asked with an email holds only for the passkeys of that email's account.
  const stored = readSignedChallenge(rp.challengeKey, response.response.clientDataJSON, {
    kind: 'authentication',
    boundTo: emailBinding(user.email),
    now,
  });
  if (!stored) throw fail('credentials.invalid');
  const handle = response.response.userHandle;
  if (handle !== undefined && userIdOfHandle(handle) !== passkey.userId)
    throw fail('credentials.invalid');

  let verified: Awaited<ReturnType<typeof verifyAuthenticationResponse>>;
  try {
    verified = await verifyAuthenticationResponse({
      response,
      expectedChallenge: stored.challenge,
      expectedOrigin: rp.origins,
      expectedRPID: rp.id,
      credential: {
        id: passkey.credentialId,
        publicKey: new Uint8Array(passkey.publicKey),
        counter: passkey.counter,
        transports: passkey.transports,
      },
      requireUserVerification: true,
    });
  } catch {
    // Includes a sign counter that did not increase (a cloned authenticator).
    throw fail('credentials.invalid');
  }
  if (!verified.verified) throw fail('credentials.invalid');
  if (!(await consume(store, stored, 'authentication', passkey.userId, now)))
    throw fail('credentials.invalid');
  const info = verified.authenticationInfo;
  const recorded = await store.recordPasskeyUse(
    passkey,
    {
      counter: info.newCounter,
      backedUp: info.credentialBackedUp,
      deviceType: info.credentialDeviceType,
    },
    now,
  );
  if (!recorded) throw fail('credentials.invalid');
  return user;
}

/** The live challenge a response signed, when it is one this server issued for `kind` and `boundTo`. */
function readSignedChallenge(
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
function consume(
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
