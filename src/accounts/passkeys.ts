import { and, asc, eq, sql } from 'drizzle-orm';
import type { DbOrTx } from '@/db/client';
import { uuidv7 } from '@/db/ids';
import { type Passkey, passkeys } from '@/db/schema';

/** What the API shows of a passkey; never the key or counter. */
export interface PasskeySummary {
  id: string;
  name: string;
  createdAt: string;
  lastUsedAt: string | null;
  backedUp: boolean;
  deviceType: Passkey['deviceType'];
  transports: string[];
}

export const summaryOf = (passkey: Passkey): PasskeySummary => ({
  id: passkey.id,
  name: passkey.name,
  createdAt: passkey.createdAt.toISOString(),
  lastUsedAt: passkey.lastUsedAt?.toISOString() ?? null,
  backedUp: passkey.backedUp,
  deviceType: passkey.deviceType,
  transports: passkey.transports,
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

/** Renames the owner's passkey; undefined when it is not theirs (or missing). */
export function renamePasskey(
  db: DbOrTx,
  userId: string,
  id: string,
  name: string,
): Passkey | undefined {
  return db
    .update(passkeys)
    .set({ name })
    .where(and(eq(passkeys.id, id), eq(passkeys.userId, userId)))
    .returning()
    .get();
}

export function deletePasskey(db: DbOrTx, userId: string, id: string): boolean {
  const deleted = db
    .delete(passkeys)
    .where(and(eq(passkeys.id, id), eq(passkeys.userId, userId)))
    .returning({ id: passkeys.id })
    .get();
  return deleted !== undefined;
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
