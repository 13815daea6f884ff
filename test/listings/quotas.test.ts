import { describe, expect, test } from 'bun:test';
import { GroupCommit } from '@/db/sqlite/group-commit';
import { propertyToCreate } from '@/listings/properties/operations';
import type { PropertyCreate } from '@/listings/properties/schemas';
import { propertyQuotaDetail, unitQuotaDetail } from '@/listings/quotas';
import { quotaCheckedCreates } from '@/listings/sqlite-store';
import { createTestApp, problemOf } from '../support/harness';
import { sqliteOnly } from '../support/postgres-mode';
import { storesUnderTest } from './stores';
import { type count, OTHER_OWNER, OWNER, propertyBody } from './support';

const ownedBy = (ctx: { db: Parameters<typeof count>[0] }, ownerId: string) =>
  (
    ctx.db.$client
      .query('SELECT count(*) AS n FROM properties WHERE owner_id = ?')
      .get(ownerId) as {
      n: number;
    }
  ).n;

for (const store of storesUnderTest()) {
  const quotaContext = (env: Record<string, string>) => store.app({ env });

  store.describe('QUOTA_PROPERTIES_PER_OWNER', () => {
    test('a customer past its quota gets 409 naming the limit, and nothing is written', async () => {
      const ctx = await quotaContext({ QUOTA_PROPERTIES_PER_OWNER: '3' });
      const create = (path: string, token: string, ownerId = OWNER) =>
        ctx.request('POST', path, {
          token,
          body: propertyBody({ ownerId, totalUnits: 1, rentableUnits: 1 }),
        });
      for (let i = 0; i < 3; i++) {
        expect((await create('/listings/properties', ctx.customer)).status).toBe(201);
      }
      const units = await ctx.count('units');
      for (const path of ['/listings/properties', '/listings/public/properties']) {
        const refused = await create(path, ctx.customer);
        expect(refused.status).toBe(409);
        expect(refused.body).toEqual({ ...problemOf(409), detail: propertyQuotaDetail(3) });
        expect(refused.headers.get('location')).toBeNull();
      }
      expect(propertyQuotaDetail(3)).toBe(
        'The owner already has 3 properties, the most allowed per owner',
      );
      expect(await ctx.ownedBy(OWNER)).toBe(3);
      expect(await ctx.count('units')).toBe(units);

      // Another owner has its own quota; employees are exempt, even for this owner.
      expect((await create('/listings/properties', ctx.otherCustomer, OTHER_OWNER)).status).toBe(
        201,
      );
      expect((await create('/listings/properties', ctx.employee)).status).toBe(201);
      expect(await ctx.ownedBy(OWNER)).toBe(4);
      expect((await create('/listings/properties', ctx.customer)).status).toBe(409);
    });

    test('concurrent creates stop exactly at the quota, owner by owner', async () => {
      const ctx = await quotaContext({ QUOTA_PROPERTIES_PER_OWNER: '5' });
      const requests = Array.from({ length: 40 }, (_, i) => {
        const [ownerId, token] =
          i % 4 === 0 ? [OTHER_OWNER, ctx.otherCustomer] : [OWNER, ctx.customer];
        const path = i % 2 ? '/listings/properties' : '/listings/public/properties';
        return ctx.request('POST', path, {
          token,
          body: propertyBody({ ownerId, totalUnits: 1, rentableUnits: 1 }),
        });
      });
      const statuses = (await Promise.all(requests)).map((res) => res.status);
      expect(statuses.filter((s) => s === 201)).toHaveLength(10);
      expect(statuses.filter((s) => s === 409)).toHaveLength(30);
      expect(await ctx.ownedBy(OWNER)).toBe(5);
      expect(await ctx.ownedBy(OTHER_OWNER)).toBe(5);
    });
  });

  store.describe('QUOTA_UNITS_PER_PROPERTY', () => {
    test('unit rows, deleted ones included, are bounded per property; employees exempt', async () => {
      const ctx = await quotaContext({ QUOTA_UNITS_PER_PROPERTY: '4' });
      const created = await ctx.request('POST', '/listings/properties', {
        token: ctx.customer,
        body: propertyBody({ totalUnits: 2 }),
      });
      const id = created.headers.get('location')!.split('/').pop()!;
      const units = `/listings/properties/${id}/units`;
      const add = (token: string) => ctx.request('POST', units, { token, body: {} });

      // Create and delete: the deleted rows stay and count.
      const third = await add(ctx.customer);
      expect(third.status).toBe(201);
      const thirdId = third.headers.get('location')!.split('/').pop()!;
      expect(
        (await ctx.request('DELETE', `${units}/${thirdId}`, { token: ctx.customer })).status,
      ).toBe(204);
      expect((await add(ctx.customer)).status).toBe(201);
      const refused = await add(ctx.customer);
      expect(refused.status).toBe(409);
      expect(refused.body).toEqual({ ...problemOf(409), detail: unitQuotaDetail(4) });
      expect(unitQuotaDetail(4)).toBe(
        'The property already has 4 units counting deleted ones, the most allowed per property',
      );
      expect(await ctx.count('units')).toBe(4);
      expect((await add(ctx.employee)).status).toBe(201);
      expect(await ctx.count('units')).toBe(5);
    });
  });
}

sqliteOnly.describe(
  'the group commit batches SQLite writes',
  'QUOTA_PROPERTIES_PER_OWNER in the group commit (SQLite)',
  () => {
    test('in one group commit: the combined write falls back and stops exactly at the quota', async () => {
      const ctx = createTestApp();
      const group = new GroupCommit(ctx.db.$client, { schedule: () => {} });
      const kind = quotaCheckedCreates(ctx.db, 2);
      const caller = { sub: OWNER, aud: 'customer' as const };
      const row = () =>
        propertyToCreate(propertyBody() as PropertyCreate, { caller, source: 'outbound', now: 1 });
      const outcomes = Promise.allSettled([
        group.submit(kind, { row: row(), counted: true }),
        group.submit(kind, { row: row(), counted: false }),
        group.submit(kind, { row: row(), counted: true }),
        group.submit(kind, { row: row(), counted: true }),
        group.submit(kind, { row: row(), counted: false }),
      ]);
      group.flush();
      const statuses = (await outcomes).map((outcome) => outcome.status);
      // The uncounted ones (employees') still take room: the second counted create finds 2.
      expect(statuses).toEqual(['fulfilled', 'fulfilled', 'rejected', 'rejected', 'fulfilled']);
      expect(ownedBy(ctx, OWNER)).toBe(3);
    });
  },
);

describe('configuration', () => {
  test('generous defaults', () => {
    expect(createTestApp().config.quotas).toEqual({
      propertiesPerOwner: 10_000,
      unitsPerProperty: 1000,
    });
  });

  test.each([
    ['QUOTA_PROPERTIES_PER_OWNER', '0'],
    ['QUOTA_PROPERTIES_PER_OWNER', 'lots'],
    ['QUOTA_UNITS_PER_PROPERTY', '-1'],
    ['QUOTA_UNITS_PER_PROPERTY', '1.5'],
  ])('%s=%s is refused naming the variable', (name, value) => {
    expect(() => createTestApp({ env: { [name]: value } })).toThrow(new RegExp(`^${name}: `));
  });
});
