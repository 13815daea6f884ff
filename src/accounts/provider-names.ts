import vendored from './providers/aaguids.json' with { type: 'json' };

/** The name of a passkey whose provider is unknown (or that reports no AAGUID). */
export const UNKNOWN_PROVIDER = 'Passkey';

export const NO_AAGUID = '00000000-0000-0000-0000-000000000000';

const names = new Map<string, string>(Object.entries(vendored as Record<string, string>));

/**
 * The provider of an AAGUID ("iCloud Keychain", "1Password", "YubiKey 5 Series"):
 * the operator's own names first (PASSKEY_PROVIDERS_FILE), then the vendored
 * list; "Passkey" when neither knows it or the authenticator does not say
 * (all zeros, as many security keys do under attestation "none").
 */
export function providerOf(aaguid: string, own: Readonly<Record<string, string>> = {}): string {
  const key = aaguid.toLowerCase();
  if (key === NO_AAGUID) return UNKNOWN_PROVIDER;
  return own[key] ?? names.get(key) ?? UNKNOWN_PROVIDER;
}

/**
 * A new passkey's default name: its provider's, numbered from 2 when the
 * user already has a passkey of that name ("iCloud Keychain", "iCloud
 * Keychain 2"), so a list of passkeys tells the devices apart.
 */
export function defaultPasskeyName(provider: string, taken: readonly string[]): string {
  const names = new Set(taken);
  if (!names.has(provider)) return provider;
  let n = 2;
  while (names.has(`${provider} ${n}`)) n++;
  return `${provider} ${n}`;
}
