-- blobs.sql: one SHA3-256 digest of the BLOB each way of writing a filter
-- gives, from statements that need nothing but the extension (run with the
-- shell's sha3()).  Two builds must print the same lines: the release
-- amalgamation and cuckoo.so (tests/dist_test.sh), the Windows DLL and
-- cuckoo.so (tests/windows/run.sh).
.load ./cuckoo
CREATE TABLE t(x);
WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 20000)
INSERT INTO t SELECT CASE i % 4 WHEN 0 THEN i WHEN 1 THEN 'k' || i
  WHEN 2 THEN i * 0.5 ELSE CAST('b' || i AS BLOB) END FROM n;
SELECT 'add', hex(sha3(cuckoo_add(cuckoo_new(1000), 'a', 2, 3.5, x'00ff')));
SELECT 'semisort', hex(sha3(cuckoo_add(cuckoo_new(1000, 0.01, 'semisort'), 'a', 'b')));
SELECT 'b2', hex(sha3(cuckoo_add(cuckoo_new(500, 0.001, 'bucket_size=2,seed=7'), 'a')));
SELECT 'b8', hex(sha3(cuckoo_add(cuckoo_new(500, 0.0001, 'bucket_size=8'), 'a')));
SELECT 'agg', hex(sha3(cuckoo_agg(x))) FROM t;
SELECT 'agg-cap', hex(sha3(cuckoo_agg(x, 0.01, 30000, 'semisort'))) FROM t;
SELECT 'remove', hex(sha3(cuckoo_remove(cuckoo_agg(x, 0.01, 30000), 'k1', 4))) FROM t;
SELECT 'union', hex(sha3(cuckoo_union(f))) FROM
  (SELECT cuckoo_agg(x, 0.001, 30000) AS f FROM t GROUP BY typeof(x));
SELECT 'window', hex(sha3(group_concat(hex(f), ','))) FROM
  (SELECT cuckoo_agg(x) OVER (ORDER BY rowid ROWS 3 PRECEDING) AS f
   FROM t WHERE rowid <= 200);
CREATE VIRTUAL TABLE v USING cuckoo(capacity=5000, error_rate=0.01);
CREATE VIRTUAL TABLE w USING cuckoo(capacity=30000, semisort);
INSERT INTO w(item) SELECT x FROM t;
SELECT 'export-w', hex(sha3(cuckoo_export('w')));
INSERT INTO v(item) SELECT x FROM t;
SELECT 'export-v', hex(sha3(cuckoo_export('main', 'v', 0))), hex(sha3(cuckoo_export('main', 'v', 2)));
