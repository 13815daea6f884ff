import type { Passkey } from '@/db/sqlite/schema';

/** What the API shows of a passkey; never the key or counter. */
export interface PasskeySummary {
  id: string;
  credentialId: string;
  name: string;
  createdAt: string;
  lastUsedAt: string | null;
  backedUp: boolean;
  deviceType: Passkey['deviceType'];
  transports: string[];
  provider: string;
  aaguid: string;
}

export const summaryOf = (passkey: Passkey): PasskeySummary => ({
  id: passkey.id,
  credentialId: passkey.credentialId,
  name: passkey.name,
  createdAt: passkey.createdAt.toISOString(),
  lastUsedAt: passkey.lastUsedAt?.toISOString() ?? null,
  backedUp: passkey.backedUp,
  deviceType: passkey.deviceType,
  transports: passkey.transports,
  provider: passkey.provider,
  aaguid: passkey.aaguid,
});

/**
 * The transports WebAuthn defines (`AuthenticatorTransportFuture` of
 * @simplewebauthn: `cable` is the older name of `hybrid`). A registration
 * keeps only these, in the order reported, once each: anything else a
 * client sends is dropped rather than refused, since a newer browser may
 * report a transport this list does not know yet, and a stored value is
 * shown back to its owner.
 */
export const WEBAUTHN_TRANSPORTS = [
  'usb',
  'nfc',
  'ble',
  'smart-card',
  'hybrid',
  'internal',
  'cable',
] as const;

export type WebauthnTransport = (typeof WEBAUTHN_TRANSPORTS)[number];

const isWebauthnTransport = (value: string): value is WebauthnTransport =>
  (WEBAUTHN_TRANSPORTS as readonly string[]).includes(value);

export const webauthnTransports = (reported: readonly string[]): WebauthnTransport[] =>
  [...new Set(reported)].filter(isWebauthnTransport);
