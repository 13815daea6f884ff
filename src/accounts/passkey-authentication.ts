import {
  type AuthenticationResponseJSON,
  generateAuthenticationOptions,
  type PublicKeyCredentialRequestOptionsJSON,
  verifyAuthenticationResponse,
} from '@simplewebauthn/server';
import type { User } from '@/db/sqlite/schema';
import { fail } from '@/kernel/errors';
import { consume, type RelyingParty, readSignedChallenge } from './ceremonies';
import { CHALLENGE_TTL_MS, emailBinding, issueChallenge } from './challenges';
import { UNKNOWN_CREDENTIAL_DETAIL } from './messages';
import type { AccountStore } from './store';

/** The user id a WebAuthn user handle holds (`userHandleOf` in passkey-registration.ts). */
const userIdOfHandle = (handle: string) => Buffer.from(handle, 'base64url').toString('utf8');

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
