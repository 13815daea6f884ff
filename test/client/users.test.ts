import { describe, expect, test } from 'bun:test';
import { LAST_EMPLOYEE_DETAIL } from '@/accounts/messages';
import { AccountPage, AccountSummary } from '@/accounts/schemas';
import { SignInResponse, UserSummary } from '@/api/accounts/schemas';
import { ProblemError } from '../../client/src';
import { problemOf } from '../support/harness';
import { collect, serviceUnderTest } from './support';

// One employee creates and signs in to many accounts from one address, past the default hashing limits.
const svc = await serviceUnderTest({
  PASSWORD_HASHES_PER_ACCOUNT_PER_MINUTE: '1000',
  PASSWORD_HASHES_PER_IP_PER_MINUTE: '1000',
});
const PASSWORD = 'correct horse battery';
const NEW_PASSWORD = 'a brand new passphrase';

/** An account made by the employee client, and a client signed in as it. */
async function account(email: string, role: 'customer' | 'employee' = 'customer') {
  const user = UserSummary.parse(
    await svc.employee.admin.users.create({ email, password: PASSWORD, role }),
  );
  const client = svc.clientWith();
  const { accessToken } = SignInResponse.parse(
    await client.auth.signIn({ email, password: PASSWORD }),
  );
  client.setToken(accessToken);
  return { user, client, token: accessToken };
}

const problem = (call: Promise<unknown>) =>
  call.then(
    () => {
      throw new Error('expected a ProblemError');
    },
    (error: unknown) => {
      expect(error).toBeInstanceOf(ProblemError);
      return error as ProblemError;
    },
  );

describe('happy', () => {
  test('changePassword: 204; the earlier token answers 401 and the new password signs in', async () => {
    const { client, token } = await account('changer@example.com');
    const phone = svc.clientWith({ token });
    svc.clock.advance(2_000);
    await client.auth.changePassword({ currentPassword: PASSWORD, newPassword: NEW_PASSWORD });
    expect((await problem(phone.auth.me())).body).toEqual(problemOf(401));
    expect((await problem(client.auth.me())).status).toBe(401);
    await expect(
      svc.anonymous.auth.signIn({ email: 'changer@example.com', password: PASSWORD }),
    ).rejects.toMatchObject({ status: 401 });
    const again = await client.auth.signIn({
      email: 'changer@example.com',
      password: NEW_PASSWORD,
    });
    client.setToken(again.accessToken);
    expect((await client.auth.me()).email).toBe('changer@example.com');
  });

  test('signOutEverywhere: 204; every token issued until then answers 401', async () => {
    const { client, token } = await account('everywhere@example.com');
    const other = svc.clientWith();
    other.setToken(
      (await other.auth.signIn({ email: 'everywhere@example.com', password: PASSWORD }))
        .accessToken,
    );
    svc.clock.advance(2_000);
    await client.auth.signOutEverywhere();
    expect((await problem(other.auth.me())).status).toBe(401);
    expect((await problem(svc.clientWith({ token }).auth.me())).status).toBe(401);
  });

  test('admin.users: search pages by cursor, all() walks them, get, update, setPassword, delete', async () => {
    const made: string[] = [];
    for (let n = 0; n < 5; n++) {
      made.push(
        UserSummary.parse(
          await svc.employee.admin.users.create({
            email: `paged-${n}@example.com`,
            password: PASSWORD,
            role: 'customer',
          }),
        ).id,
      );
    }
    const users = svc.employee.admin.users;
    const first = AccountPage.parse(await users.search({ email: 'PAGED-', limit: 2 }));
    expect(first.users.map((user) => user.email)).toEqual([
      'paged-4@example.com',
      'paged-3@example.com',
    ]);
    expect(first.nextCursor).toBe(first.users[1]!.id);
    const pages = await collect(users.pages({ email: 'paged-', limit: 2 }));
    expect(pages.map((page) => page.users.length)).toEqual([2, 2, 1]);
    expect(pages.at(-1)!.nextCursor).toBeNull();
    const all = await collect(users.all({ email: 'paged-', limit: 2 }));
    expect(all.map((user) => user.id)).toEqual([...made].reverse());
    // From a cursor on: the accounts older than it.
    expect(
      (await collect(users.all({ email: 'paged-', cursor: made[2]!, limit: 2 }))).map((u) => u.id),
    ).toEqual(made.slice(0, 2).reverse());

    const id = made[0]!;
    expect(AccountSummary.parse(await users.get(id))).toMatchObject({
      email: 'paged-0@example.com',
      role: 'customer',
      disabled: false,
      disabledAt: null,
    });
    const disabled = AccountSummary.parse(await users.update(id, { disabled: true }));
    expect(disabled).toMatchObject({ disabled: true, disabledAt: expect.any(String) });
    expect(
      (await collect(users.all({ email: 'paged-', state: 'disabled' }))).map((u) => u.id),
    ).toEqual([id]);
    expect(await users.update(id, { disabled: false })).toMatchObject({
      disabled: false,
      disabledAt: null,
    });

    await users.setPassword(id, { password: NEW_PASSWORD });
    await expect(
      svc.anonymous.auth.signIn({ email: 'paged-0@example.com', password: PASSWORD }),
    ).rejects.toMatchObject({ status: 401 });
    expect(
      (await svc.anonymous.auth.signIn({ email: 'paged-0@example.com', password: NEW_PASSWORD }))
        .user.id,
    ).toBe(id);

    await users.delete(id);
    expect((await problem(users.get(id))).body).toEqual(problemOf(404));
  });
});

describe('error', () => {
  test('a wrong current password is a 401 ProblemError; a short new one a 422', async () => {
    const { client } = await account('wrong@example.com');
    const wrong = await problem(
      client.auth.changePassword({
        currentPassword: 'not the password',
        newPassword: NEW_PASSWORD,
      }),
    );
    expect(wrong.status).toBe(401);
    const short = await problem(
      client.auth.changePassword({ currentPassword: PASSWORD, newPassword: 'short' }),
    );
    expect(short.status).toBe(422);
    expect(Object.keys(short.validationMessages ?? {})).toEqual(['newPassword']);
    expect((await client.auth.me()).email).toBe('wrong@example.com');
  });

  test('the last active employee: 409 with its detail; an unknown id: 404', async () => {
    const users = svc.employee.admin.users;
    const { user } = await account('last.staff@example.com', 'employee');
    for (const other of await collect(users.all({ role: 'employee', state: 'active' }))) {
      if (other.id !== user.id) await users.update(other.id, { role: 'customer' });
    }
    for (const call of [
      () => users.update(user.id, { role: 'customer' }),
      () => users.update(user.id, { disabled: true }),
      () => users.delete(user.id),
    ]) {
      expect((await problem(call())).body).toEqual(problemOf(409, LAST_EMPLOYEE_DETAIL));
    }
    expect(await users.get(user.id)).toMatchObject({ role: 'employee', disabled: false });
    // With a second active employee, the first may step down.
    await account('second.staff@example.com', 'employee');
    expect(await users.update(user.id, { role: 'customer' })).toMatchObject({ role: 'customer' });
    const unknown = '00000000-0000-4000-8000-000000000000';
    expect((await problem(users.get(unknown))).body).toEqual(problemOf(404));
    expect((await problem(users.setPassword(unknown, { password: NEW_PASSWORD }))).status).toBe(
      404,
    );
  });
});

describe('auth', () => {
  test('a customer is refused the account administration (403); anonymous changes nothing (401)', async () => {
    const { client } = await account('plain@example.com');
    expect((await problem(client.admin.users.search())).status).toBe(403);
    expect((await problem(svc.anonymous.auth.signOutEverywhere())).status).toBe(401);
    expect(
      (
        await problem(
          svc.anonymous.auth.changePassword({
            currentPassword: PASSWORD,
            newPassword: NEW_PASSWORD,
          }),
        )
      ).status,
    ).toBe(401);
  });
});
