-- demo.sql: a five-minute tour of cuckoo, run by `make demo`:
--   sqlite3 :memory: < sql/demo.sql
-- It generates its own data, so it needs nothing but ./cuckoo.so.
.load ./cuckoo
.headers on
.mode box

SELECT cuckoo_version() AS version;

-- 100,000 signups and 20,000 login attempts, a quarter of them unknown.
CREATE TABLE signups(id INTEGER PRIMARY KEY, email TEXT);
WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 100000)
INSERT INTO signups(email) SELECT 'user' || i || '@example.com' FROM n;
CREATE TABLE logins(email TEXT);
WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 20000)
INSERT INTO logins SELECT 'user' || (i * 5) || '@example.com' FROM n;

-- 1. Scalar functions: a filter is an ordinary BLOB value.
CREATE TABLE filters(name TEXT PRIMARY KEY, f BLOB);
INSERT INTO filters VALUES ('tiny', cuckoo_add(cuckoo_new(100), 'alice', 'bob', 42));
SELECT cuckoo_contains(f, 'alice') AS alice,
       cuckoo_contains(f, 'carol') AS carol,
       cuckoo_contains(f, 42.0)    AS "42.0 (= 42)",
       cuckoo_contains(f, '42')    AS "'42' (text)",
       cuckoo_count(f)             AS items
FROM filters WHERE name = 'tiny';
UPDATE filters SET f = cuckoo_remove(f, 'bob') WHERE name = 'tiny';
SELECT cuckoo_contains(f, 'bob') AS bob_after_remove FROM filters WHERE name = 'tiny';
SELECT json_extract(cuckoo_info(f), '$.capacity') AS capacity,
       json_extract(cuckoo_info(f), '$.fingerprint_bits') AS fp_bits,
       json_extract(cuckoo_info(f), '$.bytes') AS bytes
FROM filters WHERE name = 'tiny';

-- 2. Aggregates: one filter per group, built in bulk and sized to the
--    group's distinct items, then stored and probed in a join.
CREATE TABLE orders(customer_id INTEGER, sku TEXT);
-- 100,000 orders of 1000 customers, each buying from a few dozen SKUs.
WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 100000)
INSERT INTO orders SELECT i % 1000, 'sku-' || ((i * i) % 1009 % 40 + (i % 1000) / 10) FROM n;
CREATE TABLE bought AS
  SELECT customer_id, cuckoo_agg(sku) AS f FROM orders GROUP BY customer_id;
SELECT count(*) AS customers,
       sum(cuckoo_count(f)) AS distinct_pairs,
       (SELECT count(*) FROM (SELECT DISTINCT customer_id, sku FROM orders)) AS exact,
       sum(length(f)) AS filter_bytes
FROM bought;
-- Which customers (probably) bought sku-42?  Never misses one.
SELECT count(*) AS maybe_bought_sku42,
       (SELECT count(DISTINCT customer_id) FROM orders WHERE sku = 'sku-42') AS exactly
FROM bought WHERE cuckoo_contains(f, 'sku-42');

-- Shard, then union: fixed-capacity filters merge into one.
SELECT cuckoo_count(cuckoo_union(f)) AS all_skus
FROM (SELECT customer_id % 4 AS shard, cuckoo_agg(sku, 0.001, 10000) AS f
      FROM orders GROUP BY customer_id % 4);

-- A sliding window: the distinct SKUs of the last 100 orders, per order.
SELECT rowid AS order_no, cuckoo_count(f) AS distinct_in_last_100,
       cuckoo_contains(f, sku) AS has_own_sku
FROM (SELECT rowid, sku, cuckoo_agg(sku) OVER (ORDER BY rowid ROWS 99 PRECEDING) AS f
      FROM orders)
WHERE rowid IN (1, 50, 100, 1000, 100000);

-- 3. The cuckoo virtual table: a named filter kept in the database file,
--    transactional, shared by every connection, growing when full.
CREATE VIRTUAL TABLE seen USING cuckoo(capacity=50000, error_rate=0.001);
INSERT INTO seen(item) SELECT email FROM signups;      -- grows past 50000
SELECT json_extract(cuckoo_table_info('seen'), '$.count')  AS items,
       json_extract(cuckoo_table_info('seen'), '$.levels') AS levels,
       json_extract(cuckoo_table_info('seen'), '$.bytes')  AS bytes;
-- Lookups, one per login (the join plans as a lookup per outer row):
SELECT count(*) AS known_logins FROM logins l JOIN seen s ON s.item = l.email;
EXPLAIN QUERY PLAN SELECT count(*) FROM logins l JOIN seen s ON s.item = l.email;
-- Writes are transactional: a rolled-back delete is undone.
BEGIN;
DELETE FROM seen WHERE item = 'user5@example.com';
SELECT count(*) AS after_delete FROM seen WHERE item = 'user5@example.com';
ROLLBACK;
SELECT count(*) AS after_rollback FROM seen WHERE item = 'user5@example.com';
-- INSERT OR IGNORE adds only what is not (probably) there already.
INSERT OR IGNORE INTO seen(item) VALUES ('user5@example.com'), ('new@example.com');
SELECT changes() AS added;
-- Export a level as an ordinary filter BLOB, check the shadow tables.
SELECT cuckoo_contains(cuckoo_export('main', 'seen', 0), 'user5@example.com') AS in_level_0,
       cuckoo_check('seen') AS check_result;
