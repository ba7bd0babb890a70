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

-- 2. The cuckoo virtual table: a named filter kept in the database file,
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
