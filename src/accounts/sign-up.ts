import type { AuditContext } from '@/audit/record';
import type { Db } from '@/db/client';
import type { PasswordHasher } from './hashing';
import { createUser, findUserByEmail } from './users';

const isUniqueViolation = (error: unknown) =>
  (error as { code?: string } | null)?.code === 'SQLITE_CONSTRAINT_UNIQUE';

/**
 * Self-service sign-up, answered the same whether or not the email is taken:
 * a taken email creates nothing and keeps its account untouched, but costs
 * the same password hash, so neither the answer nor its timing tells
 * whether someone has an account here.
 */
export async function signUpCustomer(
  db: Db,
  hasher: PasswordHasher,
  input: { email: string; password: string },
  audit: AuditContext,
): Promise<void> {
  if (findUserByEmail(db, input.email)) {
    await hasher.hash(input.password);
    return;
  }
  try {
    await createUser(db, { ...input, role: 'customer' }, hasher, { action: 'sign_up', audit });
  } catch (error) {
    // Two sign-ups for one email raced past the check above: the first one made it.
    if (!isUniqueViolation(error)) throw error;
  }
}
