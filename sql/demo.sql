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
