import { uuidv7 } from '@/db/ids';
import type { Db } from '@/db/sqlite/client';
import type { User } from '@/db/sqlite/schema';
import { fail } from '@/kernel/errors';
import { whenReady } from '@/kernel/maybe-promise';
import { normalizeEmail } from './email';
import {
  argon2idHasher,
  type CallerHasher,
  type HashingCaller,
  type PasswordHasher,
} from './hashing';
import type { AccountCreation } from './operations';
import { sqliteAccountStore } from './sqlite-store';
import type { AccountStore } from './store';

export type { AccountCreation } from './operations';

export type Role = User['role'];

export { normalizeEmail } from './email';

/** The server's bounded hasher and whom the hash is for; command-line tools hash directly. */
export interface HashingFor {
  hasher: CallerHasher;
  caller: HashingCaller;
}

/** Command-line tools and scripts: argon2id at once, no capacity to share. */
const direct: HashingFor = { hasher: argon2idHasher, caller: { address: 'local' } };

/**
 * Hashes the password (through the server's bounded hasher when given) and
 * stores the user, with its security-log event in the same transaction when
 * `creation` is given; undefined when the email already has an account
 * (nothing stored, even when two creations race).
 */
export async function insertUser(
  store: AccountStore,
  input: { email: string; password: string; role: Role },
  { hasher, caller }: HashingFor = direct,
  creation?: AccountCreation,
): Promise<User | undefined> {
  const passwordHash = await hasher.hash(input.password, caller);
  const values = {
    id: uuidv7(),
    email: normalizeEmail(input.email),
    passwordHash,
    role: input.role,
    // Unverified until its link is followed, when the sign-up sends one.
    emailUnverified: creation?.verification !== undefined,
  };
  return store.createUser(values, creation);
}

/** `insertUser` on the SQLite file, for command-line tools: a taken email is `account.email_taken`. */
export async function createUser(
  db: Db,
  input: { email: string; password: string; role: Role },
  hasher: PasswordHasher = argon2idHasher,
): Promise<User> {
  const user = await insertUser(sqliteAccountStore(db), input, { hasher, caller: direct.caller });
  if (!user) throw fail('account.email_taken');
  return user;
}

/** The user of this email on the SQLite file (command-line tools). */
export const findUserByEmail = (db: Db, email: string): User | undefined =>
  sqliteAccountStore(db).findUserByEmail(email);

/** Whether any account exists (start-up says how to create the first one otherwise). */
export const hasAnyUser = (db: Db): boolean => sqliteAccountStore(db).hasAnyUser();

/** The account of a caller; `code` when its token names none (minted for an unknown `sub`). */
export const accountOf = (
  store: AccountStore,
  id: string,
  code: 'account.required' | 'account.not_found',
) =>
  whenReady(store.findUserById(id), (user) => {
    if (!user) throw fail(code);
    return user;
  });

/** What the API shows of a user: never the hash. */
export const userSummaryOf = (user: User) => ({
  id: user.id,
  email: user.email,
  role: user.role,
  emailVerified: !user.emailUnverified,
});
