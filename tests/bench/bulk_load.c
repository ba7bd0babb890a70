/*
** Copyright (c) 2026 the cuckoo authors.  MIT License: see LICENSE.
**
** bulk_load.c: the bulk load of a cuckoo virtual table in items per CPU
** second, through SQL only, so that the same program builds against the
** extension's sources of any commit.  `make bench-before` (at the top)
** builds it twice, against ext/ of the working tree and against ext/ of
** an older commit (BEFORE, default: the commit at which the fast-core
** work began), and runs the two alternately: the before/after ratio of
** the same statements in one session.
**
**   build/bench/bulk_load FILE [N]
**
** FILE is a scratch database; it keeps a table of N random integers
** (default 10^7) between runs, so both builds read the same rows.  Each
** of three measures is the median of 3 repetitions, printed as
** "name items/s":
**
**   random-sized    INSERT INTO seen(item) SELECT x FROM big, a table
**                   created with capacity=N (one level)
**   random-growing  the same into a table created with no options (the
**                   default capacity 100000, growth on: 7 levels at 10^7)
**   ascending-sized the integers 1..N/3 from a table, capacity=N/3
**
** Every database gets a 1 GiB page cache, synchronous=OFF and no
** rollback journal.  Times are CPU seconds (user + system).
*/
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>

#include "bench.h"

int sqlite3_cuckoo_init(sqlite3 *db, char **pzErr, const void *pApi);

static sqlite3_int64 one(sqlite3 *db, const char *zSql) {
  sqlite3_stmt *s = 0;
  sqlite3_int64 v = -1;
  if (sqlite3_prepare_v2(db, zSql, -1, &s, 0) == SQLITE_OK &&
      sqlite3_step(s) == SQLITE_ROW) {
    v = sqlite3_column_int64(s, 0);
  }
  sqlite3_finalize(s);
  return v;
}

/* Items per CPU second of zInsert into a table made by zCreate, median of
** 3; the table must then hold nItems. */
static double rate(sqlite3 *db, const char *zCreate, const char *zInsert,
                   sqlite3_int64 nItems) {
  double a[3];
  int i;
  for (i = 0; i < 3; i++) {
    double t;
    tl_exec(db, "DROP TABLE IF EXISTS seen");
    tl_exec(db, zCreate);
    t = cpu();
    tl_exec(db, zInsert);
    t = cpu() - t;
    if (one(db, "SELECT count(*) FROM seen_blocks") <= 0) {
      printf("bulk_load: the table holds no blocks\n");
      exit(1);
    }
    a[i] = (double)nItems / t;
  }
  tl_exec(db, "DROP TABLE seen");
  return median3(a);
}

int main(int argc, char **argv) {
  sqlite3 *db = 0;
  sqlite3_int64 n = argc > 2 ? atoll(argv[2]) : 10000000;
  char zSql[400];
  tl_zProgram = "bulk_load";
  if (argc < 2 || n < 3) {
    printf("usage: bulk_load FILE [N]\n");
    return 1;
  }
  sqlite3_auto_extension((void (*)(void))sqlite3_cuckoo_init);
  if (sqlite3_open(argv[1], &db) != SQLITE_OK) {
    printf("bulk_load: cannot open %s\n", argv[1]);
    return 1;
  }
  tl_exec(db, "PRAGMA cache_size=-1048576; PRAGMA synchronous=OFF; "
              "PRAGMA journal_mode=OFF");
  if (one(db, "SELECT count(*) FROM big") != n) {
    tl_exec(db, "DROP TABLE IF EXISTS big; DROP TABLE IF EXISTS src");
    snprintf(zSql, sizeof(zSql),
             "CREATE TABLE big(x INTEGER); CREATE TABLE src(x INTEGER);"
             "WITH RECURSIVE s(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM s "
             "WHERE i < %lld) INSERT INTO big SELECT random() FROM s;"
             "INSERT INTO src SELECT rowid FROM big WHERE rowid <= %lld",
             n, n / 3);
    tl_exec(db, zSql);
  }
  tl_exec(db, "SELECT count(*) FROM big; SELECT count(*) FROM src"); /* warm */
  snprintf(zSql, sizeof(zSql),
           "CREATE VIRTUAL TABLE seen USING cuckoo(capacity=%lld)", n);
  printf("random-sized %.0f\n",
         rate(db, zSql, "INSERT INTO seen(item) SELECT x FROM big", n));
  printf("random-growing %.0f\n",
         rate(db, "CREATE VIRTUAL TABLE seen USING cuckoo",
              "INSERT INTO seen(item) SELECT x FROM big", n));
  snprintf(zSql, sizeof(zSql),
           "CREATE VIRTUAL TABLE seen USING cuckoo(capacity=%lld)", n / 3);
  printf("ascending-sized %.0f\n",
         rate(db, zSql, "INSERT INTO seen(item) SELECT x FROM src", n / 3));
  sqlite3_close(db);
  return 0;
}
