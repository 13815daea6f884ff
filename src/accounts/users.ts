import { eq } from 'drizzle-orm';
import { type AuditContext, recordAudit } from '@/audit/record';
import type { DbOrTx } from '@/db/client';
import { uuidv7 } from '@/db/ids';
import { type User, users } from '@/db/schema';
import { argon2idHasher, type PasswordHasher } from './hashing';

export type Role = User['role'];

export const normalizeEmail = (email: string) => email.trim().toLowerCase();

export function findUserByEmail(db: DbOrTx, email: string): User | undefined {
  return db
    .select()
    .from(users)
    .where(eq(users.email, normalizeEmail(email)))
    .get();
}

/** How an account came to be, for its security-log event (command-line tools log none). */
export interface AccountCreation {
  action: 'sign_up' | 'account.created';
  audit: AuditContext;
}

/**
 * Inserts a user with an argon2id hash (through the server's bounded hasher
 * when given), with its security-log event in the same transaction when
 * `creation` is given; the caller checks uniqueness first.
 */
export async function createUser(
  db: DbOrTx,
  input: { email: string; password: string; role: Role },
  hasher: PasswordHasher = argon2idHasher,
  creation?: AccountCreation,
): Promise<User> {
  const passwordHash = await hasher.hash(input.password);
  return db.transaction((tx) => {
    const user = tx
      .insert(users)
      .values({ id: uuidv7(), email: normalizeEmail(input.email), passwordHash, role: input.role })
      .returning()
      .get();
    if (creation) {
      recordAudit(tx, creation.audit, {
        action: creation.action,
        subject: user.id,
        details: { role: user.role },
      });
    }
    return user;
  });
}

/** Whether any account exists (start-up says how to create the first one otherwise). */
export const hasAnyUser = (db: DbOrTx): boolean =>
  db.select({ id: users.id }).from(users).limit(1).get() !== undefined;

export function findUserById(db: DbOrTx, id: string): User | undefined {
  return db.select().from(users).where(eq(users.id, id)).get();
}

/** What the API shows of a user: never the hash. */
export const userSummaryOf = (user: User) => ({ id: user.id, email: user.email, role: user.role });
