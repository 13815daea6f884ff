import { describe, expect, test } from 'bun:test';
import {
  defaultPasskeyName,
  NO_AAGUID,
  providerOf,
  UNKNOWN_PROVIDER,
} from '@/accounts/provider-names';

describe('passkey provider names (the vendored AAGUID list)', () => {
  test.each([
    ['fbfc3007-154e-4ecc-8c0b-6e020557d7bd', 'Apple Passwords'],
    ['ea9b8d66-4d01-1d21-3ce4-b6b48cb575d4', 'Google Password Manager'],
    ['bada5566-a7aa-401f-bd96-45619a55120d', '1Password'],
    ['08987058-cadc-4b81-b6e1-30de50dcbe96', 'Windows Hello'],
    ['EA9B8D66-4D01-1D21-3CE4-B6B48CB575D4', 'Google Password Manager'],
  ])('%s → %s', (aaguid, name) => {
    expect(providerOf(aaguid)).toBe(name);
  });

  test('all zeros (which the list itself names "None") and unknown AAGUIDs → "Passkey"', () => {
    expect(UNKNOWN_PROVIDER).toBe('Passkey');
    expect(providerOf(NO_AAGUID)).toBe('Passkey');
    expect(providerOf('01234567-89ab-cdef-0123-456789abcdef')).toBe('Passkey');
    expect(providerOf('not an aaguid')).toBe('Passkey');
  });

  test('the default name is the provider’s, numbered from 2 past the names taken', () => {
    expect(defaultPasskeyName('iCloud Keychain', [])).toBe('iCloud Keychain');
    expect(defaultPasskeyName('iCloud Keychain', ['iCloud Keychain'])).toBe('iCloud Keychain 2');
    expect(
      defaultPasskeyName('iCloud Keychain', ['iCloud Keychain', 'iCloud Keychain 2', 'Passkey']),
    ).toBe('iCloud Keychain 3');
    expect(defaultPasskeyName('Passkey', ['iCloud Keychain 2'])).toBe('Passkey');
  });
});
