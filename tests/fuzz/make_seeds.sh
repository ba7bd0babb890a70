#!/bin/sh
# make_seeds.sh EXT: write the committed seed corpora with the sqlite3
# shell and the built extension EXT (path without .so).
#   seed-blob/:   valid filters of every geometry and variant, empty,
#                 part full and full, small enough to fuzz quickly.
#   seed-shadow/: shadow_fuzz.c inputs: every template database, and one
#                 input per kind of shadow-table mutation.
set -e
cd "$(dirname "$0")"
ext=$1
mkdir -p seed-blob
sqlite3 :memory: <<SQL
.load $ext
CREATE TABLE n(i INTEGER PRIMARY KEY);
WITH RECURSIVE c(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM c WHERE i < 400)
INSERT INTO n SELECT i FROM c;
CREATE TABLE g(name TEXT, cap INT, eps REAL, opts TEXT, fill INT);
INSERT INTO g VALUES
  ('plain-b4-f9',   60, 0.03,   NULL,            30),
  ('plain-b4-f13',  60, 0.001,  NULL,            60),
  ('plain-b2-f7',   40, 0.06,   'bucket_size=2', 20),
  ('plain-b8-f10',   80, 0.03,   'bucket_size=8', 80),
  ('plain-b4-f4',   30, 0.9,    NULL,            30),
  ('plain-b4-f32',  20, 2e-9,   NULL,            10),
  ('plain-b4-f17',  30, 0.0001, NULL,            25),
  ('ss-f5',         60, 0.3,    'semisort',      50),
  ('ss-f10',         60, 0.01,   'semisort',      60),
  ('ss-f13',        60, 0.001,  'semisort',      30),
  ('ss-f32',        20, 2e-9,   'semisort',      20),
  ('empty-seed7',   10, 0.01,   'seed=7',        0);
.output /dev/null
SELECT writefile('seed-blob/' || name || '.cf',
  (WITH RECURSIVE a(k, f) AS (
     SELECT 0, cuckoo_new(cap, eps, opts)
     UNION ALL
     SELECT k + 1, cuckoo_add(f, 'item' || k, k) FROM a WHERE k < fill / 2)
   SELECT f FROM a ORDER BY k DESC LIMIT 1))
FROM g;
SQL
ls seed-blob | wc -l

# seed-shadow/: inputs of shadow_fuzz.c (byte 0 picks the template
# database; then mutation records, 0xff ends them; then a program of
# operations, see the file's header): each template untouched, and one
# input per kind of mutation, each followed by $all, the program that runs
# every operation in the order the first version of the target ran them
# all on every input (ten reads; BEGIN, four inserts, a bulk insert of 143 items,
# byte 127, that grows the newest level of every template but the log's;
# SAVEPOINT, INSERT OR IGNORE, DELETE, UPDATE, RELEASE; a check;
# SAVEPOINT, delete-all, RELEASE; ROLLBACK; the rename opcode, which
# renames only when a third argument of s() gives its byte, 15), and a few
# short programs (writes in autocommit mode, nested savepoints).
all='\000\000\000\000\001\000\000\002\000\000\003\000\000\004\000\000\005\000\000\006\000\000\007\000\000\010\000\000\011\000\003\001\000\001\000\001\000\001\000\002\177\004\005\000\006\000\007\000\000\011\013\004\014\000\011\015\000\016'
mkdir -p seed-shadow
s() { printf "$2$all$3" > "seed-shadow/$1"; }
s tpl0-levels        '\000\377'
s tpl1-semisort      '\001\377'
s tpl2-full-b2       '\002\377'
s tpl3-b8-copies     '\003\377'
# format 3 with log rows (byte 4): replayed at the first use, then
# written; its blocks damaged under the log, and its config version
# set back to 2 (the log ignored)
s tpl4-log           '\004\377'
# many small levels (bytes 5 and 6): plain, and semi-sorted
s tpl5-levels        '\005\377'
s tpl6-levels-ss     '\006\377'
s log-block-bytes    '\004\001\005\003\002\011\001\002\003\004\377'
s log-block-deleted  '\004\001\010\002\000\001\377' '\017'
s log-version-2      '\004\001\000\000\000\022\377'
s config-cookie-max  '\000\001\000\011\000\214\377'
s config-version-2   '\000\001\000\000\000\022\377'
# format 1 (every block has its row, so an absent one is missing), and
# a newer format than this build reads
s config-version-1   '\000\001\000\000\000\021\377'
s config-version-3   '\000\001\000\000\000\023\377'
s config-deleted     '\000\001\001\001\002\377' '\017'
s levels-count       '\000\001\002\001\010\000\050\377'
s levels-row-deleted '\003\001\004\001\000\001\377' '\017'
s block-bytes        '\000\001\005\003\002\011\001\002\003\004\377' '\017'
s block-truncated    '\000\001\007\004\000\012\377'
s block-deleted      '\001\001\010\002\000\001\377'
s block-extra        '\000\001\011\206\040\377'
s block-copied       '\002\001\012\000\003\377'
s table-dropped      '\000\001\013\000\002\377' '\017'
# short programs: a bulk insert, an insert and a delete-all in autocommit
# mode, then a check; nested savepoints rolled back to and released
# around inserts and an import, then COMMIT
all=''
s prog-autocommit    '\000\377\002\177\001\007\014\000\013'
s prog-savepoints    '\003\377\003\004\001\011\004\002\004\010\012\011\010\011\015\001\013'
ls seed-shadow | wc -l
# (regress-*: inputs that found defects, kept as they were found, and
# converted when the input format changed: the same mutations, then the
# program that runs what the first version ran after them; this script
# leaves them alone)
