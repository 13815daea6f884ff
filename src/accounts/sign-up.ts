import type { AuditContext } from '@/audit/record';
import { type MailContext, newEmailLink } from './email-links';
import type { CallerHasher } from './hashing';
import { admitHashing, type HashingLimits, typedAccount } from './hashing-limits';
import type { AccountStore } from './store';
import { insertUser } from './users';

/**
 * Self-service sign-up, answered the same whether or not the email is taken:
 * a taken email creates nothing and keeps its account untouched, but costs
 * the same password hash, so neither the answer nor its timing tells
 * whether someone has an account here. Two sign-ups for one email at once
 * make one account (the store's unique email decides, the other stores nothing).
 * Under the hashing limits, checked before the store is asked about the email.
 * With `verification` (SIGN_UP=verify) the account is stored unverified,
 * with the link that verifies it and its message, in one transaction.
 */
export async function signUpCustomer(
  store: AccountStore,
  { hasher, limits }: { hasher: CallerHasher; limits: HashingLimits },
  input: { email: string; password: string; address: string; verification?: MailContext },
  audit: AuditContext,
): Promise<void> {
  const hashing = typedAccount(input.email, input.address);
  await admitHashing(limits, hashing);
  const { email, password } = input;
  if (await store.findUserByEmail(email)) {
    await hasher.hash(password, hashing.caller);
    return;
  }
  await insertUser(
    store,
    { email, password, role: 'customer' },
    { hasher, caller: hashing.caller },
    {
      action: 'sign_up',
      audit,
      // The account's id is not known yet: the store gives the link the new account's.
      ...(input.verification && {
        verification: newEmailLink('verify', { userId: '', email }, input.verification, audit.at),
      }),
    },
  );
}
