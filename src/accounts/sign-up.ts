import type { AuditContext } from '@/audit/record';
import type { PasswordHasher } from './hashing';
import type { AccountStore } from './store';
import { insertUser } from './users';

/**
 * Self-service sign-up, answered the same whether or not the email is taken:
 * a taken email creates nothing and keeps its account untouched, but costs
 * the same password hash, so neither the answer nor its timing tells
 * whether someone has an account here. Two sign-ups for one email at once
 * make one account (the store's unique email decides, the other stores nothing).
 */
export async function signUpCustomer(
  store: AccountStore,
  hasher: PasswordHasher,
  input: { email: string; password: string },
  audit: AuditContext,
): Promise<void> {
  if (await store.findUserByEmail(input.email)) {
    await hasher.hash(input.password);
    return;
  }
  await insertUser(store, { ...input, role: 'customer' }, hasher, { action: 'sign_up', audit });
}
