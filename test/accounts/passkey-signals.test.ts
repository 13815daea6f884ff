import { beforeAll, expect, test } from 'bun:test';
import { UNKNOWN_CREDENTIAL_DETAIL } from '@/accounts/messages';
import { problemOf } from '../support/harness';
import { type AccountsTestApp, storesUnderTest } from './stores';

for (const under of storesUnderTest()) {
  under.describe('what the account page needs for passkey signals and conditional create', () => {
    let ctx: AccountsTestApp;
    beforeAll(async () => {
      ctx = await under.app();
    });

    test('happy: the summary carries the credential id the browser knows', async () => {
      const { authenticator, passkey } = await ctx.userWithPasskey();
      expect(passkey.credentialId).toBe(authenticator.credentials()[0]!.id);
    });

    test('error: a passkey deleted here → 401 saying it is not registered (the page signals it unknown)', async () => {
      const { session, authenticator, passkey } = await ctx.userWithPasskey();
      expect((await ctx.browser(session, 'DELETE', `/auth/passkeys/${passkey.id}`)).status).toBe(
        204,
      );
      const res = await ctx.authenticate(authenticator);
      expect(res.status).toBe(401);
      expect(res.body as unknown).toEqual(problemOf(401, UNKNOWN_CREDENTIAL_DETAIL));
    });

    test('error: a known passkey with a bad signature keeps the plain 401', async () => {
      const { authenticator } = await ctx.userWithPasskey();
      const res = await ctx.authenticate(authenticator, { origin: 'http://evil.test:3000' });
      expect(res.status).toBe(401);
      expect(res.body as unknown).toEqual(problemOf(401));
    });

    test('happy: a conditional create may come without user presence', async () => {
      const session = await ctx.newUser();
      const options = await ctx.browser<Awaited<ReturnType<typeof ctx.registrationOptions>>>(
        session,
        'POST',
        '/auth/passkey/register/options',
        { body: { mediation: 'conditional' } },
      );
      expect(options.status).toBe(200);
      const authenticator = ctx.newAuthenticator();
      const response = await authenticator.createCredential(options.body, {
        userPresent: false,
        aaguid: 'bada5566-a7aa-401f-bd96-45619a55120d',
      });
      const res = await ctx.browser(session, 'POST', '/auth/passkey/register', {
        body: { response },
      });
      expect(res.status).toBe(201);
      expect(res.body).toMatchObject({ name: '1Password', provider: '1Password' });
    });

    test('error: without the conditional options a registration lacking user presence → 400, nothing stored', async () => {
      const session = await ctx.newUser();
      const options = await ctx.registrationOptions(session);
      const response = await ctx.newAuthenticator().createCredential(options, {
        userPresent: false,
      });
      const res = await ctx.browser(session, 'POST', '/auth/passkey/register', {
        body: { response },
      });
      expect(res.status).toBe(400);
      expect(res.body).toEqual(problemOf(400));
      const list = await ctx.browser<{ passkeys: unknown[] }>(session, 'GET', '/auth/passkeys');
      expect(list.body.passkeys).toEqual([]);
    });

    test.each([{ mediation: 'silent' }, { mediation: 'conditional', extra: 1 }])(
      'error: registration options with %j → 422',
      async (body) => {
        const session = await ctx.newUser();
        const res = await ctx.browser(session, 'POST', '/auth/passkey/register/options', { body });
        expect(res.status).toBe(422);
      },
    );
  });
}
