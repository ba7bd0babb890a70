-- write.sql: a database file with filters of every kind and a cuckoo
-- table that grows (tests/windows/run.sh runs it on Windows and on Linux).
.load ./cuckoo
CREATE TABLE t(x);
WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 12000)
INSERT INTO t SELECT CASE i % 4 WHEN 0 THEN i WHEN 1 THEN 'k' || i
  WHEN 2 THEN i * 0.5 ELSE CAST('b' || i AS BLOB) END FROM n;
CREATE TABLE u(x);
CREATE TABLE filters(name TEXT PRIMARY KEY, f BLOB);
INSERT INTO filters VALUES
  ('scalar', cuckoo_add(cuckoo_new(1000, 0.01, 'bucket_size=2, seed=7'),
                        'a', 2, 3.5, x'00ff')),
  ('b8', cuckoo_remove(cuckoo_add(cuckoo_new(500, 0.0001, 'bucket_size=8'),
                                  'a', 'b', 'c'), 'b'));
INSERT INTO filters SELECT 'agg', cuckoo_agg(x) FROM t;
INSERT INTO filters SELECT 'agg-semisort', cuckoo_agg(x, 0.001, 20000, 'semisort') FROM t;
INSERT INTO filters SELECT 'union', cuckoo_union(f) FROM
  (SELECT cuckoo_agg(x, 0.001, 20000) AS f FROM t GROUP BY typeof(x));
INSERT INTO filters SELECT 'window', cuckoo_union(f) FROM
  (SELECT cuckoo_agg(x, 0.01, 1000) OVER (ORDER BY rowid ROWS 3 PRECEDING) AS f
   FROM t WHERE rowid <= 300);
-- capacity 1000: the table grows to several levels
CREATE VIRTUAL TABLE seen USING cuckoo(capacity=1000, error_rate=0.001);
INSERT INTO seen(item) SELECT x FROM t;
DELETE FROM seen WHERE item IN (SELECT x FROM t WHERE rowid % 7 = 0);
