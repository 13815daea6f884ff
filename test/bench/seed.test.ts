import { describe, expect, test } from 'bun:test';
import { progressBar, seedProperties, withBulkLoadSettings } from '../../scripts/seed';
import { createTestApp } from '../support/harness';
import { sqliteOnly } from '../support/postgres-mode';

const indexNames = (ctx: ReturnType<typeof createTestApp>) =>
  ctx.db.$client
    .query<{ name: string }, []>(
      "SELECT name FROM sqlite_master WHERE type = 'index' ORDER BY name",
    )
    .all()
    .map((row) => row.name);

describe('seed', () => {
  sqliteOnly.test(
    'the seed script loads a SQLite file',
    'loads varied properties that the list filters find, indexes and counts intact',
    async () => {
      const ctx = createTestApp();
      const before = indexNames(ctx);
      const result = await withBulkLoadSettings(ctx.db, () =>
        seedProperties(ctx.db, { properties: 600, unitsPerProperty: 3, batch: 250 }),
      );
      expect(result).toMatchObject({ properties: 600, units: 1800 });
      expect(indexNames(ctx)).toEqual(before);
      const client = ctx.db.$client;
      const scalar = (sql: string) => (client.query(sql).get() as { n: number }).n;
      expect(scalar('SELECT count(DISTINCT city_id) AS n FROM properties')).toBeGreaterThan(40);
      expect(scalar('SELECT count(DISTINCT type) AS n FROM properties')).toBe(4);
      expect(scalar('SELECT count(DISTINCT owner_id) AS n FROM properties')).toBe(5);
      expect(scalar('SELECT sum(properties) AS n FROM property_counts')).toBe(600);
      expect(scalar('SELECT count(*) AS n FROM properties WHERE total_units != 3')).toBe(0);
      expect(client.query('PRAGMA integrity_check').get()).toEqual({ integrity_check: 'ok' });

      const token = await ctx.tokenFor('employee-1', 'employee');
      const list = await ctx.request<{ total: number; count: number }>(
        'GET',
        '/listings/properties?features[0][name]=balcony&features[0][value]=true',
        { token },
      );
      expect(list.status).toBe(200);
      expect(list.body.total).toBeGreaterThan(0);
      const byAddress = await ctx.request<{ total: number }>(
        'GET',
        '/listings/properties?address=floor',
        { token },
      );
      expect(byAddress.body.total).toBeGreaterThan(0);
    },
  );

  sqliteOnly.test(
    'the seed script loads a SQLite file',
    'the same seed gives the same data',
    async () => {
      const rowsOf = async () => {
        const ctx = createTestApp();
        await seedProperties(ctx.db, { properties: 50, unitsPerProperty: 2, now: 1.8e12 });
        return ctx.db.$client
          .query(
            'SELECT type, owner_id, city_id, address_line1, latitude FROM properties ORDER BY id',
          )
          .all();
      };
      expect(await rowsOf()).toEqual(await rowsOf());
    },
  );

  sqliteOnly.test(
    'the seed script loads a SQLite file',
    'a range of units per property gives each property a count within it, spread over it',
    async () => {
      const ctx = createTestApp();
      const result = await seedProperties(ctx.db, {
        properties: 300,
        unitsPerProperty: 1,
        maxUnitsPerProperty: 30,
      });
      const counts = ctx.db.$client
        .query<{ least: number; most: number; kinds: number; units: number }, []>(
          `SELECT min(total_units) AS least, max(total_units) AS most,
             count(DISTINCT total_units) AS kinds, sum(total_units) AS units FROM properties`,
        )
        .get();
      expect(counts).toMatchObject({ least: 1, most: 30, units: result.units });
      expect(counts!.kinds).toBeGreaterThan(25);
    },
  );

  test('the progress bar reports share, counts and time', () => {
    const lines: string[] = [];
    const report = progressBar(1000, 'properties', (line) => lines.push(line));
    report(500);
    report(1000);
    expect(lines.join('')).toContain('50% 500/1,000 properties');
    expect(lines.join('')).toContain('100% 1,000/1,000 properties');
  });
});
