-- read.sql: everything a database of write.sql (and update.sql) holds,
-- read back (tests/windows/run.sh compares the output across systems).
.load ./cuckoo
SELECT 'table', json_extract(i, '$.levels'), json_extract(i, '$.count'),
       json_extract(i, '$.bytes')
  FROM (SELECT cuckoo_table_info('seen') AS i);
SELECT 'check', cuckoo_check('seen');
-- no false negative: every item still in the table is found
SELECT 'missing', count(*) FROM t WHERE rowid % 7 != 0
  AND NOT (rowid % 7 = 1 AND (SELECT count(*) FROM u) > 0)
  AND NOT EXISTS (SELECT 1 FROM seen WHERE item = t.x);
SELECT 'missing-u', count(*) FROM u WHERE NOT EXISTS (SELECT 1 FROM seen WHERE item = u.x);
-- the false positives among the deleted items (the same count everywhere)
SELECT 'deleted-found', count(*) FROM t WHERE rowid % 7 = 0
  AND EXISTS (SELECT 1 FROM seen WHERE item = t.x);
WITH RECURSIVE l(level) AS (SELECT 0 UNION ALL SELECT level + 1 FROM l
  WHERE level + 1 < json_extract(cuckoo_table_info('seen'), '$.levels'))
SELECT 'level', level, hex(sha3(cuckoo_export('main', 'seen', level))) FROM l;
SELECT name, length(f), cuckoo_count(f), hex(sha3(f)) FROM filters ORDER BY name;
SELECT 'agg-missing', count(*) FROM t, filters
  WHERE name = 'agg' AND NOT cuckoo_contains(f, x);
SELECT 'scalar', cuckoo_contains(f, 'a'), cuckoo_contains(f, 2),
       cuckoo_contains(f, 3.5), cuckoo_contains(f, x'00ff'), cuckoo_info(f)
  FROM filters WHERE name = 'scalar';
