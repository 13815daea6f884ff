import { createHmac } from 'node:crypto';
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
import type { Db } from '@/db/client';
import type { Passkey, User } from '@/db/schema';
import { fail } from '@/kernel/errors';
import { CHALLENGE_TTL_MS, consumeChallenge, storeChallenge } from './challenges';
import {
  findPasskeyByCredentialId,
  insertPasskey,
  listPasskeys,
  recordPasskeyUse,
} from './passkeys';
import { findUserByEmail, findUserById, normalizeEmail } from './users';

/** The relying party, from configuration (PUBLIC_ORIGIN, RP_ID, RP_NAME). */
export interface RelyingParty {
  id: string;
  name: string;
  origins: string[];
  /** Keys the decoy credential ids handed out for unknown emails. */
  secret: string;
}

/**
 * The WebAuthn user handle is the user id's UTF-8 bytes: stable, opaque (a
 * UUIDv7, no email) and mapped back to the account without a lookup table.
 */
const userHandleOf = (userId: string) => new TextEncoder().encode(userId);
const userIdOfHandle = (handle: string) => Buffer.from(handle, 'base64url').toString('utf8');

/** The challenge a response signed, read from its clientDataJSON; null when unreadable. */
function signedChallenge(clientDataJSON: string): string | null {
  try {
    const data = JSON.parse(Buffer.from(clientDataJSON, 'base64url').toString('utf8'));
    return typeof data?.challenge === 'string' ? data.challenge : null;
  } catch {
    return null;
  }
}

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
  db: Db,
  rp: RelyingParty,
  user: User,
  now: number,
): Promise<PublicKeyCredentialCreationOptionsJSON> {
  const options = await generateRegistrationOptions({
    rpName: rp.name,
    rpID: rp.id,
    userName: user.email,
    userDisplayName: user.email,
    userID: userHandleOf(user.id),
    timeout: CHALLENGE_TTL_MS,
    attestationType: 'none',
    excludeCredentials: listPasskeys(db, user.id).map(descriptorOf),
    authenticatorSelection: {
      residentKey: 'required',
      requireResidentKey: true,
      userVerification: 'preferred',
    },
  });
  storeChallenge(db, { challenge: options.challenge, kind: 'registration', userId: user.id }, now);
  return options;
}

/**
 * Verifies a registration against a live challenge issued to this user.
 * Any verification failure → 400; a credential id already stored → 409.
 */
export async function finishRegistration(
  db: Db,
  rp: RelyingParty,
  input: { userId: string; response: RegistrationResponseJSON; name?: string },
  now: number,
): Promise<Passkey> {
  const challenge = signedChallenge(input.response.response.clientDataJSON);
  const stored =
    challenge === null
      ? null
      : consumeChallenge(db, { challenge, kind: 'registration', userId: input.userId }, now);
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
    });
  } catch {
    throw fail('passkey.ceremony_failed');
  }
  if (!verified.verified) throw fail('passkey.ceremony_failed');
  const { credential, credentialDeviceType, credentialBackedUp } = verified.registrationInfo;

  return db.transaction((tx) => {
    if (findPasskeyByCredentialId(tx, credential.id)) throw fail('passkey.already_registered');
    const count = listPasskeys(tx, input.userId).length;
    return insertPasskey(
      tx,
      {
        userId: input.userId,
        credentialId: credential.id,
        publicKey: Buffer.from(credential.publicKey),
        counter: credential.counter,
        transports: credential.transports ?? input.response.response.transports ?? [],
        deviceType: credentialDeviceType,
        backedUp: credentialBackedUp,
        name: input.name ?? `Passkey ${count + 1}`,
      },
      now,
    );
  });
}

/**
 * A credential id that looks real for an email without passkeys, the same on
 * every call, so the options do not reveal whether the account exists.
 */
function decoyDescriptor(rp: RelyingParty, email: string) {
  const id = createHmac('sha256', rp.secret)
    .update(`passkey-decoy:${normalizeEmail(email)}`)
    .digest('base64url');
  return { id, transports: ['internal', 'hybrid'] };
}

/**
 * Authentication options. Without an email: usernameless (empty
 * allowCredentials, the browser offers the site's discoverable passkeys).
 * With one: that account's passkeys, and the challenge only accepts them.
 */
export async function startAuthentication(
  db: Db,
  rp: RelyingParty,
  email: string | undefined,
  now: number,
): Promise<PublicKeyCredentialRequestOptionsJSON> {
  const user = email === undefined ? undefined : findUserByEmail(db, email);
  const owned = user ? listPasskeys(db, user.id) : [];
  const allowCredentials =
    email === undefined
      ? []
      : owned.length > 0
        ? owned.map(descriptorOf)
        : [decoyDescriptor(rp, email)];
  const options = await generateAuthenticationOptions({
    rpID: rp.id,
    allowCredentials,
    userVerification: 'preferred',
    timeout: CHALLENGE_TTL_MS,
  });
  storeChallenge(
    db,
    { challenge: options.challenge, kind: 'authentication', userId: user?.id ?? null },
    now,
  );
  return options;
}

/**
 * Verifies an assertion against the live challenge it signed (consumed, so a
 * replay fails) and the stored credential; updates the counter, backup state
 * and last use. Every failure is the same 401.
 */
export async function finishAuthentication(
  db: Db,
  rp: RelyingParty,
  response: AuthenticationResponseJSON,
  now: number,
): Promise<User> {
  const challenge = signedChallenge(response.response.clientDataJSON);
  const stored =
    challenge === null ? null : consumeChallenge(db, { challenge, kind: 'authentication' }, now);
  const passkey = stored ? findPasskeyByCredentialId(db, response.id) : undefined;
  if (!stored || !passkey) throw fail('credentials.invalid');
  if (stored.userId !== null && stored.userId !== passkey.userId) throw fail('credentials.invalid');
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
      requireUserVerification: false,
    });
  } catch {
    // Includes a sign counter that did not increase (a cloned authenticator).
    throw fail('credentials.invalid');
  }
  if (!verified.verified) throw fail('credentials.invalid');
  const info = verified.authenticationInfo;
  const recorded = recordPasskeyUse(
    db,
    passkey,
    {
      counter: info.newCounter,
      backedUp: info.credentialBackedUp,
      deviceType: info.credentialDeviceType,
    },
    now,
  );
  const user = findUserById(db, passkey.userId);
  if (!recorded || !user) throw fail('credentials.invalid');
  return user;
}
