import type {
  AuthenticationResponseJSON,
  PublicKeyCredentialCreationOptionsJSON,
  PublicKeyCredentialRequestOptionsJSON,
  RegistrationResponseJSON,
} from '@simplewebauthn/server';
import { type CborValue, encodeCbor } from './cbor';

/** A credential held by the soft authenticator. `id` and `userHandle` are base64url. */
export interface SoftCredential {
  id: string;
  privateKey: CryptoKey;
  /** COSE_Key (EC2, ES256) as stored by the relying party. */
  publicKey: Uint8Array<ArrayBuffer>;
  userHandle: string;
  rpId: string;
  signCount: number;
  backupEligible: boolean;
  backedUp: boolean;
}

export interface SoftAuthenticatorOptions {
  origin: string;
  rpId: string;
}

export interface CreateCredentialOverrides {
  origin?: string;
  rpId?: string;
  userVerified?: boolean;
  backupEligible?: boolean;
  backedUp?: boolean;
  /** The authenticator's AAGUID (a UUID); all zeros when not given. */
  aaguid?: string;
  /** Whether the user-present flag is set (true unless said otherwise). */
  userPresent?: boolean;
}

export interface GetAssertionOverrides {
  origin?: string;
  /** rpId hashed into authenticatorData (credential lookup still uses the real rpId). */
  rpId?: string;
  credentialId?: string;
  /** Exact counter to sign, e.g. to forge a regression. */
  signCount?: number;
  userVerified?: boolean;
}

const FLAG_UP = 0x01;

const aaguidBytes = (aaguid: string | undefined) =>
  aaguid === undefined
    ? new Uint8Array(16)
    : Uint8Array.from(Buffer.from(aaguid.replaceAll('-', ''), 'hex'));
const FLAG_UV = 0x04;
const FLAG_BE = 0x08;
const FLAG_BS = 0x10;
const FLAG_AT = 0x40;
const COSE_ALG_ES256 = -7;
const EC_PARAMS = { name: 'ECDSA', namedCurve: 'P-256' } as const;
const SIGN_PARAMS = { name: 'ECDSA', hash: 'SHA-256' } as const;

const textEncoder = new TextEncoder();

const toBase64Url = (bytes: Uint8Array): string => Buffer.from(bytes).toString('base64url');

const sha256 = async (data: Uint8Array<ArrayBuffer>) =>
  new Uint8Array(await crypto.subtle.digest('SHA-256', data));

function concat(...parts: Uint8Array[]): Uint8Array<ArrayBuffer> {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let offset = 0;
  for (const part of parts) {
    out.set(part, offset);
    offset += part.length;
  }
  return out;
}

function uint32(value: number): Uint8Array {
  const out = new Uint8Array(4);
  new DataView(out.buffer).setUint32(0, value);
  return out;
}

function uint16(value: number): Uint8Array {
  return Uint8Array.of(value >> 8, value & 0xff);
}

/** Encodes one unsigned big-endian integer as a DER INTEGER. */
function derInteger(bytes: Uint8Array): Uint8Array {
  let start = 0;
  while (start < bytes.length - 1 && bytes[start] === 0) start++;
  const trimmed = bytes.subarray(start);
  const padded = (trimmed[0] ?? 0) & 0x80 ? concat(Uint8Array.of(0), trimmed) : trimmed;
  return concat(Uint8Array.of(0x02, padded.length), padded);
}

/** Converts a WebCrypto raw (r || s) ECDSA signature to ASN.1 DER. */
export function rawSignatureToDer(raw: Uint8Array): Uint8Array {
  const half = raw.length / 2;
  const body = concat(derInteger(raw.subarray(0, half)), derInteger(raw.subarray(half)));
  return concat(Uint8Array.of(0x30, body.length), body);
}

function clientData(type: string, challenge: string, origin: string) {
  const json = JSON.stringify({ type, challenge, origin, crossOrigin: false });
  return textEncoder.encode(json);
}

export class SoftAuthenticator {
  readonly origin: string;
  readonly rpId: string;
  readonly #credentials: SoftCredential[] = [];

  constructor(options: SoftAuthenticatorOptions) {
    this.origin = options.origin;
    this.rpId = options.rpId;
  }

  credentials(): readonly SoftCredential[] {
    return [...this.#credentials];
  }

  async createCredential(
    options: PublicKeyCredentialCreationOptionsJSON,
    overrides: CreateCredentialOverrides = {},
  ): Promise<RegistrationResponseJSON> {
    const rpId = overrides.rpId ?? this.rpId;
    const backupEligible = overrides.backupEligible ?? false;
    const backedUp = overrides.backedUp ?? false;

    const keyPair = await crypto.subtle.generateKey(EC_PARAMS, true, ['sign', 'verify']);
    const rawPublicKey = new Uint8Array(await crypto.subtle.exportKey('raw', keyPair.publicKey));
    const spki = new Uint8Array(await crypto.subtle.exportKey('spki', keyPair.publicKey));
    const cosePublicKey = encodeCbor(
      new Map<number, number | Uint8Array>([
        [1, 2],
        [3, COSE_ALG_ES256],
        [-1, 1],
        [-2, rawPublicKey.subarray(1, 33)],
        [-3, rawPublicKey.subarray(33, 65)],
      ]),
    );
    const rawId = crypto.getRandomValues(new Uint8Array(32));
    const id = toBase64Url(rawId);

    let flags = FLAG_AT;
    if (overrides.userPresent ?? true) flags |= FLAG_UP;
    if (overrides.userVerified ?? true) flags |= FLAG_UV;
    if (backupEligible) flags |= FLAG_BE;
    if (backedUp) flags |= FLAG_BS;

    const authData = concat(
      await sha256(textEncoder.encode(rpId)),
      Uint8Array.of(flags),
      uint32(0),
      aaguidBytes(overrides.aaguid),
      uint16(rawId.length),
      rawId,
      cosePublicKey,
    );
    const attestationObject = encodeCbor(
      new Map<string, CborValue>([
        ['fmt', 'none'],
        ['attStmt', new Map()],
        ['authData', authData],
      ]),
    );
    const clientDataJSON = clientData(
      'webauthn.create',
      options.challenge,
      overrides.origin ?? this.origin,
    );

    this.#credentials.push({
      id,
      privateKey: keyPair.privateKey,
      publicKey: cosePublicKey,
      userHandle: options.user.id,
      rpId,
      signCount: 0,
      backupEligible,
      backedUp,
    });

    return {
      id,
      rawId: id,
      type: 'public-key',
      response: {
        clientDataJSON: toBase64Url(clientDataJSON),
        attestationObject: toBase64Url(attestationObject),
        authenticatorData: toBase64Url(authData),
        transports: ['internal', 'hybrid'],
        publicKeyAlgorithm: COSE_ALG_ES256,
        publicKey: toBase64Url(spki),
      },
      clientExtensionResults: {},
      authenticatorAttachment: 'platform',
    };
  }

  async getAssertion(
    options: PublicKeyCredentialRequestOptionsJSON,
    overrides: GetAssertionOverrides = {},
  ): Promise<AuthenticationResponseJSON> {
    const credential = this.#select(options, overrides.credentialId);
    const signCount = overrides.signCount ?? credential.signCount + 1;
    credential.signCount = signCount;

    let flags = FLAG_UP;
    if (overrides.userVerified ?? true) flags |= FLAG_UV;
    if (credential.backupEligible) flags |= FLAG_BE;
    if (credential.backedUp) flags |= FLAG_BS;

    const authData = concat(
      await sha256(textEncoder.encode(overrides.rpId ?? credential.rpId)),
      Uint8Array.of(flags),
      uint32(signCount),
    );
    const clientDataJSON = clientData(
      'webauthn.get',
      options.challenge,
      overrides.origin ?? this.origin,
    );
    const rawSignature = await crypto.subtle.sign(
      SIGN_PARAMS,
      credential.privateKey,
      concat(authData, await sha256(clientDataJSON)),
    );

    return {
      id: credential.id,
      rawId: credential.id,
      type: 'public-key',
      response: {
        clientDataJSON: toBase64Url(clientDataJSON),
        authenticatorData: toBase64Url(authData),
        signature: toBase64Url(rawSignatureToDer(new Uint8Array(rawSignature))),
        userHandle: credential.userHandle,
      },
      clientExtensionResults: {},
      authenticatorAttachment: 'platform',
    };
  }

  #select(
    options: PublicKeyCredentialRequestOptionsJSON,
    credentialId: string | undefined,
  ): SoftCredential {
    const allowed = options.allowCredentials?.map((c) => c.id) ?? [];
    const rpId = options.rpId ?? this.rpId;
    const found = credentialId
      ? this.#credentials.find((c) => c.id === credentialId)
      : allowed.length > 0
        ? this.#credentials.find((c) => allowed.includes(c.id))
        : this.#credentials.findLast((c) => c.rpId === rpId);
    if (!found) throw new Error('SoftAuthenticator: no matching credential');
    return found;
  }
}
