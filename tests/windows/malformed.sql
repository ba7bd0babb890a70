-- malformed.sql: hostile BLOBs, bad options and a damaged cuckoo table,
-- each statement failing with an error (tests/windows/run.sh counts the
-- errors and compares every message with Linux's); what was stored is
-- unchanged afterwards.
.open --new malformed.db
.load ./cuckoo
CREATE TABLE s(f BLOB);
INSERT INTO s VALUES (cuckoo_add(cuckoo_new(100), 'a', 'b'));
SELECT 'before', hex(sha3(f)) FROM s;
UPDATE s SET f = cuckoo_add(x'', 'c');
UPDATE s SET f = cuckoo_add(zeroblob(40), 'c');
UPDATE s SET f = cuckoo_add(substr(f, 1, 39), 'c');
UPDATE s SET f = cuckoo_add(substr(f, 1, length(f) - 1), 'c');
UPDATE s SET f = cuckoo_add(CAST(f || x'00' AS BLOB), 'c');
UPDATE s SET f = cuckoo_remove(CAST(x'434B4F4F02' || substr(f, 6) AS BLOB), 'a');
UPDATE s SET f = cuckoo_merge(f, CAST(substr(f, 1, 9) || x'FF' || substr(f, 11) AS BLOB));
SELECT cuckoo_contains(CAST(x'434B4F4F01000400' || zeroblob(32) AS BLOB), 1);
SELECT cuckoo_count(CAST(substr(f, 1, 8) || x'FFFFFFFFFFFFFF7F' || substr(f, 17) AS BLOB)) FROM s;
SELECT cuckoo_info(CAST(substr(f, 1, 24) || x'E803000000000000' || substr(f, 33) AS BLOB)) FROM s;
SELECT cuckoo_count(1.5);
SELECT cuckoo_new(10, 0.1, 'seed=18446744073709551616');
SELECT cuckoo_new(10, 1e-10);
SELECT cuckoo_new(10, 0.1, 'bucket_size=3');
SELECT 'after', hex(sha3(f)) FROM s;
-- a cuckoo table whose shadow tables are damaged
CREATE VIRTUAL TABLE t USING cuckoo(capacity=1000, error_rate=0.001, block_size=128);
WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 2000)
INSERT INTO t SELECT i FROM n;
-- the shell is defensive by default: shadow tables may not be written
.dbconfig defensive off
UPDATE t_blocks SET data = substr(data, 1, 10) WHERE id = 3;
-- a new connection, nothing cached
.open malformed.db
.load ./cuckoo
WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 2000)
SELECT count(*) FROM n JOIN t ON t.item = n.i;
SELECT cuckoo_check('t');
WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 2000)
DELETE FROM t WHERE item IN (SELECT i FROM n);
SELECT 'count', sum(count) FROM t_levels;
CREATE VIRTUAL TABLE v USING cuckoo(capacity=-5);
CREATE VIRTUAL TABLE v USING cuckoo(capacity=100, error_rate=2);
