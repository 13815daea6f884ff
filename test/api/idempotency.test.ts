import { expect, test } from 'bun:test';
import { Elysia } from 'elysia';
import { z } from 'zod';
import { IDEMPOTENCY_TTL_MS } from '@/api/idempotency';
import type { ExtraRoutes } from '@/app';
import { type StoreUnderTest, storesUnderTest } from '../content/stores';
import { problemOf } from '../support/harness';

async function probeContext(store: StoreUnderTest, env: Record<string, string> = {}) {
  let created = 0;
  let release: (() => void) | undefined;
  let entered: () => void = () => {};
  /** Settles once the slow handler runs: the request has claimed its key by then. */
  const slowEntered = new Promise<void>((resolve) => {
    entered = resolve;
  });
  const probes: ExtraRoutes = ({ auth, idempotency }) =>
    new Elysia()
      .use(auth)
      .use(idempotency)
      .post(
        '/listings/probe',
        ({ body, set }) => {
          created += 1;
          set.status = 201;
          set.headers.location = `/probe/${created}`;
          return { created, name: body.name };
        },
        { auth: 'any', idempotent: true, body: z.object({ name: z.string() }) },
      )
      .post(
        '/listings/slow',
        async () => {
          await new Promise<void>((resolve) => {
            release = resolve;
            entered();
          });
          return { ok: true };
        },
        { auth: 'any', idempotent: true },
      )
      .post(
        '/listings/fails',
        () => {
          created += 1;
          throw new Error('boom');
        },
        { auth: 'any', idempotent: true },
      )
      .post(
        '/listings/public-probe',
        () => {
          created += 1;
          return { created };
        },
        { optionalAuth: true, idempotent: true },
      )
      .post(
        '/listings/undeclared',
        () => {
          created += 1;
          return { created };
        },
        { auth: 'any' },
      );
  const ctx = await store.app({ env, extraRoutes: probes });
  return { ...ctx, created: () => created, release: () => release?.(), slowEntered };
}

const withKey = (key: string, body: unknown, token?: string) => ({
  body,
  token,
  headers: { 'idempotency-key': key },
});

for (const store of storesUnderTest()) {
  store.describe('Idempotency-Key on POST', () => {
    test('a retry with the same key and body replays the first response', async () => {
      const ctx = await probeContext(store);
      const token = await ctx.tokenFor('u1', 'employee');
      const first = await ctx.request(
        'POST',
        '/listings/probe',
        withKey('k-1', { name: 'a' }, token),
      );
      const retry = await ctx.request(
        'POST',
        '/listings/probe',
        withKey('k-1', { name: 'a' }, token),
      );
      expect(first.status).toBe(201);
      expect(retry.status).toBe(201);
      expect(retry.body).toEqual(first.body);
      expect(retry.headers.get('location')).toBe(first.headers.get('location'));
      expect(retry.headers.get('idempotent-replayed')).toBe('true');
      expect(ctx.created()).toBe(1);
    });

    test('the same key with another body → 422, nothing created', async () => {
      const ctx = await probeContext(store);
      const token = await ctx.tokenFor('u2');
      await ctx.request('POST', '/listings/probe', withKey('k-2', { name: 'a' }, token));
      const other = await ctx.request(
        'POST',
        '/listings/probe',
        withKey('k-2', { name: 'b' }, token),
      );
      expect(other.status).toBe(422);
      expect(other.body).toEqual(
        problemOf(422, undefined, {
          'Idempotency-Key': {
            keyReused: 'The Idempotency-Key was already used with a different request',
          },
        }),
      );
      expect(ctx.created()).toBe(1);
    });

    test('keys are scoped to the caller', async () => {
      const ctx = await probeContext(store);
      const a = await ctx.tokenFor('a', 'employee');
      const b = await ctx.tokenFor('b', 'employee');
      await ctx.request('POST', '/listings/probe', withKey('shared', { name: 'x' }, a));
      const other = await ctx.request(
        'POST',
        '/listings/probe',
        withKey('shared', { name: 'x' }, b),
      );
      expect(other.headers.get('idempotent-replayed')).toBeNull();
      expect(ctx.created()).toBe(2);
    });

    test('five requests with one key at once: the handler runs once, the others replay or answer 409', async () => {
      const ctx = await probeContext(store);
      const token = await ctx.tokenFor('u-race');
      const answers = await Promise.all(
        Array.from({ length: 5 }, () =>
          ctx.request('POST', '/listings/probe', withKey('k-race', { name: 'a' }, token)),
        ),
      );
      expect(ctx.created()).toBe(1);
      const statuses = answers.map((answer) => answer.status);
      expect(statuses.filter((status) => status === 201).length).toBeGreaterThanOrEqual(1);
      expect(statuses.every((status) => status === 201 || status === 409)).toBe(true);
      for (const answer of answers.filter(({ status }) => status === 201)) {
        expect(answer.body).toEqual({ created: 1, name: 'a' });
      }
    });

    test('a retry while the first is in flight → 409', async () => {
      const ctx = await probeContext(store);
      const token = await ctx.tokenFor('u3');
      const first = ctx.request('POST', '/listings/slow', withKey('k-3', {}, token));
      await ctx.slowEntered;
      const second = await ctx.request('POST', '/listings/slow', withKey('k-3', {}, token));
      expect(second.status).toBe(409);
      expect(second.body).toEqual(
        problemOf(409, 'A request with this Idempotency-Key is still being processed'),
      );
      ctx.release();
      expect((await first).status).toBe(200);
    });

    test('a 500 is not stored: the retry runs again', async () => {
      const ctx = await probeContext(store);
      const token = await ctx.tokenFor('u4');
      const once = () => ctx.request('POST', '/listings/fails', withKey('k-4', {}, token));
      expect((await once()).status).toBe(500);
      expect((await once()).status).toBe(500);
      expect(ctx.created()).toBe(2);
      expect(await ctx.storedKeys()).toHaveLength(0);
    });

    test('keys expire after 24 hours', async () => {
      const ctx = await probeContext(store);
      const token = await ctx.tokenFor('u5', 'customer', 3 * 24 * 3600);
      await ctx.request('POST', '/listings/probe', withKey('k-5', { name: 'a' }, token));
      ctx.clock.advance(IDEMPOTENCY_TTL_MS + 1000);
      const later = await ctx.request(
        'POST',
        '/listings/probe',
        withKey('k-5', { name: 'a' }, token),
      );
      expect(later.headers.get('idempotent-replayed')).toBeNull();
      expect(ctx.created()).toBe(2);
    });

    test('a malformed key → 400; no key → no record', async () => {
      const ctx = await probeContext(store);
      const token = await ctx.tokenFor('u6');
      const bad = await ctx.request(
        'POST',
        '/listings/probe',
        withKey('x'.repeat(256), { name: 'a' }, token),
      );
      expect(bad.status).toBe(400);
      expect(bad.body).toEqual(
        problemOf(400, 'Idempotency-Key must be 1 to 255 printable characters'),
      );
      await ctx.request('POST', '/listings/probe', { body: { name: 'a' }, token });
      expect(await ctx.storedKeys()).toHaveLength(0);
    });
  });

  store.describe('Idempotency-Key: who takes part, and how many keys', () => {
    const rows = (ctx: { storedKeys(): Promise<{ key: string }[]> }) => ctx.storedKeys();

    test('an anonymous request stores nothing: its key is ignored, even a malformed one', async () => {
      const ctx = await probeContext(store);
      const first = await ctx.request('POST', '/listings/public-probe', withKey('anon', {}));
      const again = await ctx.request('POST', '/listings/public-probe', withKey('anon', {}));
      const odd = await ctx.request('POST', '/listings/public-probe', withKey('x'.repeat(300), {}));
      expect([first.status, again.status, odd.status]).toEqual([200, 200, 200]);
      expect(again.headers.get('idempotent-replayed')).toBeNull();
      expect(again.body).toEqual({ created: 2 });
      expect(ctx.created()).toBe(3);
      expect(await rows(ctx)).toHaveLength(0);
    });

    test('a 401, a 404 and a route without the declaration store nothing', async () => {
      const ctx = await probeContext(store);
      const token = await ctx.tokenFor('u7');
      const unauthorized = await ctx.request(
        'POST',
        '/listings/probe',
        withKey('k-401', { name: 'a' }, 'not.a.token'),
      );
      expect(unauthorized.status).toBe(401);
      expect(unauthorized.body).toEqual(problemOf(401));
      const missing = await ctx.request('POST', '/listings/nowhere', withKey('k-404', {}, token));
      expect(missing.status).toBe(404);
      expect(missing.body).toEqual(problemOf(404));
      const plain = () =>
        ctx.request('POST', '/listings/undeclared', withKey('k-plain', {}, token));
      expect((await plain()).body).toEqual({ created: 1 });
      expect((await plain()).body).toEqual({ created: 2 });
      expect(await rows(ctx)).toHaveLength(0);
    });

    test('keys follow the caller, not the token: a new token for the same account replays', async () => {
      const ctx = await probeContext(store);
      const first = await ctx.tokenFor('u8', 'customer', 60);
      const second = await ctx.tokenFor('u8', 'customer', 120);
      expect(first).not.toBe(second);
      await ctx.request('POST', '/listings/probe', withKey('k-8', { name: 'a' }, first));
      const retry = await ctx.request(
        'POST',
        '/listings/probe',
        withKey('k-8', { name: 'a' }, second),
      );
      expect(retry.headers.get('idempotent-replayed')).toBe('true');
      expect(ctx.created()).toBe(1);
    });

    test('IDEMPOTENCY_KEYS_PER_CALLER bounds live keys: the oldest of that caller go first', async () => {
      const ctx = await probeContext(store, { IDEMPOTENCY_KEYS_PER_CALLER: '3' });
      const a = await ctx.tokenFor('bounded-a');
      const b = await ctx.tokenFor('bounded-b');
      await ctx.request('POST', '/listings/probe', withKey('b-0', { name: 'b' }, b));
      for (let i = 0; i < 5; i++) {
        const answer = await ctx.request(
          'POST',
          '/listings/probe',
          withKey(`a-${i}`, { name: 'a' }, a),
        );
        expect(answer.status).toBe(201);
      }
      expect((await rows(ctx)).map((row) => row.key).sort()).toEqual(['a-2', 'a-3', 'a-4', 'b-0']);
      const kept = await ctx.request('POST', '/listings/probe', withKey('a-4', { name: 'a' }, a));
      expect(kept.headers.get('idempotent-replayed')).toBe('true');
      const evicted = await ctx.request(
        'POST',
        '/listings/probe',
        withKey('a-0', { name: 'a' }, a),
      );
      expect(evicted.headers.get('idempotent-replayed')).toBeNull();
      expect(evicted.body).toEqual({ created: 7, name: 'a' });
      const other = await ctx.request('POST', '/listings/probe', withKey('b-0', { name: 'b' }, b));
      expect(other.headers.get('idempotent-replayed')).toBe('true');
      expect(await rows(ctx)).toHaveLength(4);
    });
  });
}
