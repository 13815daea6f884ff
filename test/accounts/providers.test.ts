import { describe, expect, test } from 'bun:test';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  defaultPasskeyName,
  NO_AAGUID,
  providerOf,
  UNKNOWN_PROVIDER,
} from '@/accounts/provider-names';
import { ConfigError, parseConfig } from '@/config';
import { tempDir } from '../support/harness';

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

describe('PASSKEY_PROVIDERS_FILE', () => {
  const write = (text: string) => {
    const path = join(tempDir(), 'providers.json');
    writeFileSync(path, text);
    return path;
  };

  test('names what the built-in list does not know, and goes first', () => {
    const path = write(
      JSON.stringify({
        '01020304-0506-0708-0102-030405060708': 'Test key',
        'EA9B8D66-4D01-1D21-3CE4-B6B48CB575D4': 'Google',
      }),
    );
    const { passkeyProviders } = parseConfig({
      DATABASE_PATH: ':memory:',
      PASSKEY_PROVIDERS_FILE: path,
    });
    expect(providerOf('01020304-0506-0708-0102-030405060708', passkeyProviders)).toBe('Test key');
    expect(providerOf('ea9b8d66-4d01-1d21-3ce4-b6b48cb575d4', passkeyProviders)).toBe('Google');
    expect(providerOf('bada5566-a7aa-401f-bd96-45619a55120d', passkeyProviders)).toBe('1Password');
  });

  test.each([
    ['not json', '{', 'is not JSON'],
    ['a bad AAGUID', '{"x": "Key"}', 'must be a JSON object of AAGUID → name'],
    ['an empty name', '{"01020304-0506-0708-0102-030405060708": " "}', 'must be a JSON object'],
    ['an array', '[]', 'must be a JSON object'],
  ])('error: %s stops configuration parsing naming the variable', (_, text, message) => {
    const path = write(text);
    expect(() => parseConfig({ DATABASE_PATH: ':memory:', PASSKEY_PROVIDERS_FILE: path })).toThrow(
      `PASSKEY_PROVIDERS_FILE: "${path}" ${message}`,
    );
  });

  test('error: a missing file', () => {
    const path = join(tempDir(), 'absent.json');
    expect(() => parseConfig({ DATABASE_PATH: ':memory:', PASSKEY_PROVIDERS_FILE: path })).toThrow(
      ConfigError,
    );
  });
});
