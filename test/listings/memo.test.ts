import { describe, expect, test } from 'bun:test';
import { openDatabase } from '@/db/client';
import { memoUntilWrite } from '@/listings/sql';
import { createTestApp } from '../support/harness';
import { makeProperty } from './support';

describe('memoUntilWrite', () => {
  test('computes once until this connection or another one writes', () => {
    const ctx = createTestApp();
    let computed = 0;
    const total = () =>
      memoUntilWrite(ctx.db, 'count', () => {
        computed++;
        return (ctx.db.$client.query('SELECT count(*) AS n FROM properties').get() as { n: number })
          .n;
      });
    expect([total(), total()]).toEqual([0, 0]);
    expect(computed).toBe(1);

    makeProperty(ctx.db);
    expect(total()).toBe(1);
    expect(computed).toBe(2);

    const other = openDatabase(ctx.config.databasePath);
    makeProperty(other);
    other.$client.close();
    expect([total(), total()]).toEqual([2, 2]);
    expect(computed).toBe(3);
  });

  test('a features total follows a unit write at once', async () => {
    const ctx = createTestApp();
    const token = await ctx.tokenFor('employee-1', 'employee');
    const feature = { applicability: 'unit', category: 'amenities', name: 'pool', value: 'yes' };
    const id = makeProperty(ctx.db, { units: [{ rentable: true, features: [feature] }] });
    const totalOf = async () =>
      (
        await ctx.request<{ total: number }>(
          'GET',
          '/listings/properties?features[0][name]=pool&features[0][value]=yes',
          { token },
        )
      ).body.total;
    expect(await totalOf()).toBe(1);
    const created = await ctx.request('POST', `/listings/properties/${id}/units`, {
      token,
      body: { features: [] },
    });
    expect(created.status).toBe(201);
    const { unit_id: poolUnit } = ctx.db.$client
      .query('SELECT unit_id FROM unit_features WHERE property_id = ?')
      .get(id) as { unit_id: string };
    const deleted = await ctx.request('DELETE', `/listings/properties/${id}/units/${poolUnit}`, {
      token,
    });
    expect(deleted.status).toBe(204);
    expect(await totalOf()).toBe(0);
  });
});
