import { beforeEach, describe, expect, test } from 'bun:test';
import {
  generateAuthenticationOptions,
  generateRegistrationOptions,
  type PublicKeyCredentialRequestOptionsJSON,
  verifyAuthenticationResponse,
  verifyRegistrationResponse,
  type WebAuthnCredential,
} from '@simplewebauthn/server';
import { encodeCbor } from './cbor';
import { rawSignatureToDer, SoftAuthenticator } from './soft-authenticator';

const origin = 'http://localhost:3000';
const rpID = 'localhost';

describe('encodeCbor', () => {
  test('encodes RFC 8949 appendix A examples', () => {
    const hex = (value: Parameters<typeof encodeCbor>[0]) =>
      Buffer.from(encodeCbor(value)).toString('hex');
    expect(hex(0)).toBe('00');
    expect(hex(23)).toBe('17');
    expect(hex(24)).toBe('1818');
    expect(hex(1000)).toBe('1903e8');
    expect(hex(1000000)).toBe('1a000f4240');
    expect(hex(1000000000000)).toBe('1b000000e8d4a51000');
    expect(hex(-1)).toBe('20');
    expect(hex(-100)).toBe('3863');
    expect(hex(-1000)).toBe('3903e7');
    expect(hex(false)).toBe('f4');
    expect(hex(true)).toBe('f5');
    expect(hex('')).toBe('60');
    expect(hex('IETF')).toBe('6449455446');
    expect(hex('\u00fc')).toBe('62c3bc');
    expect(hex(Uint8Array.of(1, 2, 3, 4))).toBe('4401020304');
    expect(hex([1, [2, 3], [4, 5]])).toBe('8301820203820405');
    expect(hex({ a: 1, b: [2, 3] })).toBe('a26161016162820203');
    expect(
      hex(
        new Map([
          [1, 2],
          [3, 4],
        ]),
      ),
    ).toBe('a201020304');
  });
});

describe('rawSignatureToDer', () => {
  test('strips leading zeros and pads high bits', () => {
    const raw = new Uint8Array(64);
    raw[31] = 0x01; // r = 1
    raw[32] = 0x80; // s has its high bit set
    const der = Buffer.from(rawSignatureToDer(raw)).toString('hex');
    expect(der).toBe(`3026020101022100${'80'.padEnd(64, '0')}`);
  });
});

describe('SoftAuthenticator', () => {
  let authenticator: SoftAuthenticator;
  let credential: WebAuthnCredential;

  const authOptions = (): Promise<PublicKeyCredentialRequestOptionsJSON> =>
    generateAuthenticationOptions({ rpID, allowCredentials: [] });

  const verifyAssertion = async (
    options: PublicKeyCredentialRequestOptionsJSON,
    response: Awaited<ReturnType<SoftAuthenticator['getAssertion']>>,
  ) =>
    verifyAuthenticationResponse({
      response,
      expectedChallenge: options.challenge,
      expectedOrigin: origin,
      expectedRPID: rpID,
      credential,
    });

  beforeEach(async () => {
    authenticator = new SoftAuthenticator({ origin, rpId: rpID });
    const options = await generateRegistrationOptions({
      rpName: 'Listings',
      rpID,
      userName: 'alice@example.com',
    });
    const response = await authenticator.createCredential(options);
    const result = await verifyRegistrationResponse({
      response,
      expectedChallenge: options.challenge,
      expectedOrigin: origin,
      expectedRPID: rpID,
    });
    expect(result.verified).toBe(true);
    if (!result.verified) throw new Error('registration failed');
    expect(result.registrationInfo.fmt).toBe('none');
    expect(result.registrationInfo.userVerified).toBe(true);
    expect(result.registrationInfo.credential.id).toBe(response.id);
    expect(result.registrationInfo.credential.counter).toBe(0);
    expect(authenticator.credentials()[0]?.userHandle).toBe(options.user.id);
    credential = result.registrationInfo.credential;
  });

  test('registers and authenticates with a discoverable credential', async () => {
    const options = await authOptions();
    const response = await authenticator.getAssertion(options);
    expect(response.id).toBe(credential.id);
    expect(response.response.userHandle).toBe(authenticator.credentials()[0]?.userHandle);
    const result = await verifyAssertion(options, response);
    expect(result.verified).toBe(true);
    expect(result.authenticationInfo.newCounter).toBe(1);
    expect(result.authenticationInfo.userVerified).toBe(true);
  });

  test('honours allowCredentials', async () => {
    const options = await generateAuthenticationOptions({
      rpID,
      allowCredentials: [{ id: credential.id }],
    });
    const response = await authenticator.getAssertion(options);
    expect(response.id).toBe(credential.id);
    expect((await verifyAssertion(options, response)).verified).toBe(true);
  });

  test('rejects a registration from the wrong origin', async () => {
    const options = await generateRegistrationOptions({
      rpName: 'Listings',
      rpID,
      userName: 'bob@example.com',
    });
    const response = await authenticator.createCredential(options, {
      origin: 'http://evil.test:3000',
    });
    await expect(
      verifyRegistrationResponse({
        response,
        expectedChallenge: options.challenge,
        expectedOrigin: origin,
        expectedRPID: rpID,
      }),
    ).rejects.toThrow(/origin/);
  });

  test('rejects a registration for the wrong rpId', async () => {
    const options = await generateRegistrationOptions({
      rpName: 'Listings',
      rpID,
      userName: 'bob@example.com',
    });
    const response = await authenticator.createCredential(options, {
      rpId: 'evil.test',
    });
    await expect(
      verifyRegistrationResponse({
        response,
        expectedChallenge: options.challenge,
        expectedOrigin: origin,
        expectedRPID: rpID,
      }),
    ).rejects.toThrow(/RP ID/i);
  });

  test('reports backup flags and missing user verification', async () => {
    const options = await generateRegistrationOptions({
      rpName: 'Listings',
      rpID,
      userName: 'carol@example.com',
    });
    const response = await authenticator.createCredential(options, {
      userVerified: false,
      backupEligible: true,
      backedUp: true,
    });
    const result = await verifyRegistrationResponse({
      response,
      expectedChallenge: options.challenge,
      expectedOrigin: origin,
      expectedRPID: rpID,
      requireUserVerification: false,
    });
    expect(result.registrationInfo?.userVerified).toBe(false);
    expect(result.registrationInfo?.credentialDeviceType).toBe('multiDevice');
    expect(result.registrationInfo?.credentialBackedUp).toBe(true);
  });

  test('rejects an assertion from the wrong origin', async () => {
    const options = await authOptions();
    const response = await authenticator.getAssertion(options, {
      origin: 'http://evil.test:3000',
    });
    await expect(verifyAssertion(options, response)).rejects.toThrow(/origin/);
  });

  test('rejects an assertion for the wrong rpId', async () => {
    const options = await authOptions();
    const response = await authenticator.getAssertion(options, {
      rpId: 'evil.test',
    });
    await expect(verifyAssertion(options, response)).rejects.toThrow(/RP ID/i);
  });

  test('rejects a counter regression', async () => {
    for (const expected of [1, 2]) {
      const options = await authOptions();
      const response = await authenticator.getAssertion(options);
      const result = await verifyAssertion(options, response);
      expect(result.authenticationInfo.newCounter).toBe(expected);
      credential = { ...credential, counter: expected };
    }
    const options = await authOptions();
    const response = await authenticator.getAssertion(options, {
      signCount: 1,
    });
    await expect(verifyAssertion(options, response)).rejects.toThrow(/counter/);
  });
});
