-- The list queries of the service written for PostgreSQL, run with
-- EXPLAIN (ANALYZE, BUFFERS) on a copy of `bun run seed -- --properties 1000000
-- --units-per-property 5` plus 2,000,000 generated transactions
-- (docs/postgresql.md, "Plans at 1,000,000 properties"):
--   psql "$DATABASE_URL" -f bench/postgres-plans.sql
-- The ids and names are those of the seeded data (the seed is reproducible).
\pset pager off
-- SSD storage: random reads cost little more than sequential ones.
SET random_page_cost = 1.1;
\echo '=== Q1 property by id'
EXPLAIN (ANALYZE, BUFFERS) SELECT * FROM properties WHERE id = '01970d1f-f753-75de-891b-fa30892cd2f5';
\echo '=== Q2 madrid+apartment by id, offset 300'
EXPLAIN (ANALYZE, BUFFERS) SELECT * FROM properties p WHERE p.city_id = 'madrid' AND p.type = 'apartment' ORDER BY p.id LIMIT 30 OFFSET 300;
\echo '=== Q3 madrid+apartment by -totalUnits'
EXPLAIN (ANALYZE, BUFFERS) SELECT * FROM properties p WHERE p.city_id = 'madrid' AND p.type = 'apartment' ORDER BY p.total_units DESC, p.id DESC LIMIT 30 OFFSET 300;
\echo '=== Q4 madrid+apartment by rentableUnits'
EXPLAIN (ANALYZE, BUFFERS) SELECT * FROM properties p WHERE p.city_id = 'madrid' AND p.type = 'apartment' ORDER BY p.rentable_units, p.id LIMIT 30 OFFSET 300;

\echo '=== Q2s small city by id'
EXPLAIN (ANALYZE, BUFFERS) SELECT * FROM properties p WHERE p.city_id = 'brescia' AND p.type = 'residence' ORDER BY p.id LIMIT 30 OFFSET 30;
\echo '=== Q3s small city by -totalUnits'
EXPLAIN (ANALYZE, BUFFERS) SELECT * FROM properties p WHERE p.city_id = 'brescia' AND p.type = 'residence' ORDER BY p.total_units DESC, p.id DESC LIMIT 30 OFFSET 30;
\echo '=== Q4s small city by rentableUnits'
EXPLAIN (ANALYZE, BUFFERS) SELECT * FROM properties p WHERE p.city_id = 'brescia' AND p.type = 'residence' ORDER BY p.rentable_units, p.id LIMIT 30 OFFSET 30;
\echo '=== Q2d madrid+apartment by id, offset 30000'
EXPLAIN (ANALYZE, BUFFERS) SELECT * FROM properties p WHERE p.city_id = 'madrid' AND p.type = 'apartment' ORDER BY p.id LIMIT 30 OFFSET 30000;
\echo '=== Q5a total from property_counts'
EXPLAIN (ANALYZE, BUFFERS) SELECT coalesce(sum(properties), 0) AS total FROM property_counts WHERE city_id = 'madrid' AND type = 'apartment';
\echo '=== Q5b total by count(*)'
EXPLAIN (ANALYZE, BUFFERS) SELECT count(*) FROM properties p WHERE p.city_id = 'madrid' AND p.type = 'apartment';
\echo '=== Q6a features page'
EXPLAIN (ANALYZE, BUFFERS) SELECT p.* FROM properties p WHERE p.id IN (
  SELECT DISTINCT f.property_id FROM unit_features f WHERE f.name = 'pool' AND f.value = 'true'
    AND NOT EXISTS (SELECT 1 FROM units d WHERE d.id = f.unit_id AND d.deleted_at IS NOT NULL)
  ORDER BY f.property_id LIMIT 30 OFFSET 0) ORDER BY p.id;
\echo '=== Q6b features total'
EXPLAIN (ANALYZE, BUFFERS) SELECT count(DISTINCT f.property_id) FROM unit_features f WHERE f.name = 'pool' AND f.value = 'true'
    AND NOT EXISTS (SELECT 1 FROM units d WHERE d.id = f.unit_id AND d.deleted_at IS NOT NULL);
\echo '=== Q7a address page (no match)'
EXPLAIN (ANALYZE, BUFFERS) SELECT * FROM properties p WHERE p.address_search LIKE '%mayor 12345%' ORDER BY p.id LIMIT 30;
\echo '=== Q7b address total'
EXPLAIN (ANALYZE, BUFFERS) SELECT count(*) FROM properties p WHERE p.address_search LIKE '%mayor 12345%';
\echo '=== Q7c address broad page'
EXPLAIN (ANALYZE, BUFFERS) SELECT * FROM properties p WHERE p.address_search LIKE '%mayor 1%' ORDER BY p.id LIMIT 30;
\echo '=== Q7d address broad total'
EXPLAIN (ANALYZE, BUFFERS) SELECT count(*) FROM properties p WHERE p.address_search LIKE '%mayor 1%';
\echo '=== Q8a transactions page'
EXPLAIN (ANALYZE, BUFFERS) SELECT * FROM transactions WHERE customer_id = 'customer-4242' AND pay_date >= '2025-01-01' AND pay_date <= '2025-06-30' ORDER BY pay_date DESC, id DESC LIMIT 30 OFFSET 0;
\echo '=== Q8b transactions total'
EXPLAIN (ANALYZE, BUFFERS) SELECT count(*) FROM transactions WHERE customer_id = 'customer-4242' AND pay_date >= '2025-01-01' AND pay_date <= '2025-06-30';
\echo '=== Q7a address page (213 matches)'
EXPLAIN (ANALYZE, BUFFERS) SELECT * FROM properties p WHERE p.address_search LIKE '%mayor 123%' ORDER BY p.id LIMIT 30;
\echo '=== Q7b address total (213 matches)'
EXPLAIN (ANALYZE, BUFFERS) SELECT count(*) FROM properties p WHERE p.address_search LIKE '%mayor 123%';
