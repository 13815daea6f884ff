import { beforeAll, expect, test } from 'bun:test';
import { type AccountsTestApp, storesUnderTest } from './stores';
import { controllableHasher, PASSWORD, settle } from './support';

const LOOPS = 8;
const ROUNDS = 12;

for (const under of storesUnderTest()) {
  under.describe('the hasher is shared fairly between callers', () => {
    // Two slots and four waiting, whatever the machine's core count; the
    // limits per account and address lifted (UNBOUNDED), so the hammering
    // reaches the hasher and only its sharing is under test. The test
    // finishes each hash itself (`release`): no timing decides the outcome.
    const stub = controllableHasher();
    let ctx: AccountsTestApp;
    beforeAll(async () => {
      ctx = await under.app({
        env: { HASH_CONCURRENCY: '2', HASH_QUEUE: '4', TRUST_PROXY: 'true' },
        hasher: stub.hasher,
      });
    });
    const signInFrom = (ip: string, email: string) =>
      ctx.request('POST', '/auth/sign-in', {
        body: { email, password: PASSWORD },
        headers: { 'x-forwarded-for': ip },
      });

    test('one account signing in from 8 loops at once: another account, every 0.5 s, gets 200 every time', async () => {
      stub.state.auto = true;
      await ctx.signUp('hammer@example.com');
      await ctx.signUp('victim@example.com');
      stub.state.auto = false;
      const hasher = ctx.deps.accounts.hasher;

      // Each loop sends its next sign-in as soon as the last is answered; a
      // refused one is sent again at the next hash finished (a real client
      // would retry at once, which only spins faster).
      let stopped = false;
      let tick = Promise.withResolvers<void>();
      const nextTick = () => {
        tick.resolve();
        tick = Promise.withResolvers<void>();
      };
      const hammered: number[] = [];
      const hammer = async () => {
        while (!stopped) {
          const { status } = await signInFrom('198.51.100.7', 'hammer@example.com');
          hammered.push(status);
          // Not once stopped: a 503 answered after the last tick would wait for another forever.
          if (status === 503 && !stopped) await tick.promise;
        }
      };
      const loops = Array.from({ length: LOOPS }, hammer);

      const victim: (number | string)[] = [];
      try {
        // Every slot taken, and the loops past what they may hold answered.
        await settle(() => hasher.running === 2 && hammered.length >= LOOPS - 6);
        for (let round = 0; round < ROUNDS; round++) {
          ctx.clock.advance(500);
          let answered: number | string | undefined;
          const asked = signInFrom('198.51.100.8', 'victim@example.com').then((res) => {
            // A refusal shows its body, to tell the hasher's 503 from any other.
            answered = res.status === 200 ? 200 : `${res.status} ${res.text}`;
          });
          await settle(() => answered !== undefined || hasher.waiting > 0);
          // Hashes finish one at a time, until the victim's sign-in is answered.
          for (let i = 0; i < 20 && answered === undefined; i++) {
            stub.release();
            nextTick();
            await settle(() => answered !== undefined || stub.waiting >= 2);
          }
          await asked;
          victim.push(answered ?? 'never answered');
          await settle(() => hasher.running === 2);
        }
      } finally {
        stopped = true;
        stub.state.auto = true;
        for (let i = 0; i < 20; i++) stub.release();
        nextTick();
        await Promise.all(loops);
      }

      expect(victim).toEqual(Array(ROUNDS).fill(200));
      // The hammering was real: it got through, and past its share it was refused at once.
      expect(hammered.filter((status) => status === 200).length).toBeGreaterThan(0);
      expect(hammered.filter((status) => status === 503).length).toBeGreaterThan(0);
      expect(new Set(hammered)).toEqual(new Set([200, 503]));
      // On PostgreSQL each of the ~100 sign-ins waits on the database's round trips.
    }, 60_000);
  });
}
