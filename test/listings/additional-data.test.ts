import { beforeAll, describe, expect, test } from 'bun:test';
import { badRequestNaming, problemOf } from '../support/harness';
import { type ListingsTestApp, storesUnderTest } from './stores';
import { OTHER_OWNER, postProperty } from './support';

for (const store of storesUnderTest()) {
  store.describe('additional data store', () => {
    let ctx: ListingsTestApp;
    beforeAll(async () => {
      ctx = await store.app();
    });

    const MISSING = '01900000-0000-7000-8000-000000000000';
    const path = (id: string) => `/listings/properties/${id}/additional-data`;
    const unprocessable = (validationMessages: unknown) => ({
      ...problemOf(422),
      validationMessages,
    });
    const create = (body: unknown, token = ctx.employee) =>
      ctx.request('POST', '/listings/properties/additional-data', { body, token });
    const read = (id: string, token = ctx.employee) => ctx.request('GET', path(id), { token });
    const put = (id: string, body: unknown, token = ctx.employee) =>
      ctx.request('PUT', path(id), { body, token });

    const rich = {
      zeta: 1,
      alpha: { nested: [1, 'two', { three: null }], empty: {} },
      text: 'héllo 👋 — 日本語',
      flag: false,
      mid: 2.5,
    };

    describe('additional data', () => {
      describe('happy', () => {
        test('POST → 201 no body; GET → {id, data} with key order, nesting and unicode intact', async () => {
          const id = await postProperty(ctx);
          const res = await create({ id, data: rich }, ctx.customer);
          expect(res.status).toBe(201);
          expect(res.text).toBe('');
          expect(res.headers.get('location')).toBe(path(id));
          const got = await read(id, ctx.customer);
          expect(got.status).toBe(200);
          expect(got.body).toEqual({ id, data: rich });
          expect(got.text).toBe(JSON.stringify({ id, data: rich }));
        });

        test('PUT creates, then replaces; answers 200 {data}; GET returns what was written', async () => {
          const id = await postProperty(ctx);
          const first = await put(id, { data: rich });
          expect(first.status).toBe(200);
          expect(first.text).toBe(JSON.stringify({ data: rich }));
          const replacement = { b: { deep: { deeper: ['ü'] } }, a: 'x' };
          const second = await put(id, { data: replacement }, ctx.customer);
          expect(second.body).toEqual({ data: replacement });
          const got = await read(id);
          expect(got.text).toBe(JSON.stringify({ id, data: replacement }));
          expect(await ctx.count('property_additional_data')).toBeGreaterThan(0);
        });

        test('an empty object and exactly 64 KiB are accepted', async () => {
          const id = await postProperty(ctx);
          expect((await put(id, { data: {} })).status).toBe(200);
          const filler = 'x'.repeat(64 * 1024 - '{"k":""}'.length);
          expect(JSON.stringify({ k: filler }).length).toBe(64 * 1024);
          expect((await put(id, { data: { k: filler } })).status).toBe(200);
        });

        test('the data stays with an archived property', async () => {
          const id = await postProperty(ctx);
          await put(id, { data: rich });
          await ctx.request('DELETE', `/listings/properties/${id}`, { token: ctx.employee });
          expect((await read(id)).body).toEqual({ id, data: rich });
        });
      });

      describe('error: POST (422)', () => {
        test('recordNotFound for a missing property', async () => {
          const res = await create({ id: MISSING, data: rich });
          expect(res.status).toBe(422);
          expect(res.body).toEqual(
            unprocessable({ id: { recordNotFound: 'No property with this id was found' } }),
          );
        });

        test('recordExists when the property already has data, which stays as it was', async () => {
          const id = await postProperty(ctx);
          await create({ id, data: { first: true } });
          const res = await create({ id, data: { second: true } });
          expect(res.status).toBe(422);
          expect(res.body).toEqual(
            unprocessable({
              id: { recordExists: 'Additional data already exists for this property' },
            }),
          );
          expect((await read(id)).body).toEqual({ id, data: { first: true } });
        });

        test('missing fields, data not an object, unknown fields', async () => {
          const REQUIRED = { isEmpty: "Value is required and can't be empty" };
          expect((await create({})).body).toEqual(unprocessable({ id: REQUIRED, data: REQUIRED }));
          const id = await postProperty(ctx);
          for (const data of [[1, 2], 'text', null, 3]) {
            const res = await create({ id, data });
            expect(res.status).toBe(422);
            expect(res.body).toEqual(
              unprocessable({ data: { invalidType: 'The input must be of type object' } }),
            );
          }
          expect((await create({ id, data: {}, extra: 1 })).body).toEqual(
            unprocessable({ extra: { notAllowed: 'The field is not allowed' } }),
          );
          expect((await read(id)).status).toBe(404);
        });

        test('data over 64 KiB', async () => {
          const id = await postProperty(ctx);
          const res = await create({ id, data: { k: 'x'.repeat(64 * 1024) } });
          expect(res.status).toBe(422);
          expect(res.body).toEqual(
            unprocessable({ data: { tooLarge: 'The data must be at most 65536 bytes of JSON' } }),
          );
          expect((await read(id)).status).toBe(404);
        });
      });

      describe('error: GET and PUT', () => {
        test('GET 404 without data, or without the property', async () => {
          const id = await postProperty(ctx);
          for (const res of [await read(id), await read(MISSING)]) {
            expect(res.status).toBe(404);
            expect(res.body).toEqual(problemOf(404));
          }
        });

        test('PUT 404 for a missing property', async () => {
          const before = await ctx.count('property_additional_data');
          const res = await put(MISSING, { data: rich });
          expect(res.status).toBe(404);
          expect(res.body).toEqual(problemOf(404));
          expect(await ctx.count('property_additional_data')).toBe(before);
        });

        test('PUT 400 for an array, a string, null, a missing data or oversized data; nothing changes', async () => {
          const id = await postProperty(ctx);
          await put(id, { data: rich });
          for (const [body, name] of [
            [{ data: [1] }, 'data'],
            [{ data: 'x' }, 'data'],
            [{ data: null }, 'data'],
            [{}, 'data'],
            [{ data: { k: 'x'.repeat(64 * 1024) } }, 'data'],
            [{ data: {}, id }, 'id'],
          ] as const) {
            const res = await put(id, body);
            expect(res.status).toBe(400);
            expect(res.body).toEqual(badRequestNaming(name));
          }
          expect((await read(id)).body).toEqual({ id, data: rich });
        });
      });

      describe('auth', () => {
        test('401 without a token on each operation', async () => {
          const id = await postProperty(ctx);
          for (const res of [
            await ctx.request('POST', '/listings/properties/additional-data', {
              body: { id, data: {} },
            }),
            await ctx.request('GET', path(id)),
            await ctx.request('PUT', path(id), { body: { data: {} } }),
          ]) {
            expect(res.status).toBe(401);
            expect(res.body).toEqual(problemOf(401));
          }
        });

        test("another owner's property: POST 422 recordNotFound, GET and PUT 404", async () => {
          const theirs = await ctx.makeProperty({ ownerId: OTHER_OWNER });
          const res = await create({ id: theirs, data: {} }, ctx.customer);
          expect(res.body).toEqual(
            unprocessable({ id: { recordNotFound: 'No property with this id was found' } }),
          );
          await put(theirs, { data: { secret: 1 } });
          expect((await read(theirs, ctx.customer)).status).toBe(404);
          expect((await put(theirs, { data: {} }, ctx.customer)).status).toBe(404);
          expect((await read(theirs)).body).toEqual({ id: theirs, data: { secret: 1 } });
        });
      });
    });
  });
}
