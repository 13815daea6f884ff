import { eq } from 'drizzle-orm';
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

/**
 * Inserts a user with an argon2id hash (through the server's bounded hasher
 * when given); the caller checks uniqueness first.
 */
export async function createUser(
  db: DbOrTx,
  input: { email: string; password: string; role: Role },
  hasher: PasswordHasher = argon2idHasher,
): Promise<User> {
  const passwordHash = await hasher.hash(input.password);
  return db
    .insert(users)
    .values({ id: uuidv7(), email: normalizeEmail(input.email), passwordHash, role: input.role })
    .returning()
    .get();
}

/** Whether any account exists (start-up says how to create the first one otherwise). */
export const hasAnyUser = (db: DbOrTx): boolean =>
  db.select({ id: users.id }).from(users).limit(1).get() !== undefined;

export function findUserById(db: DbOrTx, id: string): User | undefined {
  return db.select().from(users).where(eq(users.id, id)).get();
}

/** What the API shows of a user: never the hash. */
export const userSummaryOf = (user: User) => ({ id: user.id, email: user.email, role: user.role });
