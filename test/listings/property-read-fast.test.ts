import { Database } from 'bun:sqlite';
import { describe, expect, test } from 'bun:test';
import { PropertyRead, readProperty } from '@/listings/properties/read-cache';
import type { Property } from '@/listings/properties/schemas';
import { createTestApp } from '../support/harness';
import { expectSameAnswers, type LaneCase, lanesOf, snapshot } from '../support/lanes';
import { READ_CACHE, sqliteOnly } from '../support/postgres-mode';
import { addProperty, listingsContext, OTHER_OWNER, postProperty } from './support';

const ctx = await listingsContext();
const id = await postProperty(ctx);
const MISSING = '01900000-0000-7000-8000-000000000000';

const read = async (path = `/listings/properties/${id}`, token?: string) =>
  ctx.request<Property>('GET', path, { token });

describe('GET /listings/properties/{id}: fast lane', () => {
  test('answers 200 and 304 in the fast lane, and the errors, cookies and odd requests in the full pipeline, byte for byte the same', async () => {
    const { etag } = (await snapshot(ctx.fetch, `/listings/properties/${id}`, {})).headers;
    expect(etag).toMatch(/^"[0-9a-z]+-[0-9a-z]+"$/);
    const bearer = (token: string) => ({ authorization: `Bearer ${token}` });
    const cases: LaneCase[] = [
      [`/listings/properties/${id}`, {}],
      [`/listings/properties/${id}`, bearer(ctx.employee)],
      [`/listings/properties/${id}`, bearer(ctx.customer)],
      [`/listings/properties/${id}`, bearer(ctx.otherCustomer)],
      [`/listings/properties/${id}`, { 'if-none-match': etag! }],
      [`/listings/properties/${id}`, { 'if-none-match': `"x", W/${etag}` }],
      [`/listings/properties/${id}`, { 'if-none-match': '*' }],
      [`/listings/properties/${id}`, { 'if-none-match': '"stale"' }],
      [`/listings/properties/${id}`, { 'if-none-match': `"${'a'.repeat(1100)}"` }],
      [`/listings/properties/${id}`, { authorization: 'Bearer not-a-token' }],
      [`/listings/properties/${id}`, { authorization: 'Basic abc' }],
      [`/listings/properties/${id}?x=1`, {}],
      [`/listings/properties/${MISSING}`, {}],
      [`/listings/properties/${MISSING}`, bearer(ctx.employee)],
      ['/listings/properties/%30', {}],
      [`/listings/properties/${id}`, { cookie: 'session=unknown' }],
    ];
    const answers = await expectSameAnswers(ctx, cases);
    expect(lanesOf(answers)).toEqual([
      ...['200 fast', '200 fast', '200 fast', '404 full'],
      ...['304 fast', '304 fast', '304 fast', '200 fast', '400 full'],
      ...['401 full', '401 full', '200 full', '404 full', '404 full', '404 full', '401 full'],
    ]);
  });

  sqliteOnly.test(
    READ_CACHE,
    'a cached read holds nothing of its answers: the headers sent the first and the next times are the same, the ETag set on the shared template',
    async () => {
      const fresh = await postProperty(ctx);
      const path = `/listings/properties/${fresh}`;
      const first = await snapshot(ctx.fetch, path, {});
      const held = readProperty(
        ctx.deps.stores.listings,
        ctx.deps.readCache,
        fresh,
      ) as PropertyRead;
      const bytes = held.packed.slice();
      const second = await snapshot(ctx.fetch, path, {});
      expect(held.packed).toEqual(bytes);
      expect(second).toEqual(first);
      const etag = first.headers.etag!;
      expect(etag).toBe(held.etag);
      const notModified = [
        await snapshot(ctx.fetch, path, { 'if-none-match': etag }),
        await snapshot(ctx.fetch, path, { 'if-none-match': etag }),
      ];
      expect(notModified[0]!.status).toBe(304);
      expect(notModified[0]!.headers.etag).toBe(etag);
      expect(notModified[1]).toEqual(notModified[0]!);
      const other = await postProperty(ctx);
      const otherEtag = (await snapshot(ctx.fetch, `/listings/properties/${other}`, {})).headers
        .etag;
      expect(otherEtag).not.toBe(etag);
      expect((await snapshot(ctx.fetch, path, {})).headers.etag).toBe(etag);
    },
  );

  sqliteOnly.test(
    READ_CACHE,
    "a cached read decodes the owner id only for a caller whose scope needs it: a customer's, not an employee's",
    async () => {
      const fresh = await postProperty(ctx);
      const path = `/listings/properties/${fresh}`;
      await read(path, ctx.employee);
      const owner = Object.getOwnPropertyDescriptor(PropertyRead.prototype, 'ownerId')!;
      let decoded = 0;
      Object.defineProperty(PropertyRead.prototype, 'ownerId', {
        ...owner,
        get(this: PropertyRead) {
          decoded++;
          return owner.get!.call(this);
        },
      });
      try {
        const byEmployee = await snapshot(ctx.fetch, path, {
          authorization: `Bearer ${ctx.employee}`,
        });
        expect(byEmployee.status).toBe(200);
        expect(decoded).toBe(0);
        const byCustomer = await snapshot(ctx.fetch, path, {
          authorization: `Bearer ${ctx.customer}`,
        });
        expect(byCustomer.status).toBe(200);
        expect(decoded).toBe(1);
        expect(byCustomer.body).toBe(byEmployee.body);
      } finally {
        Object.defineProperty(PropertyRead.prototype, 'ownerId', owner);
      }
    },
  );

  sqliteOnly.test(
    READ_CACHE,
    "an employee's cached read decodes nothing and makes one view of the bytes held (the body): the ETag is read in place",
    async () => {
      const fresh = await postProperty(ctx);
      const path = `/listings/properties/${fresh}`;
      const headers = { authorization: `Bearer ${ctx.employee}` };
      const first = await snapshot(ctx.fetch, path, headers);
      const { subarray } = Uint8Array.prototype;
      const { decode } = TextDecoder.prototype;
      let views = 0;
      let decodes = 0;
      Uint8Array.prototype.subarray = function (this: Uint8Array, ...args) {
        views++;
        return subarray.apply(this, args);
      } as typeof subarray;
      TextDecoder.prototype.decode = function (this: TextDecoder, ...args) {
        decodes++;
        return decode.apply(this, args);
      } as typeof decode;
      try {
        const response = await ctx.fetch(new Request(`http://localhost${path}`, { headers }));
        expect([views, decodes]).toEqual([1, 0]);
        expect(response.headers.get('etag')).toBe(first.headers.etag!);
        expect(await response.text()).toBe(first.body);
      } finally {
        Uint8Array.prototype.subarray = subarray;
        TextDecoder.prototype.decode = decode;
      }
    },
  );

  test('with CORS on, a request naming an Origin is answered by the full pipeline', async () => {
    const cors = createTestApp({ env: { CORS_ORIGINS: 'https://app.example' } });
    const corsId = await addProperty(cors);
    const answers = await expectSameAnswers(cors, [
      [`/listings/properties/${corsId}`, { origin: 'https://app.example' }],
      [`/listings/properties/${corsId}`, {}],
    ]);
    expect(lanesOf(answers)).toEqual(['200 full', '200 fast']);
    expect(answers[0]!.headers['access-control-allow-origin']).toBe('https://app.example');
  });

  test('an owner id of any text (not ASCII, 255 characters) is held and read back whole: the owner sees the property, the body is the one sent at first', async () => {
    for (const ownerId of ['propriétaire-ł-º-🏠', 'ż'.repeat(255)]) {
      const owned = await postProperty(ctx, { ownerId });
      const owner = await ctx.tokenFor(ownerId, 'customer');
      const first = await read(`/listings/properties/${owned}`, owner);
      const again = await read(`/listings/properties/${owned}`, owner);
      expect([first.status, again.status]).toEqual([200, 200]);
      expect(again.text).toBe(first.text);
      expect(again.body.ownerId).toBe(ownerId);
      expect(again.headers.get('etag')).toBe(first.headers.get('etag'));
      expect((await read(`/listings/properties/${owned}`, ctx.otherCustomer)).status).toBe(404);
    }
  });

  test('the expected statuses come out of those cases', async () => {
    expect((await read()).status).toBe(200);
    expect((await read(undefined, ctx.customer)).status).toBe(200);
    expect((await read(undefined, ctx.otherCustomer)).status).toBe(404);
    expect((await read(`/listings/properties/${MISSING}`)).status).toBe(404);
    expect((await read(undefined, 'not-a-token')).status).toBe(401);
  });

  test('carries the request id given and the security headers', async () => {
    const res = await ctx.request('GET', `/listings/properties/${id}`, {
      headers: { 'x-request-id': 'trace-42' },
    });
    expect(res.headers.get('x-request-id')).toBe('trace-42');
    expect(res.headers.get('x-content-type-options')).toBe('nosniff');
    expect(res.headers.get('x-frame-options')).toBe('DENY');
    const fresh = await ctx.request('GET', `/listings/properties/${id}`, {
      headers: { 'x-request-id': 'bad id with spaces' },
    });
    expect(fresh.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
  });
});

describe('GET /listings/properties/{id}: read cache', () => {
  test('a write through the service shows at once, with a new ETag', async () => {
    const before = await read();
    const put = await ctx.request('PUT', `/listings/properties/${id}/information`, {
      body: { isVisitable: true, yearOfConstruction: 1931 },
      token: ctx.employee,
    });
    expect(put.status).toBe(204);
    const after = await read();
    expect(after.body.yearOfConstruction).toBe(1931);
    expect(after.headers.get('etag')).not.toBe(before.headers.get('etag'));
  });

  sqliteOnly.test(
    READ_CACHE,
    'a write through the same connection outside the routes (a worker) shows at once',
    async () => {
      await read();
      ctx.db.$client.run('UPDATE properties SET verified = 1 - verified WHERE id = ?', [id]);
      const first = (await read()).body.verified;
      ctx.db.$client.run('UPDATE properties SET verified = 1 - verified WHERE id = ?', [id]);
      expect((await read()).body.verified).toBe(!first);
    },
  );

  sqliteOnly.test(READ_CACHE, 'a commit by another connection shows at once', async () => {
    const other = new Database(ctx.config.databasePath);
    try {
      const before = (await read()).body.rentableUnits;
      other.run('UPDATE properties SET rentable_units = rentable_units + 7 WHERE id = ?', [id]);
      expect((await read()).body.rentableUnits).toBe(before + 7);
    } finally {
      other.close();
    }
  });

  test('another owner never gets a cached read', async () => {
    const theirs = await postProperty(ctx, { ownerId: OTHER_OWNER }, ctx.otherCustomer);
    expect((await read(`/listings/properties/${theirs}`, ctx.otherCustomer)).status).toBe(200);
    expect((await read(`/listings/properties/${theirs}`, ctx.customer)).status).toBe(404);
  });
});
