import { and, asc, eq, sql } from 'drizzle-orm';
import { type AuditContext, recordAudit } from '@/audit/record';
import type { DbOrTx } from '@/db/client';
import { uuidv7 } from '@/db/ids';
import { type Passkey, passkeys } from '@/db/schema';

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

/** Oldest first; rowid keeps insertion order for passkeys added in the same millisecond. */
export function listPasskeys(db: DbOrTx, userId: string): Passkey[] {
  return db
    .select()
    .from(passkeys)
    .where(eq(passkeys.userId, userId))
    .orderBy(asc(passkeys.createdAt), sql`rowid`)
    .all();
}

export function findPasskeyByCredentialId(db: DbOrTx, credentialId: string): Passkey | undefined {
  return db.select().from(passkeys).where(eq(passkeys.credentialId, credentialId)).get();
}

export function insertPasskey(
  db: DbOrTx,
  input: Omit<Passkey, 'id' | 'createdAt' | 'lastUsedAt'>,
  now: number,
): Passkey {
  return db
    .insert(passkeys)
    .values({ id: uuidv7(now), ...input, createdAt: new Date(now), lastUsedAt: null })
    .returning()
    .get();
}

/** A passkey's event in its owner's security log, named as it is now. */
export function recordPasskeyEvent(
  tx: DbOrTx,
  audit: AuditContext,
  action: 'passkey.added' | 'passkey.renamed' | 'passkey.deleted',
  passkey: Pick<Passkey, 'id' | 'userId' | 'name'>,
): void {
  const details = { name: passkey.name };
  recordAudit(tx, audit, { action, subject: passkey.userId, target: passkey.id, details });
}

/** Renames the owner's passkey; undefined when it is not theirs (or missing). */
export function renamePasskey(
  db: DbOrTx,
  userId: string,
  change: { id: string; name: string },
  audit: AuditContext,
): Passkey | undefined {
  return db.transaction((tx) => {
    const renamed = tx
      .update(passkeys)
      .set({ name: change.name })
      .where(and(eq(passkeys.id, change.id), eq(passkeys.userId, userId)))
      .returning()
      .get();
    if (renamed) recordPasskeyEvent(tx, audit, 'passkey.renamed', renamed);
    return renamed;
  });
}

export function deletePasskey(
  db: DbOrTx,
  userId: string,
  id: string,
  audit: AuditContext,
): boolean {
  return db.transaction((tx) => {
    const deleted = tx
      .delete(passkeys)
      .where(and(eq(passkeys.id, id), eq(passkeys.userId, userId)))
      .returning({ id: passkeys.id, userId: passkeys.userId, name: passkeys.name })
      .get();
    if (!deleted) return false;
    recordPasskeyEvent(tx, audit, 'passkey.deleted', deleted);
    return true;
  });
}

/**
 * Stores the outcome of a verified assertion. Compare-and-set on the counter:
 * of two assertions verified against the same stored counter only one wins.
 */
export function recordPasskeyUse(
  db: DbOrTx,
  passkey: Passkey,
  use: { counter: number; backedUp: boolean; deviceType: Passkey['deviceType'] },
  now: number,
): boolean {
  const updated = db
    .update(passkeys)
    .set({ ...use, lastUsedAt: new Date(now) })
    .where(and(eq(passkeys.id, passkey.id), eq(passkeys.counter, passkey.counter)))
    .returning({ id: passkeys.id })
    .get();
  return updated !== undefined;
}
