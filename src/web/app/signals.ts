/**
 * The WebAuthn Signal API and client capabilities, where the browser has them
 * (feature-detected: elsewhere every call here does nothing). A signal tells
 * the passkey provider what this site knows, so it stops offering passkeys
 * deleted here and shows the account's current name; it is advice, so a
 * refused signal changes nothing on the page.
 */
import type { Passkey, User } from './api';

interface SignalApi {
  signalAllAcceptedCredentials?(options: {
    rpId: string;
    userId: string;
    allAcceptedCredentialIds: string[];
  }): Promise<void>;
  signalUnknownCredential?(options: { rpId: string; credentialId: string }): Promise<void>;
  signalCurrentUserDetails?(options: {
    rpId: string;
    userId: string;
    name: string;
    displayName: string;
  }): Promise<void>;
  getClientCapabilities?(): Promise<Record<string, boolean | undefined>>;
}

const webAuthn = (): SignalApi | undefined =>
  (globalThis as { PublicKeyCredential?: SignalApi }).PublicKeyCredential;

/** The relying party id, written into the page by the server. */
const rpId = () => document.body.dataset.rpId ?? location.hostname;

/** The WebAuthn user handle of an account: its id's UTF-8 bytes, base64url. */
function userHandleOf(user: User): string {
  let binary = '';
  for (const byte of new TextEncoder().encode(user.id)) binary += String.fromCharCode(byte);
  return btoa(binary).replaceAll('+', '-').replaceAll('/', '_').replace(/=+$/, '');
}

async function quietly(call: (() => Promise<void>) | undefined) {
  try {
    await call?.();
  } catch {
    // A provider may decline a signal; the page goes on as before.
  }
}

/** After listing or deleting: these are all of the account's passkeys. */
export function signalAcceptedPasskeys(user: User, passkeys: readonly Passkey[]) {
  const api = webAuthn();
  const signal = api?.signalAllAcceptedCredentials?.bind(api);
  return quietly(
    signal &&
      (() =>
        signal({
          rpId: rpId(),
          userId: userHandleOf(user),
          allAcceptedCredentialIds: passkeys.map((passkey) => passkey.credentialId),
        })),
  );
}

/** After a sign-in the server refused because it does not know the passkey. */
export function signalUnknownPasskey(credentialId: string) {
  const api = webAuthn();
  const signal = api?.signalUnknownCredential?.bind(api);
  return quietly(signal && (() => signal({ rpId: rpId(), credentialId })));
}

/** After a sign-in: the account's name as the provider should show it. */
export function signalCurrentUser(user: User) {
  const api = webAuthn();
  const signal = api?.signalCurrentUserDetails?.bind(api);
  const details = { name: user.email, displayName: user.email };
  return quietly(
    signal && (() => signal({ rpId: rpId(), userId: userHandleOf(user), ...details })),
  );
}

/** Whether the browser can create a passkey silently (conditional create). */
export async function supportsConditionalCreate(): Promise<boolean> {
  const api = webAuthn();
  if (!api?.getClientCapabilities) return false;
  try {
    return (await api.getClientCapabilities()).conditionalCreate === true;
  } catch {
    return false;
  }
}
