import { describe, expect, test } from 'bun:test';
import { Elysia } from 'elysia';
import { z } from 'zod';
import { IDEMPOTENCY_TTL_MS } from '@/api/idempotency';
import { idempotencyKeys } from '@/db/schema';
import { createTestApp, problemOf } from '../support/harness';

function probeContext() {
  let created = 0;
  let release: (() => void) | undefined;
  const probes = () =>
    new Elysia()
      .post(
        '/listings/probe',
        ({ body, set }) => {
          created += 1;
          set.status = 201;
          set.headers.location = `/probe/${created}`;
          return { created, name: body.name };
        },
        { body: z.object({ name: z.string() }) },
      )
      .post('/listings/slow', async () => {
        await new Promise<void>((resolve) => {
          release = resolve;
        });
        return { ok: true };
      })
      .post('/listings/fails', () => {
        created += 1;
        throw new Error('boom');
      });
  const ctx = createTestApp({ extraRoutes: probes });
  return { ...ctx, created: () => created, release: () => release?.() };
}

const withKey = (key: string, body: unknown, token?: string) => ({
  body,
  token,
  headers: { 'idempotency-key': key },
});

describe('Idempotency-Key on POST', () => {
  test('a retry with the same key and body replays the first response', async () => {
    const ctx = probeContext();
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
    const ctx = probeContext();
    await ctx.request('POST', '/listings/probe', withKey('k-2', { name: 'a' }));
    const other = await ctx.request('POST', '/listings/probe', withKey('k-2', { name: 'b' }));
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
    const ctx = probeContext();
    const a = await ctx.tokenFor('a', 'employee');
    const b = await ctx.tokenFor('b', 'employee');
    await ctx.request('POST', '/listings/probe', withKey('shared', { name: 'x' }, a));
    const other = await ctx.request('POST', '/listings/probe', withKey('shared', { name: 'x' }, b));
    expect(other.headers.get('idempotent-replayed')).toBeNull();
    expect(ctx.created()).toBe(2);
  });

  test('a retry while the first is in flight → 409', async () => {
    const ctx = probeContext();
    const first = ctx.request('POST', '/listings/slow', withKey('k-3', {}));
    await Bun.sleep(5);
    const second = await ctx.request('POST', '/listings/slow', withKey('k-3', {}));
    expect(second.status).toBe(409);
    ctx.release();
    expect((await first).status).toBe(200);
  });

  test('a 500 is not stored: the retry runs again', async () => {
    const ctx = probeContext();
    expect((await ctx.request('POST', '/listings/fails', withKey('k-4', {}))).status).toBe(500);
    expect((await ctx.request('POST', '/listings/fails', withKey('k-4', {}))).status).toBe(500);
    expect(ctx.created()).toBe(2);
  });

  test('keys expire after 24 hours', async () => {
    const ctx = probeContext();
    await ctx.request('POST', '/listings/probe', withKey('k-5', { name: 'a' }));
    ctx.clock.advance(IDEMPOTENCY_TTL_MS + 1000);
    const later = await ctx.request('POST', '/listings/probe', withKey('k-5', { name: 'a' }));
    expect(later.headers.get('idempotent-replayed')).toBeNull();
    expect(ctx.created()).toBe(2);
  });

  test('a malformed key → 400; no key → no record', async () => {
    const ctx = probeContext();
    const bad = await ctx.request(
      'POST',
      '/listings/probe',
      withKey('x'.repeat(256), { name: 'a' }),
    );
    expect(bad.status).toBe(400);
    await ctx.request('POST', '/listings/probe', { body: { name: 'a' } });
    expect(ctx.db.select().from(idempotencyKeys).all()).toHaveLength(0);
  });
});
