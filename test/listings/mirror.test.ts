import type { Statement } from 'bun:sqlite';
import { describe, expect, test } from 'bun:test';
import type { SQL } from 'bun';
import { ReadCache } from '@/db/read-cache';
import { postgresListingsStore } from '@/listings/postgres-store';
import { archiveProperty } from '@/listings/properties/operations';
import {
  createClient,
  type MirrorBatch,
  type MirrorFilters,
  type Property,
} from '../../client/src';
import { createTestApp, type TestAppOptions, type TestContext } from '../support/harness';
import { postgresAvailable } from '../support/postgres';
import { poolOn, postgresForTestApp } from '../support/postgres-mode';
import { propertyBody } from './support';

/**
 * The mirror recipe of docs/mirroring.md, end to end: writers change the
 * listings through one instance while clients mirror them through another
 * (two connections to one SQLite file; two pools on one PostgreSQL
 * database), and each mirror ends equal, item for item, to a fresh listing.
 */
interface Backend {
  name: string;
  skip: boolean;
  /** Two instances of the service on one database; `reader` may take its own listings store. */
  instances(reader?: (writer: TestContext) => TestAppOptions): {
    reader: TestContext;
    writer: TestContext;
  };
}

const ENV = { RATE_LIMITS: 'off' };

const backends: Backend[] = [
  {
    name: 'SQLite',
    skip: false,
    instances(readerOptions) {
      const writer = createTestApp({ env: ENV });
      const reader = createTestApp({ env: ENV, databaseOf: writer, ...readerOptions?.(writer) });
      return { reader, writer };
    },
  },
  {
    name: 'PostgreSQL',
    skip: !postgresAvailable,
    instances(readerOptions) {
      const { url } = postgresForTestApp();
      const writer = createTestApp({ env: ENV, postgresUrl: url });
      const reader = createTestApp({ env: ENV, databaseOf: writer, ...readerOptions?.(writer) });
      return { reader, writer };
    },
  },
];

const clientOf = (ctx: TestContext, token: string) =>
  createClient({
    baseUrl: 'http://localhost',
    token,
    fetch: async (request) => ctx.fetch(request),
    sleep: async () => {},
  });

/** Applies a mirror's batches to a map, as a consumer would; answers the last cursor saved. */
async function apply(batches: AsyncIterable<MirrorBatch>, held: Map<string, Property>) {
  let saved: string | null = null;
  for await (const batch of batches) {
    if (batch.reset) held.clear();
    for (const property of batch.upserts) held.set(property.id, property);
    for (const id of batch.removals) held.delete(id);
    if (batch.cursor !== null) saved = batch.cursor;
  }
  return saved;
}

const byId = (items: Iterable<Property>) =>
  [...items].sort((a, b) => (a.id < b.id ? -1 : 1)).map((p) => JSON.stringify(p));

/** A deterministic sequence of numbers in [0, 1). */
function random(seed: number) {
  let state = seed;
  return () => {
    state = (state * 1_103_515_245 + 12_345) % 2 ** 31;
    return state / 2 ** 31;
  };
}

const OWNERS = ['owner-a', 'owner-b'];
const LONDON = {
  ...{ addressLine1: '1 Baker St', postalCode: 'NW1', latitude: 51.5, longitude: -0.15 },
  ...{ cityId: 'london', city: 'London' },
};
const MADRID = {
  ...{ addressLine1: 'Calle Mayor 5', postalCode: '28013', latitude: 40.4, longitude: -3.7 },
  ...{ cityId: 'madrid', city: 'Madrid' },
};

for (const backend of backends) {
  describe.skipIf(backend.skip)(`mirroring the listings (${backend.name})`, () => {
    test('mirrors kept while writers create, edit, change units, archive and move owners equal a fresh listing', async () => {
      const { reader, writer } = backend.instances();
      const employeeToken = await writer.tokenFor('employee-1', 'employee');
      const write = (method: string, path: string, body?: unknown) =>
        writer.request(method, path, { token: employeeToken, body });
      const ids: string[] = [];
      const create = async (i: number) => {
        const res = await write(
          'POST',
          '/listings/properties',
          propertyBody({ ownerId: OWNERS[i % 2], totalUnits: 2 }),
        );
        expect(res.status).toBe(201);
        ids.push(res.headers.get('location')!.split('/').at(-1)!);
      };
      for (let i = 0; i < 24; i++) await create(i);

      const next = random(34);
      const pick = () => ids[Math.floor(next() * ids.length)]!;
      const archived = new Set<string>();
      let writes = 0;
      async function writers() {
        for (let i = 0; i < 90; i++) {
          const id = pick();
          const op = Math.floor(next() * 7);
          if (op === 0) await create(i);
          else if (op === 1)
            await write(
              'PUT',
              `/listings/properties/${id}/location`,
              next() < 0.5 ? LONDON : MADRID,
            );
          else if (op === 2) await write('POST', `/listings/properties/${id}/units`, {});
          else if (op === 3) {
            const units = await write('GET', `/listings/properties/${id}/units`);
            const unit = (units.body as { _embedded?: { 'svc:units': { id: string }[] } })
              ._embedded?.['svc:units'][0];
            if (unit)
              await write('PATCH', `/listings/properties/${id}/units/${unit.id}`, {
                published: true,
              });
          } else if (op === 4) {
            await write(
              archived.has(id) ? 'POST' : 'DELETE',
              `/listings/properties/${id}${archived.has(id) ? '/unarchive' : ''}`,
            );
            if (archived.has(id)) archived.delete(id);
            else archived.add(id);
          } else if (op === 5)
            await write('PUT', `/listings/properties/${id}/owner`, {
              ownerId: OWNERS[Math.floor(next() * 2)],
            });
          else
            await write('PUT', `/listings/properties/${id}/convert`, {
              type: next() < 0.5 ? 'studio' : 'apartment',
            });
          writes++;
        }
      }

      const employee = clientOf(reader, await reader.tokenFor('employee-2', 'employee'));
      const customer = clientOf(reader, await reader.tokenFor('owner-a', 'customer'));
      const mirrors: { client: typeof employee; filters: MirrorFilters }[] = [
        { client: employee, filters: {} },
        { client: customer, filters: {} },
        { client: employee, filters: { cityIds: ['madrid'], archived: false } },
      ];
      const held = mirrors.map(() => new Map<string, Property>());
      // Small pages, so the listings run while the writers work.
      const saved = await Promise.all([
        writers(),
        ...mirrors.map(({ client, filters }, i) =>
          apply(client.listings.mirror(filters, { itemsPerPage: 3 }), held[i]!),
        ),
      ]);
      expect(writes).toBe(90);
      // Each mirror resumes from its saved cursor, as after a restart, and catches up.
      for (const [i, { client, filters }] of mirrors.entries()) {
        const after = saved[i + 1] as string;
        expect(typeof after).toBe('string');
        await apply(client.listings.mirror(filters, { after }), held[i]!);
        const fresh = [];
        for await (const p of client.listings.properties.all({ ...filters, itemsPerPage: 100 }))
          fresh.push(p);
        expect(fresh.length).toBeGreaterThan(0);
        expect(byId(held[i]!.values())).toEqual(byId(fresh));
      }
    });

    test('a write committed between the page and its feed position reaches the mirror through the feed', async () => {
      // The reader's page statement runs a write on the other instance as soon as it has
      // read: were the feed position read after the page, outside its snapshot, it would
      // name that write's events and the mirror would never see the archive.
      let hook: (() => unknown) | undefined;
      const takeHook = () => {
        const run = hook;
        hook = undefined;
        return run?.();
      };
      const { reader, writer } = backend.instances((w) =>
        w.postgresUrl ? postgresReaderAfterPage(w.postgresUrl, takeHook) : {},
      );
      if (!reader.postgresUrl) sqliteAfterPage(reader, takeHook);
      const token = await writer.tokenFor('employee-1', 'employee');
      const res = await writer.request('POST', '/listings/properties', {
        token,
        body: propertyBody({ ownerId: 'owner-a' }),
      });
      const id = res.headers.get('location')!.split('/').at(-1)!;
      const operation = archiveProperty(
        id,
        {},
        { caller: { sub: 'employee-1', aud: 'employee' }, now: Date.now() },
      );
      hook = () => writer.deps.stores.listings.writeProperty(operation);

      const client = clientOf(reader, await reader.tokenFor('employee-2', 'employee'));
      const held = new Map<string, Property>();
      await apply(client.listings.mirror(), held);
      expect(hook).toBeUndefined();
      expect(held.get(id)?.archived).toBe(true);
      const fresh = await client.listings.properties.get(id);
      expect(byId(held.values())).toEqual(byId([fresh]));
    });
  });
}

/** Runs `after` right after each property page statement of `ctx` has read (SQLite). */
function sqliteAfterPage(ctx: TestContext, after: () => unknown) {
  const client = ctx.db.$client;
  const prepare = client.prepare.bind(client);
  client.prepare = ((text: string) => {
    const statement = prepare(text) as Statement;
    if (!/ORDER BY p\.id ASC LIMIT/.test(text)) return statement;
    const all = statement.all.bind(statement);
    statement.all = (...params: never[]) => {
      const rows = all(...params);
      after();
      return rows;
    };
    return statement;
  }) as typeof client.prepare;
}

/** A reader whose listings store runs `after` once each list statement has answered (PostgreSQL). */
function postgresReaderAfterPage(url: string, after: () => unknown): TestAppOptions {
  const pool = poolOn(url);
  const hooked = new Proxy(pool, {
    get(target, key, receiver) {
      const value = Reflect.get(target, key, receiver);
      if (key !== 'unsafe') return typeof value === 'function' ? value.bind(target) : value;
      return (text: string, params?: unknown[]) => {
        const query = target.unsafe(text, params);
        if (!text.includes('LEFT JOIN LATERAL')) return query;
        return query.then(async (rows: unknown) => {
          await after();
          return rows;
        });
      };
    },
  }) as SQL;
  return {
    stores: { listings: postgresListingsStore(hooked) },
    readCache: new ReadCache({ postgres: pool }),
  };
}
