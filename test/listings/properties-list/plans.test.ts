import { expect, test } from 'bun:test';
import { parseListQuery } from '@/kernel/query';
import { pagingOf } from '@/listings/paging';
import { PROPERTY_LIST_SHAPE, PropertyListQuery } from '@/listings/properties/list-query';
import { insertPropertiesBulk } from '@/listings/properties/sqlite-bulk';
import { propertyListSql } from '@/listings/properties/sqlite-list';
import { sqliteDatabase } from '../../support/harness';
import { sqliteOnly } from '../../support/postgres-mode';
import { propertySeed } from '../support';

const SQLITE_QUERY_PLANS = 'the SQLite query plans (the PostgreSQL ones: docs/postgresql.md)';

sqliteOnly.describe(SQLITE_QUERY_PLANS, 'query plans (docs/listings-query-plans.md)', () => {
  const db = sqliteDatabase();
  insertPropertiesBulk(db, [propertySeed(), propertySeed({ ownerId: 'owner-2', type: 'studio' })]);
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

  test('updatedSince has no index of its own: another filter leads; alone, the page walks _id order and the total reads every row', () => {
    const since = 'updatedSince=2026-01-31T09:00:00Z';
    const alone = planOf(`?${since}`);
    expect(alone.page).toContain('SCAN p USING INDEX properties_id_unique');
    expect(alone.count).toMatch(/SCAN p( |$)/);
    expect(planOf(`?ownerId=o&${since}`).page).toContain(
      'SEARCH p USING INDEX properties_owner_idx (owner_id=?)',
    );
    expect(planOf(`?type=studio&${since}`).page).toContain(
      'SEARCH p USING INDEX properties_type_idx (type=?)',
    );
    expect(planOf(`?sort=-totalUnits&${since}`).page).toContain(
      'SCAN p USING INDEX properties_total_units_idx',
    );
  });
});
