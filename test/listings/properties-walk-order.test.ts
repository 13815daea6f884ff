import { describe, expect, test } from 'bun:test';
import type { z } from 'zod';
import type { PropertyKeysetPage, PropertyList } from '@/api/listings/properties/routes';
import { createTestApp, type TestContext } from '../support/harness';
import { postgresAvailable } from '../support/postgres';
import { postgresForTestApp } from '../support/postgres-mode';
import { propertyBody } from './support';

/**
 * Keyset walks sorted by fields writes change (units, type, owner) while
 * writers change exactly those fields, create and archive: every property
 * that exists and matches throughout the walk is returned once, in the
 * order of the walk's first page. Every listings write goes to the store
 * under test (the whole app on PostgreSQL for that run).
 */
type KeysetPage = z.output<typeof PropertyKeysetPage>;
type Units = { _embedded?: { 'svc:units': { id: string }[] } };
const LIST = '/listings/properties';
const ENV = { RATE_LIMITS: 'off' };
const OWNERS = ['owner-a', 'owner-b', 'owner-c'];
const TYPES = ['apartment', 'studio'];

const backends = [
  { name: 'SQLite', skip: false, app: () => createTestApp({ env: ENV }) },
  {
    name: 'PostgreSQL',
    skip: !postgresAvailable,
    app: () => createTestApp({ env: ENV, postgresUrl: postgresForTestApp().url }),
  },
];

/** A deterministic sequence of numbers in [0, 1). */
function random(seed: number) {
  let state = seed;
  return () => {
    state = (state * 1_103_515_245 + 12_345) % 2 ** 31;
    return state / 2 ** 31;
  };
}

for (const backend of backends) {
  describe.skipIf(backend.skip)(`keyset walks in an order writes change (${backend.name})`, () => {
    test('every property existing and matching throughout is returned once, in the first page order', async () => {
      const ctx: TestContext = backend.app();
      const employee = await ctx.tokenFor('employee-1', 'employee');
      const write = async (method: string, path: string, body?: unknown) =>
        ctx.request(method, path, { token: employee, body });
      const ids: string[] = [];
      const create = async (i: number) => {
        const body = propertyBody({
          ownerId: OWNERS[i % 3],
          type: TYPES[i % 2],
          totalUnits: 1 + (i % 5),
        });
        const res = await write('POST', LIST, body);
        expect(res.status).toBe(201);
        ids.push(res.headers.get('location')!.split('/').at(-1)!);
      };
      for (let i = 0; i < 30; i++) await create(i);
      const next = random(34);
      const pick = () => ids[Math.floor(next() * ids.length)]!;

      /** Writes between two pages: units, type and owner changes, creates and archives. */
      async function writeSome(archived: Set<string>, moved: Set<string>) {
        for (let i = 0; i < 4; i++) {
          const id = pick();
          const op = Math.floor(next() * 7);
          if (op <= 1) {
            expect([201, 409]).toContain((await write('POST', `${LIST}/${id}/units`, {})).status);
          } else if (op === 2) {
            const units = (await write('GET', `${LIST}/${id}/units`)).body as Units;
            const unit = units._embedded?.['svc:units'][0];
            if (unit) await write('DELETE', `${LIST}/${id}/units/${unit.id}`);
          } else if (op === 3) {
            const type = TYPES[Math.floor(next() * 2)];
            expect([204, 409]).toContain(
              (await write('PUT', `${LIST}/${id}/convert`, { type })).status,
            );
          } else if (op === 4) {
            const ownerId = OWNERS[Math.floor(next() * 3)];
            expect([204, 409]).toContain(
              (await write('PUT', `${LIST}/${id}/owner`, { ownerId })).status,
            );
            moved.add(id);
          } else if (op === 5) await create(ids.length);
          else {
            const back = archived.has(id);
            await write(back ? 'POST' : 'DELETE', `${LIST}/${id}${back ? '/unarchive' : ''}`);
            archived.add(id);
          }
        }
      }

      /** The ids of one page-number listing of `query`, in its order. */
      const listed = async (query: string, token: string) =>
        (
          await ctx.request<z.output<typeof PropertyList>>(
            'GET',
            `${LIST}?itemsPerPage=100&${query}`,
            {
              token,
            },
          )
        ).body._embedded['svc:properties'].map((p) => p.id);

      const customer = await ctx.tokenFor('owner-a', 'customer');
      const walks: [string, string][] = [
        ['sort=totalUnits', employee],
        ['sort=-totalUnits', employee],
        ['sort=rentableUnits&archived=false', employee],
        ['sort=type,-totalUnits', employee],
        ['sort=-ownerId', employee],
        ['sort=ownerId,totalUnits&cityIds=madrid', employee],
        ['sort=-totalUnits', customer],
      ];
      const failures: object[] = [];
      for (const [query, token] of walks) {
        const archived = new Set<string>();
        const moved = new Set<string>();
        const before = await listed(query, token);
        const seen: string[] = [];
        let path: string | undefined = `${LIST}?paging=keyset&itemsPerPage=3&${query}`;
        while (path) {
          const res: { status: number; body: KeysetPage } = await ctx.request<KeysetPage>(
            'GET',
            path,
            { token },
          );
          expect(res.status).toBe(200);
          seen.push(...res.body._embedded['svc:properties'].map((p) => p.id));
          path = res.body._links.next?.href;
          await writeSome(archived, moved);
        }
        // Archives leave the archived=false walk; owner changes leave or enter the customer's.
        const throughout = before.filter(
          (id) =>
            !(query.includes('archived') && archived.has(id)) &&
            !(token === customer && moved.has(id)),
        );
        const repeated = seen.filter((id, i) => seen.indexOf(id) !== i);
        const missing = throughout.filter((id) => !seen.includes(id));
        // In the order of the walk's start: a property is placed by its fields as they were.
        const inOrder = seen.filter((id) => throughout.includes(id)).join() === throughout.join();
        if (repeated.length + missing.length > 0 || !inOrder) {
          failures.push({ query, repeated, missing, inOrder });
        }
      }
      expect(failures).toEqual([]);
    }, 60_000);
  });
}
