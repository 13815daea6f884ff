import { describe, expect, test } from 'bun:test';
import { SessionList } from '@/accounts/schemas';
import {
  AuthenticationOptions,
  PasskeyList,
  PasskeySummary,
  RegistrationOptions,
  SignInResponse,
  SignUpAccepted,
  UserSummary,
} from '@/api/accounts/schemas';
import { AuditPage } from '@/audit/schemas';
import { ProblemError } from '../../client/src';
import { problemOf } from '../support/harness';
import { SoftAuthenticator } from '../support/webauthn/soft-authenticator';
import { PUBLIC_ORIGIN, serviceUnderTest } from './support';

const svc = await serviceUnderTest();
const PASSWORD = 'correct horse battery';

/** The session cookie a browser would hold after signing in (the client keeps bearer tokens only). */
async function sessionCookieOf(email: string): Promise<string> {
  const res = await fetch(`${svc.baseUrl}/auth/sign-in`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ email, password: PASSWORD }),
  });
  return res.headers.get('set-cookie')?.split(';')[0] ?? '';
}

describe('happy', () => {
  test('sign up, sign in, register a passkey, sign in with it, rename, delete, sign out', async () => {
    const client = svc.clientWith();
    expect(
      SignUpAccepted.parse(
        await client.auth.signUp({ email: 'ana@example.com', password: PASSWORD }),
      ),
    ).toMatchObject({ email: 'ana@example.com' });
    const signedIn = SignInResponse.parse(
      await client.auth.signIn({ email: 'ana@example.com', password: PASSWORD }),
    );
    client.setToken(signedIn.accessToken);
    const user = UserSummary.parse(await client.auth.me());
    expect(user).toEqual(signedIn.user);

    // Adding a passkey takes a fresh browser session, never the bearer token alone.
    await expect(client.auth.passkeys.registrationOptions()).rejects.toMatchObject({
      status: 403,
    });
    const cookie = await sessionCookieOf('ana@example.com');
    const browser = svc.clientWith({ headers: { cookie, origin: PUBLIC_ORIGIN } });

    // The ceremonies' JSON goes through the client untouched.
    const authenticator = new SoftAuthenticator({ origin: PUBLIC_ORIGIN, rpId: 'localhost' });
    const creation = RegistrationOptions.parse(await browser.auth.passkeys.registrationOptions());
    const response = await authenticator.createCredential(
      creation as Parameters<SoftAuthenticator['createCredential']>[0],
    );
    const passkey = PasskeySummary.parse(
      await browser.auth.passkeys.register({ response, name: 'Laptop' }),
    );
    expect(passkey.name).toBe('Laptop');

    const anonymous = svc.clientWith();
    const request = AuthenticationOptions.parse(
      await anonymous.auth.passkeys.authenticationOptions(),
    );
    const assertion = await authenticator.getAssertion(
      request as Parameters<SoftAuthenticator['getAssertion']>[0],
    );
    const viaPasskey = await anonymous.auth.passkeys.authenticate({ response: assertion });
    expect(viaPasskey.user).toEqual(user);

    expect(await client.auth.passkeys.rename(passkey.id, { name: 'Work laptop' })).toMatchObject({
      id: passkey.id,
      name: 'Work laptop',
    });
    expect(PasskeyList.parse(await client.auth.passkeys.list()).passkeys).toHaveLength(1);
    await client.auth.passkeys.delete(passkey.id);
    expect(await client.auth.passkeys.list()).toEqual({ passkeys: [] });

    // The sessions (the browser's and the passkey sign-in's) and the security log.
    const { sessions } = SessionList.parse(await browser.auth.sessions.list());
    expect(sessions.filter((session) => session.current)).toHaveLength(1);
    const other = sessions.find((session) => !session.current)!;
    await browser.auth.sessions.revoke(other.id);
    expect((await browser.auth.sessions.list()).sessions).toHaveLength(sessions.length - 1);
    const log = AuditPage.parse(await client.auth.securityLog({ limit: 2 }));
    expect(log.events.map((event) => event.action)).toEqual(['session.revoked', 'passkey.deleted']);
    expect(log.nextCursor).toBe(log.events[1]!.id);
    await client.auth.signOut();
  });
});

describe('error', () => {
  test('sign-up validation is a 422 ProblemError; wrong credentials a 401', async () => {
    const error = await svc.anonymous.auth
      .signUp({ email: 'not-an-email', password: 'short' })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ProblemError);
    expect((error as ProblemError).status).toBe(422);
    expect(Object.keys((error as ProblemError).validationMessages ?? {}).sort()).toEqual([
      'email',
      'password',
    ]);
    await expect(
      svc.anonymous.auth.signIn({ email: 'nobody@example.com', password: PASSWORD }),
    ).rejects.toMatchObject({ status: 401 });
  });
});

describe('auth', () => {
  test('passkey management needs a signed-in user', async () => {
    const error = await svc.anonymous.auth.passkeys.list().catch((e: unknown) => e);
    expect((error as ProblemError).body).toEqual(problemOf(401));
  });
});
