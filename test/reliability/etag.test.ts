import { describe, expect, test } from 'bun:test';
import type { Property } from '@/listings/properties/schemas';
import { listingsContext, postProperty, rowsOf } from '../listings/support';
import { problemOf } from '../support/harness';

const ctx = await listingsContext();
const MISSING = '01900000-0000-7000-8000-000000000000';

await ctx.request('PUT', '/listings/neighbourhoods/sol', {
  body: { cityId: 'madrid', name: 'Sol' },
  token: ctx.employee,
});

/** As an employee: archived properties are read here too, and they are not shown without a token. */
async function get(id: string, headers: Record<string, string> = {}) {
  return ctx.request<Property>('GET', `/listings/properties/${id}`, {
    headers,
    token: ctx.employee,
  });
}

async function etagOf(id: string): Promise<string> {
  const res = await get(id);
  expect(res.status).toBe(200);
  return res.headers.get('etag')!;
}

/** Everything stored about a property: its row and its units. */
const snapshot = async (id: string) => ({
  property: await rowsOf(ctx, 'SELECT * FROM properties WHERE id = ?', id),
  units: await rowsOf(ctx, 'SELECT * FROM units WHERE property_id = ? ORDER BY id', id),
});

/** Another editor's write: the ETag read before it goes stale. */
async function editElsewhere(id: string) {
  ctx.clock.advance(1000);
  const res = await ctx.request('PUT', `/listings/properties/${id}/information`, {
    body: { isVisitable: true, yearOfConstruction: 1999 },
    token: ctx.employee,
  });
  expect(res.status).toBe(204);
}

/** A unit write: it rewrites the property's counters. */
async function addUnit(id: string) {
  const res = await ctx.request('POST', `/listings/properties/${id}/units`, {
    body: { rentable: true },
    token: ctx.employee,
  });
  expect(res.status).toBe(201);
}

interface Operation {
  name: string;
  method: string;
  suffix: string;
  body?: unknown;
  /** Brings a fresh property into the state the operation applies to. */
  prepare?: (id: string) => Promise<void>;
  /** What the successful write changed, seen through GET. */
  changed: (after: Property) => boolean;
}

const OPERATIONS: Operation[] = [
  {
    name: 'DELETE (archive)',
    method: 'DELETE',
    suffix: '',
    body: { reasonToUnpublish: 'sold' },
    prepare: addUnit,
    changed: (p) => p.archived && p.totalUnits === 3,
  },
  {
    name: 'POST unarchive',
    method: 'POST',
    suffix: '/unarchive',
    prepare: async (id) => {
      await ctx.request('DELETE', `/listings/properties/${id}`, { token: ctx.employee });
    },
    changed: (p) => !p.archived,
  },
  {
    name: 'PUT convert',
    method: 'PUT',
    suffix: '/convert',
    body: { type: 'studio' },
    changed: (p) => p.type === 'studio',
  },
  {
    name: 'PUT location',
    method: 'PUT',
    suffix: '/location',
    body: {
      addressLine1: 'Rue de Rivoli 1',
      city: 'Paris',
      cityId: 'paris',
      postalCode: '75001',
      latitude: 48.86,
      longitude: 2.35,
    },
    changed: (p) => p.location.cityId === 'paris' && p.location.country === 'FR',
  },
  {
    name: 'PUT neighbourhood',
    method: 'PUT',
    suffix: '/neighbourhood',
    body: { neighbourhoodId: 'sol' },
    changed: (p) => p.location.neighbourhoodId === 'sol',
  },
  {
    name: 'PUT owner',
    method: 'PUT',
    suffix: '/owner',
    body: { ownerId: 'owner-9' },
    changed: (p) => p.ownerId === 'owner-9',
  },
  {
    name: 'PUT information',
    method: 'PUT',
    suffix: '/information',
    body: { isVisitable: false, yearOfConstruction: 1901 },
    changed: (p) => p.yearOfConstruction === 1901,
  },
];

async function prepared(operation: Operation): Promise<string> {
  const id = await postProperty(ctx, { totalUnits: 2 });
  await operation.prepare?.(id);
  return id;
}

const send = (operation: Operation, id: string, headers: Record<string, string> = {}) =>
  ctx.request(operation.method, `/listings/properties/${id}${operation.suffix}`, {
    body: operation.body,
    token: ctx.employee,
    headers,
  });

describe('GET /listings/properties/{id}: ETag and If-None-Match', () => {
  describe('happy', () => {
    test('a strong ETag, the same on every read of the same state', async () => {
      const id = await postProperty(ctx);
      const first = await get(id);
      expect(first.headers.get('etag')).toMatch(/^"[0-9a-z]+-[0-9a-z]+"$/);
      expect((await get(id)).headers.get('etag')).toBe(first.headers.get('etag'));
      for (const token of [ctx.customer, undefined]) {
        const other = await ctx.request('GET', `/listings/properties/${id}`, { token });
        expect(other.headers.get('etag')).toBe(first.headers.get('etag'));
      }
    });

    test('every write that changes the representation changes it, unit writes too', async () => {
      const id = await postProperty(ctx, { totalUnits: 2 });
      const seen = new Set([await etagOf(id)]);
      await addUnit(id);
      seen.add(await etagOf(id));
      await editElsewhere(id);
      seen.add(await etagOf(id));
      expect(seen.size).toBe(3);
    });

    test('304 without a body for a current tag, weak form, list or *', async () => {
      const id = await postProperty(ctx);
      const etag = await etagOf(id);
      for (const header of [etag, `W/${etag}`, `"other", ${etag}`, '*']) {
        const res = await get(id, { 'if-none-match': header });
        expect([header, res.status, res.text]).toEqual([header, 304, '']);
        expect(res.headers.get('etag')).toBe(etag);
      }
    });

    test('200 with the body for a stale tag', async () => {
      const id = await postProperty(ctx);
      const stale = await etagOf(id);
      await editElsewhere(id);
      const res = await get(id, { 'if-none-match': stale });
      expect(res.status).toBe(200);
      expect(res.body.isVisitable).toBe(true);
      expect(res.headers.get('etag')).not.toBe(stale);
    });
  });

  describe('error', () => {
    test('404 comes before If-None-Match, even with *', async () => {
      const res = await get(MISSING, { 'if-none-match': '*' });
      expect(res.status).toBe(404);
      expect(res.body as unknown).toEqual(problemOf(404));
    });

    test("a customer gets 404 for another owner's property whatever tag it sends", async () => {
      const id = await postProperty(ctx);
      const etag = await etagOf(id);
      const res = await ctx.request('GET', `/listings/properties/${id}`, {
        token: ctx.otherCustomer,
        headers: { 'if-none-match': etag },
      });
      expect(res.status).toBe(404);
    });
  });
});

for (const operation of OPERATIONS) {
  describe(`${operation.name} /listings/properties/{id}${operation.suffix}: If-Match`, () => {
    describe('happy', () => {
      test('204 with the current ETag, and the ETag moves on', async () => {
        const id = await prepared(operation);
        const etag = await etagOf(id);
        const res = await send(operation, id, { 'if-match': etag });
        expect(res.status).toBe(204);
        const after = await get(id);
        expect(operation.changed(after.body)).toBe(true);
        expect(after.headers.get('etag')).not.toBe(etag);
      });

      test('204 with * or a list holding the current ETag', async () => {
        for (const header of ['*', '"older", CURRENT']) {
          const id = await prepared(operation);
          const current = await etagOf(id);
          const res = await send(operation, id, {
            'if-match': header.replace('CURRENT', current),
          });
          expect([header, res.status]).toEqual([header, 204]);
          expect(operation.changed((await get(id)).body)).toBe(true);
        }
      });

      test('204 without If-Match: unconditional, as before', async () => {
        const id = await prepared(operation);
        await editElsewhere(id);
        expect((await send(operation, id)).status).toBe(204);
      });
    });

    describe('error', () => {
      test('412 for a stale ETag, and nothing is written', async () => {
        const id = await prepared(operation);
        const stale = await etagOf(id);
        await editElsewhere(id);
        const before = await snapshot(id);
        const current = await etagOf(id);
        ctx.clock.advance(1000);
        const res = await send(operation, id, { 'if-match': stale });
        expect(res.status).toBe(412);
        expect(res.body).toEqual(problemOf(412));
        expect(res.body).toMatchObject({ title: 'Precondition Failed' });
        expect(await snapshot(id)).toEqual(before);
        expect(await etagOf(id)).toBe(current);
      });

      test('412 for a weak or unknown tag (strong comparison)', async () => {
        const id = await prepared(operation);
        const etag = await etagOf(id);
        for (const header of [`W/${etag}`, '"nope"', 'garbage']) {
          const res = await send(operation, id, { 'if-match': header });
          expect([header, res.status]).toEqual([header, 412]);
        }
        expect(await etagOf(id)).toBe(etag);
      });

      test('two editors holding the same ETag: the second gets 412', async () => {
        const id = await prepared(operation);
        const etag = await etagOf(id);
        const [first, second] = await Promise.all([
          send(operation, id, { 'if-match': etag }),
          ctx.request('PUT', `/listings/properties/${id}/information`, {
            body: { isVisitable: true, yearOfConstruction: 2001 },
            token: ctx.employee,
            headers: { 'if-match': etag },
          }),
        ]);
        expect([first.status, second.status].sort()).toEqual([204, 412]);
      });

      test('404 for a missing property comes before the precondition', async () => {
        const res = await ctx.request(
          operation.method,
          `/listings/properties/${MISSING}${operation.suffix}`,
          { body: operation.body, token: ctx.employee, headers: { 'if-match': '"x"' } },
        );
        expect(res.status).toBe(404);
      });

      test('400 for an If-Match header over 1 KiB', async () => {
        const id = await prepared(operation);
        const res = await send(operation, id, { 'if-match': `"${'a'.repeat(1100)}"` });
        expect(res.status).toBe(400);
        expect(res.body).toEqual(problemOf(400));
      });
    });

    describe('auth', () => {
      test('401 without a token comes before the precondition', async () => {
        const id = await prepared(operation);
        const res = await ctx.request(
          operation.method,
          `/listings/properties/${id}${operation.suffix}`,
          { body: operation.body, headers: { 'if-match': '"stale"' } },
        );
        expect(res.status).toBe(401);
      });
    });
  });
}

test('a stale If-Match answers 412 before the 409 of an archived property', async () => {
  const id = await postProperty(ctx);
  const stale = await etagOf(id);
  await ctx.request('DELETE', `/listings/properties/${id}`, { token: ctx.employee });
  const res = await ctx.request('PUT', `/listings/properties/${id}/convert`, {
    body: { type: 'studio' },
    token: ctx.employee,
    headers: { 'if-match': stale },
  });
  expect(res.status).toBe(412);
  const current = await etagOf(id);
  const conflict = await ctx.request('PUT', `/listings/properties/${id}/convert`, {
    body: { type: 'studio' },
    token: ctx.employee,
    headers: { 'if-match': current },
  });
  expect(conflict.status).toBe(409);
});

test('/docs/json documents If-Match, If-None-Match, ETag, 304 and 412', async () => {
  const res = await ctx.request<{
    paths: Record<string, Record<string, { parameters?: { name: string; in: string }[] } & Json>>;
  }>('GET', '/docs/json');
  const read = res.body.paths['/listings/properties/{id}']!.get!;
  expect(read.parameters).toContainEqual(
    expect.objectContaining({ name: 'If-None-Match', in: 'header' }),
  );
  expect(read.responses['200'].headers.ETag).toBeDefined();
  expect(read.responses['304'].headers.ETag).toBeDefined();
  for (const operation of OPERATIONS) {
    const path = `/listings/properties/{id}${operation.suffix}`;
    const doc = res.body.paths[path]![operation.method.toLowerCase()]!;
    expect([path, doc.parameters?.some((p) => p.name === 'If-Match' && p.in === 'header')]).toEqual(
      [path, true],
    );
    expect([path, '412' in doc.responses]).toEqual([path, true]);
  }
});

// biome-ignore lint/suspicious/noExplicitAny: a loose view of the generated document
type Json = { responses: Record<string, any> };
