import type { Passkey } from '@/db/schema';

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
