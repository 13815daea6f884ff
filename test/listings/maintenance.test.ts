import { expect, test } from 'bun:test';
import { CITY_IDS } from '@/listings/cities';
import { pagingOf } from '@/listings/paging';
import { type BulkPropertyInput, insertPropertiesBulk } from '@/listings/properties/bulk';
import { PROPERTY_LIST_SHAPE, PropertyListQuery } from '@/listings/properties/list-query';
import { propertyListSql } from '@/listings/properties/list-sql';
import { reconcileUnitCounters } from '@/listings/properties/reconcile';
import { parseListQuery } from '@/listings/query';
import { sqliteDatabase } from '../support/harness';
import { sqliteOnly } from '../support/postgres-mode';
import { count } from './support';

const SQLITE_LISTINGS_SQL = 'the SQLite bulk insert, counter repair and query plans';

const input = (i: number, overrides: Partial<BulkPropertyInput> = {}): BulkPropertyInput => ({
  type: (['apartment', 'studio', 'roomShared', 'residence'] as const)[i % 4]!,
  ownerId: `owner-${i % 7}`,
  location: {
    addressLine1: `Street ${i}`,
    city: 'City',
    cityId: CITY_IDS[i % CITY_IDS.length]!,
    postalCode: String(10000 + i),
    latitude: 0,
    longitude: 0,
  },
  totalUnits: 5,
  rentableUnits: 3,
  ...overrides,
});

sqliteOnly.describe(SQLITE_LISTINGS_SQL, 'insertPropertiesBulk', () => {
  test('inserts properties with K units each, counters and counts derived', () => {
    const db = sqliteDatabase();
    const result = insertPropertiesBulk(
      db,
      Array.from({ length: 200 }, (_, i) => input(i)),
    );
    expect(result.properties).toBe(200);
    expect(result.units).toBe(1000);
    expect(result.ids).toHaveLength(200);
    expect([...result.ids].sort()).toEqual(result.ids);
    expect(count(db, 'properties')).toBe(200);
    expect(count(db, 'units')).toBe(1000);
    const row = db.$client
      .query(
        'SELECT total_units, rentable_units, published_units, units_counter, source, country FROM properties WHERE id = ?',
      )
      .get(result.ids[0]!);
    expect(row).toEqual({
      total_units: 5,
      rentable_units: 3,
      published_units: 0,
      units_counter: 5,
      source: 'null',
      country: 'ES',
    });
    const counted = db.$client.query('SELECT sum(properties) AS n FROM property_counts').get();
    expect(counted).toEqual({ n: 200 });
  });

  test('explicit units: published only when rentable and not archived', () => {
    const db = sqliteDatabase();
    const { ids } = insertPropertiesBulk(db, [
      input(0, {
        units: [
          { rentable: true, published: true },
          { rentable: false, published: true },
        ],
      }),
      input(1, { archived: true, units: [{ rentable: true, published: true }] }),
    ]);
    const rows = db.$client
      .query('SELECT published_units, published, archived FROM properties ORDER BY id')
      .all();
    expect(rows).toEqual([
      { published_units: 1, published: 1, archived: 0 },
      { published_units: 0, published: 0, archived: 1 },
    ]);
    expect(ids).toHaveLength(2);
  });

  test('all or nothing: a bad row writes nothing', () => {
    const db = sqliteDatabase();
    expect(() => insertPropertiesBulk(db, [input(0), input(1, { totalUnits: 31 })])).toThrow(
      RangeError,
    );
    expect(() =>
      insertPropertiesBulk(db, [
        input(2),
        input(3, { location: { ...input(3).location, cityId: 'atlantis' as 'madrid' } }),
      ]),
    ).toThrow(RangeError);
    expect(count(db, 'properties')).toBe(0);
    expect(count(db, 'units')).toBe(0);
  });
});

sqliteOnly.describe(SQLITE_LISTINGS_SQL, 'reconcileUnitCounters', () => {
  test('repairs drifted counters chunk by chunk and counts what it did', () => {
    const db = sqliteDatabase();
    const { ids } = insertPropertiesBulk(
      db,
      Array.from({ length: 5 }, (_, i) => input(i)),
    );
    // Corrupt by hand: wrong counters on #1 and #3, a unit published behind the counters' back on #4.
    db.$client.run('UPDATE properties SET total_units = 9, rentable_units = 0 WHERE id = ?', [
      ids[1]!,
    ]);
    db.$client.run('UPDATE properties SET published_units = 4, published = 1 WHERE id = ?', [
      ids[3]!,
    ]);
    db.$client.run(
      'UPDATE units SET published = 1 WHERE id = (SELECT id FROM units WHERE property_id = ? LIMIT 1)',
      [ids[4]!],
    );

    const first = reconcileUnitCounters(db, { afterId: null, limit: 2, now: 1 });
    expect(first).toEqual({ scanned: 2, repaired: 1, lastId: ids[1]! });
    const second = reconcileUnitCounters(db, { afterId: first.lastId, limit: 2, now: 1 });
    expect(second).toEqual({ scanned: 2, repaired: 1, lastId: ids[3]! });
    const third = reconcileUnitCounters(db, { afterId: second.lastId, limit: 2, now: 1 });
    expect(third).toEqual({ scanned: 1, repaired: 1, lastId: ids[4]! });
    expect(reconcileUnitCounters(db, { afterId: third.lastId, limit: 2 })).toEqual({
      scanned: 0,
      repaired: 0,
      lastId: null,
    });

    const rows = db.$client
      .query(
        'SELECT total_units, rentable_units, published_units, published FROM properties ORDER BY id',
      )
      .all();
    expect(rows).toEqual([
      { total_units: 5, rentable_units: 3, published_units: 0, published: 0 },
      { total_units: 5, rentable_units: 3, published_units: 0, published: 0 },
      { total_units: 5, rentable_units: 3, published_units: 0, published: 0 },
      { total_units: 5, rentable_units: 3, published_units: 0, published: 0 },
      { total_units: 5, rentable_units: 3, published_units: 1, published: 1 },
    ]);
    // Counted cells follow the repaired columns (triggers).
    const published = db.$client
      .query('SELECT sum(properties) AS n FROM property_counts WHERE published = 1')
      .get();
    expect(published).toEqual({ n: 1 });
    expect(reconcileUnitCounters(db, { limit: 10 })).toEqual({
      scanned: 5,
      repaired: 0,
      lastId: ids[4]!,
    });
  });
});

sqliteOnly.describe(SQLITE_LISTINGS_SQL, 'query plans (docs/listings-query-plans.md)', () => {
  const db = sqliteDatabase();
  insertPropertiesBulk(db, [input(0), input(1)]);
  const planOf = (search: string, scopeOwner: string | null = null) => {
    const query = parseListQuery(search, PROPERTY_LIST_SHAPE, PropertyListQuery);
    const { page, count: total } = propertyListSql({ query, scopeOwner }, pagingOf(query));
    const explain = (sql: string, params: unknown[]) =>
      (db.$client.query(`EXPLAIN QUERY PLAN ${sql}`).all(...(params as [])) as { detail: string }[])
        .map((row) => row.detail)
        .join(' | ');
    return { page: explain(page.sql, page.params), count: explain(total.sql, total.params) };
  };

  /** A keyset page after `values`: the position is a range of the sort's index, never a scan to skip. */
  const keysetPlanOf = (search: string, values: (string | number)[]) => {
    const query = parseListQuery(search, PROPERTY_LIST_SHAPE, PropertyListQuery);
    const paging = {
      page: 1,
      itemsPerPage: 101,
      offset: 0,
      keyset: { after: values, counted: false },
    };
    const { page } = propertyListSql({ query, scopeOwner: null }, paging);
    return (
      db.$client.query(`EXPLAIN QUERY PLAN ${page.sql}`).all(...(page.params as [])) as {
        detail: string;
      }[]
    )
      .map((row) => row.detail)
      .join(' | ');
  };

  test.each([
    ['', ['x'], 'SEARCH p USING INDEX properties_id_unique (id>?)'],
    ['?sort=-_id', ['x'], 'SEARCH p USING INDEX properties_id_unique (id<?)'],
    ['?ownerId=o', ['x'], 'SEARCH p USING INDEX properties_owner_idx (owner_id=? AND id>?)'],
    [
      '?sort=-totalUnits',
      [5, 'x'],
      'SEARCH p USING INDEX properties_total_units_idx ((total_units,id)<(?,?))',
    ],
  ])(
    'keyset %p after a position is an index range, as deep pages cost as much as the first',
    (search, values, plan) => {
      const detail = keysetPlanOf(search, values);
      expect(detail).toContain(plan);
      expect(detail).not.toContain('TEMP B-TREE');
    },
  );

  test('a walk in an order writes change: part A is the index range with a probe of the changes index, part B the changes since the walk began', () => {
    const query = parseListQuery('?sort=-totalUnits', PROPERTY_LIST_SHAPE, PropertyListQuery);
    const keyset = { after: [5, 'x'], counted: false, from: 10 };
    const paging = { page: 1, itemsPerPage: 101, offset: 0, keyset };
    const { page, changed } = propertyListSql({ query, scopeOwner: null }, paging);
    const explain = ({ sql, params }: { sql: string; params: unknown[] }) =>
      (db.$client.query(`EXPLAIN QUERY PLAN ${sql}`).all(...(params as [])) as { detail: string }[])
        .map((row) => row.detail)
        .join(' | ');
    const partA = explain(page);
    expect(partA).toContain(
      'SEARCH p USING INDEX properties_total_units_idx ((total_units,id)<(?,?))',
    );
    expect(partA).toContain(
      'SEARCH c USING COVERING INDEX property_sort_changes_property_idx (property_id=? AND feed_position>?)',
    );
    expect(partA).not.toContain('TEMP B-TREE');
    // Part B reads only the changes after the walk's feed position.
    const partB = explain(changed!);
    expect(partB).toContain(
      'SEARCH property_sort_changes USING INDEX property_sort_changes_position_idx (feed_position>?)',
    );
    // Each property found by id, its whole row read by rowid only for the page.
    expect(partB).toContain('SEARCH p USING COVERING INDEX properties_id_unique (id=?)');
    expect(partB).toContain('SEARCH p USING INTEGER PRIMARY KEY (rowid=?)');
    expect(partB).not.toMatch(/SCAN (p|property_sort_changes)( |$)/);
    // The default order needs none of it: no probe, no part B.
    const byId = parseListQuery('', PROPERTY_LIST_SHAPE, PropertyListQuery);
    const plain = propertyListSql(
      { query: byId, scopeOwner: null },
      { ...paging, keyset: { ...keyset, after: ['x'] } },
    );
    expect(plain.changed).toBeUndefined();
    expect(explain(plain.page)).not.toContain('property_sort_changes');
  });

  test.each([
    ['', 'SCAN p USING INDEX properties_id_unique', 'SCAN property_counts'],
    ['?id=x', 'SEARCH p USING INDEX properties_id_unique (id=?)', 'properties_id_unique (id=?)'],
    ['?ids=a,b', 'SEARCH p USING INDEX properties_id_unique (id=?)', 'properties_id_unique (id=?)'],
    [
      '?unitIds=a',
      'SEARCH u USING INDEX sqlite_autoindex_units_1 (id=?)',
      'sqlite_autoindex_units_1 (id=?)',
    ],
    [
      '?ownerId=o',
      'SEARCH p USING INDEX properties_owner_idx (owner_id=?)',
      'COVERING INDEX properties_owner_idx (owner_id=?)',
    ],
    [
      '?cityIds=madrid,paris',
      'SEARCH p USING INDEX properties_city_type_idx (city_id=?)',
      'SEARCH property_counts USING INDEX',
    ],
    [
      '?cityIds=madrid&type=studio',
      'SEARCH p USING INDEX properties_city_type_idx (city_id=? AND type=?)',
      'SEARCH property_counts USING INDEX sqlite_autoindex_property_counts_1 (city_id=? AND type=?)',
    ],
    [
      '?ownerId=o&type=studio&published=true',
      'SEARCH p USING INDEX properties_owner_idx (owner_id=?)',
      'properties_owner_idx (owner_id=?)',
    ],
    ['?type=studio', 'SEARCH p USING INDEX properties_type_idx (type=?)', 'SCAN property_counts'],
    [
      '?numRentableUnits=3',
      'SEARCH p USING INDEX properties_rentable_units_idx (rentable_units=?)',
      'SCAN property_counts',
    ],
    [
      '?published=true',
      'SEARCH p USING INDEX properties_published_idx (published=?)',
      'SCAN property_counts',
    ],
    [
      '?archived=false',
      'SEARCH p USING INDEX properties_archived_idx (archived=?)',
      'SCAN property_counts',
    ],
    [
      '?address=street',
      'SCAN property_address_search VIRTUAL TABLE INDEX 0:M1',
      'SCAN property_address_search VIRTUAL TABLE INDEX 0:M1',
    ],
    [
      '?features[0][name]=balcony&features[0][value]=yes',
      'SEARCH f USING COVERING INDEX unit_features_name_value_idx (name=? AND value=?)',
      'SEARCH f USING COVERING INDEX unit_features_name_value_idx (name=? AND value=?)',
    ],
    [
      '?features[0][category]=amenities',
      'SEARCH f USING INDEX unit_features_category_name_idx (category=?)',
      'unit_features_category_name_idx (category=?)',
    ],
    ['?sort=-totalUnits', 'SCAN p USING INDEX properties_total_units_idx', 'SCAN property_counts'],
    [
      '?sort=rentableUnits&type=studio',
      'SCAN p USING INDEX properties_rentable_units_idx',
      'SCAN property_counts',
    ],
    ['?sort=-ownerId', 'SCAN p USING INDEX properties_owner_idx', 'SCAN property_counts'],
    ['?sort=type', 'SCAN p USING INDEX properties_type_idx', 'SCAN property_counts'],
  ])('%p uses an index for the page and the total', (search, page, total) => {
    const plan = planOf(search);
    expect(plan.page).toContain(page);
    expect(plan.count).toContain(total);
    expect(plan.page).not.toMatch(/SCAN p( |$)(?!USING)/);
    expect(plan.count).not.toMatch(/SCAN p( |$)(?!USING)/);
  });

  test('a features-only list walks the features index in property order and skips deleted units by the small index', () => {
    for (const sort of ['', '&sort=-_id']) {
      const plan = planOf(`?features[0][name]=balcony&features[0][value]=yes${sort}`);
      // No LIST SUBQUERY: the page stops after its properties instead of collecting every match.
      expect(plan.page).not.toContain('LIST SUBQUERY');
      expect(plan.page).toContain('SEARCH d USING INDEX units_deleted_idx (id=?)');
      expect(plan.count).toContain('SEARCH d USING INDEX units_deleted_idx (id=?)');
      expect(plan.count).not.toContain(' p ');
    }
  });

  test('a customer list leads with its owner index', () => {
    const plan = planOf('?type=studio&cityIds=madrid', 'owner-1');
    expect(plan.page).toContain('SEARCH p USING INDEX properties_owner_idx (owner_id=?)');
    expect(plan.count).toContain('properties_owner_idx (owner_id=?)');
  });

  test('non-leading filters probe rows by key instead of scanning', () => {
    const plan = planOf('?ownerId=o&features[0][name]=balcony&address=abcd&cityIds=madrid');
    expect(plan.page).toContain('SEARCH p USING INDEX properties_owner_idx (owner_id=?)');
    expect(plan.page).toContain('SEARCH u USING INDEX units_property_idx (property_id=?)');
    expect(plan.page).toContain('USING INDEX sqlite_autoindex_unit_features_1 (unit_id=?)');
    expect(plan.page).not.toContain('property_address_search');
    const byId = planOf('?id=x&unitIds=u');
    expect(byId.page).toContain('SEARCH p USING INDEX properties_id_unique (id=?)');
    expect(byId.page).toContain('SEARCH u USING INDEX units_property_idx (property_id=? AND id=?)');
  });
});
