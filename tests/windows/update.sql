-- update.sql: more writes to a database file that the other system wrote
-- (tests/windows/run.sh): the table grows again, filters change.
.load ./cuckoo
WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 9000)
INSERT INTO u SELECT 'more-' || i FROM n;
INSERT INTO seen(item) SELECT x FROM u;
DELETE FROM seen WHERE item IN (SELECT x FROM t WHERE rowid % 7 = 1);
UPDATE filters SET f = cuckoo_add(f, 'more-1', 'more-2', 3) WHERE name = 'agg';
UPDATE filters SET f = cuckoo_remove(f, 'a') WHERE name = 'scalar';
