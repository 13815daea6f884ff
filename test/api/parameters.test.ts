import { describe, expect, test } from 'bun:test';
import { createTestApp } from '../support/harness';

/**
 * The document types list parameters as clients write them (integers with
 * bounds, booleans); the service reads their text. These tests send the
 * documented bounds and one past them: the service accepts exactly what the
 * document says, so the two cannot drift.
 */
const ctx = createTestApp();
const token = await ctx.tokenFor('parameters-employee', 'employee');

type Json = Record<string, unknown>;
interface Parameter {
  name: string;
  in: string;
  schema: Json;
}
type Paths = Record<string, Record<string, { parameters: Parameter[] }>>;
const doc = (await ctx.request<{ paths: Paths }>('GET', '/docs/json')).body;

const created = await ctx.request('POST', '/listings/properties', {
  token,
  body: {
    type: 'apartment',
    ownerId: 'owner-1',
    location: {
      addressLine1: 'Calle Mayor 5',
      city: 'Madrid',
      cityId: 'madrid',
      postalCode: '28013',
      latitude: 40.4,
      longitude: -3.7,
    },
  },
});
const propertyId = created.headers.get('location')!.split('/').pop()!;

const LISTS: [path: string, url: string][] = [
  ['/listings/properties', '/listings/properties'],
  ['/listings/properties/{id}/units', `/listings/properties/${propertyId}/units`],
  ['/listings/multi-listing-units', '/listings/multi-listing-units'],
  ['/api/v1/c/transactions', '/api/v1/c/transactions'],
];

const statusOf = async (url: string, name: string, value: string) =>
  (await ctx.request('GET', `${url}?${name}=${encodeURIComponent(value)}`, { token })).status;

describe('typed query parameters', () => {
  for (const [path, url] of LISTS) {
    const parameters = doc.paths[path]!.get!.parameters.filter((p) => p.in === 'query');

    test(`${path}: integers are accepted within their documented bounds, refused past them`, async () => {
      const integers = parameters.filter((p) => p.schema.type === 'integer');
      expect(integers.length).toBeGreaterThan(0);
      for (const { name, schema } of integers) {
        const min = Number(schema.minimum);
        const max = Number(schema.maximum);
        expect([name, Number.isFinite(min), Number.isFinite(max)]).toEqual([name, true, true]);
        for (const value of [min, max]) {
          expect([name, value, await statusOf(url, name, String(value))]).toEqual([
            name,
            value,
            200,
          ]);
        }
        for (const value of [min - 1, max + 1, 1.5]) {
          const status = await statusOf(url, name, String(value));
          expect([name, value, status === 400 || status === 422]).toEqual([name, value, true]);
        }
      }
    });

    const booleans = parameters.filter((p) => p.schema.type === 'boolean');
    if (booleans.length > 0)
      test(`${path}: booleans are true or false`, async () => {
        for (const { name } of booleans) {
          expect([name, await statusOf(url, name, 'true')]).toEqual([name, 200]);
          expect([name, await statusOf(url, name, 'false')]).toEqual([name, 200]);
          expect([name, await statusOf(url, name, 'yes')]).toEqual([name, 400]);
        }
      });

    test(`${path}: arrays are written as repeated keys`, async () => {
      for (const { name, schema } of parameters.filter((p) => p.schema.type === 'array')) {
        const items = schema.items as Json;
        const value = (items.enum as string[] | undefined)?.[0] ?? 'x';
        const res = await ctx.request('GET', `${url}?${name}=${value}&${name}=${value}`, { token });
        expect([name, res.status]).toEqual([name, 200]);
      }
    });
  }

  test('dates and amounts of the transactions are typed', async () => {
    const parameters = doc.paths['/api/v1/c/transactions']!.get!.parameters;
    const typeOf = (name: string) => parameters.find((p) => p.name === name)?.schema;
    expect(typeOf('pay_date_from')).toMatchObject({ type: 'string', format: 'date' });
    expect(typeOf('amount_from')).toMatchObject({ type: 'number' });
    const url = '/api/v1/c/transactions';
    expect(await statusOf(url, 'amount_from', '12.5')).toBe(200);
    expect(await statusOf(url, 'pay_date_from', '2026-11-22')).toBe(200);
    expect(await statusOf(url, 'pay_date_from', '2026-13-01')).toBe(422);
  });
});
