import { beforeAll, expect, test } from 'bun:test';
import { USED_CHALLENGES_PER_ACCOUNT } from '@/accounts/challenges';
import { problemOf } from '../support/harness';
import { type AccountsTestApp, storesUnderTest } from './stores';

const SAMPLES = 200;
const MINUTE_MS = 60_000;

type Options = Awaited<ReturnType<AccountsTestApp['authenticationOptions']>>;

/** Per byte position of the challenges: how many distinct values, and their mean. */
function byteProfile(samples: Options[]) {
  const bytes = samples.map((options) => Buffer.from(options.challenge, 'base64url'));
  const length = bytes[0]!.length;
  return Array.from({ length }, (_, position) => {
    const values = bytes.map((challenge) => challenge[position]!);
    return {
      position,
      distinct: new Set(values).size,
      mean: values.reduce((sum, value) => sum + value, 0) / values.length,
    };
  });
}

for (const under of storesUnderTest()) {
  under.describe('passkey sign-in options tell nothing about the account', () => {
    let ctx: AccountsTestApp;
    beforeAll(async () => {
      ctx = await under.app();
    });

    test(`an account with two passkeys, one without and an unknown email: alike over ${SAMPLES} samples each`, async () => {
      const { session, authenticator } = await ctx.userWithPasskey();
      expect((await ctx.register(session, ctx.newAuthenticator())).status).toBe(201);
      const emails = {
        twoPasskeys: session.user.email,
        noPasskeys: (await ctx.createAccount()).email,
        unknown: 'nobody@example.com',
      };
      const groups: Record<string, Options[]> = {};
      for (const [name, email] of Object.entries(emails)) {
        groups[name] = [];
        for (let i = 0; i < SAMPLES; i++) groups[name].push(await ctx.authenticationOptions(email));
      }
      for (const [name, samples] of Object.entries(groups)) {
        // Everything but the challenge is one and the same answer: no entries, no transports.
        const rest = new Set(samples.map(({ challenge: _, ...other }) => JSON.stringify(other)));
        expect([name, [...rest]]).toEqual([
          name,
          [
            JSON.stringify({
              rpId: 'localhost',
              timeout: 300_000,
              allowCredentials: [],
              userVerification: 'required',
            }),
          ],
        ]);
        expect([name, new Set(samples.map((options) => options.challenge.length))]).toEqual([
          name,
          new Set([56]),
        ]);
        expect(new Set(samples.map((options) => options.challenge)).size).toBe(SAMPLES);
        // Every byte looks uniformly random: a flag, a kind or an expiry in the clear would
        // take one or a few values (uniform bytes: ~139 distinct of 200, mean 127.5 ± 5.2).
        const skewed = byteProfile(samples).filter(
          ({ distinct, mean }) => distinct < 100 || Math.abs(mean - 127.5) > 30,
        );
        expect([name, skewed]).toEqual([name, []]);
      }
      // The real account still signs in through its email's challenge.
      expect((await ctx.authenticate(authenticator, {}, emails.twoPasskeys)).status).toBe(200);
    });

    test('transports outside WebAuthn are dropped at registration, the rest kept once each', async () => {
      const session = await ctx.newUser();
      const options = await ctx.registrationOptions(session);
      const response = await ctx.newAuthenticator().createCredential(options);
      response.response.transports = ['zz-marker', 'usb', 'nfc', 'usb', 'x'.repeat(32)];
      const res = await ctx.browser<{ transports: string[] }>(
        session,
        'POST',
        '/auth/passkey/register',
        { body: { response } },
      );
      expect(res.status).toBe(201);
      expect(res.body.transports).toEqual(['usb', 'nfc']);
      const listed = await ctx.browser<{ passkeys: { transports: string[] }[] }>(
        session,
        'GET',
        '/auth/passkeys',
      );
      expect(listed.body.passkeys.map((passkey) => passkey.transports)).toEqual([['usb', 'nfc']]);
    });
  });

  under.describe('passkey verifications cannot be used up by others', () => {
    let ctx: AccountsTestApp;
    beforeAll(async () => {
      ctx = await under.app({ env: { TRUST_PROXY: 'true' } });
    });
    const usedChallenges = () => ctx.deps.stores.accounts.usedChallengeCount();
    /** From its own address each, so the per-address guessing limit stays out of the way. */
    let address = 0;
    const post = (response: unknown) =>
      ctx.request('POST', '/auth/passkey/authenticate', {
        body: { response },
        headers: { 'x-forwarded-for': `198.51.${address >> 8}.${address++ & 255}` },
      });

    test('junk assertions spend no challenge and add nothing to the used set; real sign-in works', async () => {
      const { session, authenticator } = await ctx.userWithPasskey();
      const victim = await ctx.userWithPasskey();
      // A passkey made for this site but never registered here.
      const stranger = ctx.newAuthenticator();
      await stranger.createCredential(await ctx.registrationOptions(session));
      const before = await usedChallenges();
      for (let i = 0; i < 40; i++) {
        // A passkey this service does not know, over a live challenge.
        const unknown = await stranger.getAssertion(await ctx.authenticationOptions());
        // A known passkey, its signature broken.
        const options = await ctx.authenticationOptions();
        const broken = await authenticator.getAssertion(options);
        const signature = Buffer.from(broken.response.signature, 'base64url');
        signature[signature.length - 1]! ^= 1;
        broken.response.signature = signature.toString('base64url');
        // A real signature, over a challenge bound to someone else's email.
        const misbound = await authenticator.getAssertion(
          await ctx.authenticationOptions(victim.session.user.email),
        );
        for (const junk of [unknown, broken, misbound]) {
          const res = await post(junk);
          expect(res.status).toBe(401);
        }
        // The broken one's challenge is still good for the genuine signature over it.
        if (i === 0)
          expect((await post(await authenticator.getAssertion(options))).status).toBe(200);
      }
      expect(await usedChallenges()).toBe(before + 1);
      const signedIn = await ctx.authenticate(authenticator, {}, session.user.email);
      expect(signedIn.status).toBe(200);
      expect((await post(signedIn.response)).status).toBe(401);
      expect(await usedChallenges()).toBe(before + 2);
    });

    test(`one account holds at most ${USED_CHALLENGES_PER_ACCOUNT} used challenges; others sign in meanwhile`, async () => {
      const busy = await ctx.userWithPasskey();
      const other = await ctx.userWithPasskey();
      ctx.clock.advance(5 * MINUTE_MS);
      for (let i = 0; i < USED_CHALLENGES_PER_ACCOUNT; i++) {
        const res = await post(
          await busy.authenticator.getAssertion(await ctx.authenticationOptions()),
        );
        expect(res.status).toBe(200);
        ctx.clock.advance(1000);
      }
      const before = await usedChallenges();
      const refused = await post(
        await busy.authenticator.getAssertion(await ctx.authenticationOptions()),
      );
      expect([refused.status, refused.body]).toEqual([429, problemOf(429)]);
      // The oldest of its challenges expires 5 minutes after it was issued: 240 s from now.
      expect(refused.headers.get('retry-after')).toBe('240');
      expect(await usedChallenges()).toBe(before);
      const fine = await post(
        await other.authenticator.getAssertion(await ctx.authenticationOptions()),
      );
      expect(fine.status).toBe(200);
      ctx.clock.advance(240_000);
      const again = await post(
        await busy.authenticator.getAssertion(await ctx.authenticationOptions()),
      );
      expect(again.status).toBe(200);
    });
  });
}
