/*
** Copyright (c) 2026 the cuckoo authors.  MIT License: see LICENSE.
**
** agg_bench.c: building filters with cuckoo_agg versus the natural
** alternatives, measured in the same run on the same table.
**
** Table 1, bulk builds: for 10^6 and 10^7 rows of one column (random
** 64-bit INTEGERs, almost all distinct, and TEXT e-mail addresses with
** about 63% distinct), the time of
**   SELECT cuckoo_agg(x) FROM t                   (exact size, default 0.001)
**   SELECT count(DISTINCT x) FROM t
**   CREATE INDEX ... ON t(x)
** and the filter BLOB's bytes against the index's bytes (dbstat).  The
** database is a file in build/bench with SQLite's default page cache
** (CREATE INDEX is fastest so: a cache of gigabytes made it 2x slower),
** journal and sync off, warm OS cache.  Times are CPU seconds (user +
** system), the best of 3 runs at 10^6 rows and of 2 at 10^7 (count(DISTINCT)
** once there: it takes ten times longer than the others).
**
** Table 2, GROUP BY: 10^7 rows in 10^4 groups: cuckoo_agg per group (and
** the fixed-capacity form) versus CREATE INDEX on (g, x).
**
** Table 3, sliding windows: cuckoo_agg(x) OVER (ORDER BY id ROWS F-1
** PRECEDING) over 2*10^5 rows for frames F = 10^3, 10^4, 10^5: time per
** row, against the time one plain cuckoo_agg over F rows takes (what
** rebuilding the frame for each row would cost).
**
** BENCH_SCALE (environment, default 1) divides every size.
*/
#include <sqlite3.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cuckoo_filter.h"

#include "../testlib.h"
#include "bench.h"

int sqlite3_cuckoo_init(sqlite3 *db, char **pzErr, const void *pApi);

static const char *zDbFile = "build/bench/agg_bench.db";

static void die(sqlite3 *db, const char *zSql) {
  tl_die("%s: %s", zSql, sqlite3_errmsg(db));
}

/* Run a query, keep its first column's bytes (BLOB) or integer value. */
static double run(sqlite3 *db, const char *zSql, sqlite3_int64 *pVal,
                  uint8_t **ppBlob, int *pnBlob) {
  sqlite3_stmt *s = 0;
  double t0 = cpu(), t;
  if (sqlite3_prepare_v2(db, zSql, -1, &s, 0) != SQLITE_OK) die(db, zSql);
  while (sqlite3_step(s) == SQLITE_ROW) {
    if (pVal) *pVal = sqlite3_column_int64(s, 0);
    if (ppBlob && sqlite3_column_type(s, 0) == SQLITE_BLOB) {
      int n = sqlite3_column_bytes(s, 0);
      free(*ppBlob);
      *ppBlob = malloc((size_t)n);
      if (*ppBlob == 0) exit(2);
      memcpy(*ppBlob, sqlite3_column_blob(s, 0), (size_t)n);
      *pnBlob = n;
    }
  }
  if (sqlite3_finalize(s) != SQLITE_OK) die(db, zSql);
  t = cpu() - t0;
  return t;
}

static double best(sqlite3 *db, const char *zSql, int nRep, const char *zUndo) {
  double b = 1e30;
  int i;
  for (i = 0; i < nRep; i++) {
    double t = run(db, zSql, 0, 0, 0);
    if (t < b) b = t;
    if (zUndo) tl_exec(db, zUndo);
  }
  return b;
}

static sqlite3 *open_fresh(void) {
  sqlite3 *db = bench_open(zDbFile, 0);
  tl_exec(db,
          "PRAGMA journal_mode=OFF; PRAGMA synchronous=OFF; PRAGMA threads=0");
  return db;
}

/* A fresh database with table t(id INTEGER PRIMARY KEY, <zCols>) of n rows,
** column values from the expression list zValues (s.i is 1..n), read once
** to warm the caches. */
static sqlite3 *make_table(const char *zCols, const char *zNames,
                           const char *zValues, sqlite3_int64 n) {
  sqlite3 *db = open_fresh();
  char *zSql = sqlite3_mprintf(
      "CREATE TABLE t(id INTEGER PRIMARY KEY, %s);"
      "WITH RECURSIVE s(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM s "
      "WHERE i < %lld) INSERT INTO t(%s) SELECT %s FROM s;",
      zCols, n, zNames, zValues);
  if (zSql == 0) exit(2);
  tl_exec(db, zSql);
  sqlite3_free(zSql);
  run(db, "SELECT count(*) FROM t", 0, 0, 0);
  return db;
}

/* Data kinds of table 1. */
#define K_INT64 0 /* random() */
#define K_INT32 1 /* random 31-bit integers: smaller index entries */
#define K_TEXT 2  /* 'user<k>@example.com', k < n: about 63% distinct */

static void bulk(sqlite3_int64 n, int eKind) {
  static const char *azKind[] = {"int64", "int32", "text"};
  sqlite3 *db;
  char zText[100];
  uint8_t *blob = 0, *blobSS = 0;
  int nBlob = 0, nBlobSS = 0, nRep = n <= 1000000 ? 3 : 2;
  sqlite3_int64 idxBytes = 0, nDistinct = 0;
  double tAgg, tSS, tDistinct, tIndex;
  cf_filter f, fs;
  snprintf(zText, sizeof(zText),
           "'user' || abs(random() %% %lld) || '@example.com'", n);
  db = make_table("x", "x",
                  eKind == K_INT64   ? "random()"
                  : eKind == K_INT32 ? "random() & 2147483647"
                                     : zText,
                  n);
  tAgg = best(db, "SELECT cuckoo_agg(x) FROM t", nRep, 0);
  run(db, "SELECT cuckoo_agg(x) FROM t", 0, &blob, &nBlob);
  tSS =
      best(db, "SELECT cuckoo_agg(x, NULL, NULL, 'semisort') FROM t", nRep, 0);
  run(db, "SELECT cuckoo_agg(x, NULL, NULL, 'semisort') FROM t", 0, &blobSS,
      &nBlobSS);
  tDistinct =
      best(db, "SELECT count(DISTINCT x) FROM t", nRep > 2 ? nRep : 1, 0);
  run(db, "SELECT count(DISTINCT x) FROM t", &nDistinct, 0, 0);
  tIndex = best(db, "CREATE INDEX tx ON t(x)", nRep, "DROP INDEX tx");
  tl_exec(db, "CREATE INDEX tx ON t(x)");
  run(db, "SELECT sum(pgsize) FROM dbstat WHERE name = 'tx'", &idxBytes, 0, 0);
  if (blob == 0 || cf_open(&f, blob, (size_t)nBlob, 0) != CF_OK ||
      (sqlite3_int64)f.count != nDistinct || blobSS == 0 ||
      cf_open(&fs, blobSS, (size_t)nBlobSS, 0) != CF_OK ||
      (sqlite3_int64)fs.count != nDistinct) {
    printf("agg_bench: bad filter\n");
    exit(1);
  }
  printf("%9lld %-6s %9lld %7.3f %7.3f %8.3f %8.3f %7.3f %7.3f %10d %11lld "
         "%6.3f %5.2f %7.3f %6.3f\n",
         n, azKind[eKind], nDistinct, tAgg, tSS, tIndex, tDistinct,
         tAgg / tIndex, tAgg / tDistinct, nBlob, idxBytes,
         (double)nBlob / (double)idxBytes,
         (double)f.table_size * 8.0 / (double)f.count, tSS / tIndex,
         (double)nBlobSS / (double)idxBytes);
  fflush(stdout);
  free(blob);
  free(blobSS);
  sqlite3_close(db);
  remove(zDbFile);
}

static void groupby(sqlite3_int64 n, sqlite3_int64 nGroup) {
  sqlite3 *db;
  char zSql[400];
  double tAgg, tFixed, tIndex;
  sqlite3_int64 cap = 2 * n / nGroup;
  snprintf(zSql, sizeof(zSql), "abs(random() %% %lld), random()", nGroup);
  db = make_table("g INTEGER, x INTEGER", "g, x", zSql, n);
  tAgg = run(db, "SELECT g, cuckoo_agg(x) FROM t GROUP BY g", 0, 0, 0);
  snprintf(zSql, sizeof(zSql),
           "SELECT g, cuckoo_agg(x, 0.001, %lld) FROM t GROUP BY g", cap);
  tFixed = run(db, zSql, 0, 0, 0);
  tIndex = run(db, "CREATE INDEX tgx ON t(g, x)", 0, 0, 0);
  printf("%9lld %7lld %12.3f %14.3f %12.3f %9.3f %11.3f\n", n, nGroup, tAgg,
         tFixed, tIndex, tAgg / tIndex, tFixed / tIndex);
  fflush(stdout);
  sqlite3_close(db);
  remove(zDbFile);
}

static void window(sqlite3_int64 nRow, sqlite3_int64 nFrame) {
  sqlite3 *db;
  char zSql[400];
  double tWin, tOne;
  sqlite3_int64 sum = 0;
  snprintf(zSql, sizeof(zSql), "abs(random() %% %lld)", nFrame * 2);
  db = make_table("x INTEGER", "x", zSql, nRow);
  snprintf(zSql, sizeof(zSql),
           "SELECT sum(cuckoo_count(f)) FROM (SELECT cuckoo_agg(x) OVER "
           "(ORDER BY id ROWS %lld PRECEDING) AS f FROM t)",
           nFrame - 1);
  tWin = run(db, zSql, &sum, 0, 0);
  snprintf(zSql, sizeof(zSql),
           "SELECT cuckoo_agg(x) FROM (SELECT x FROM t LIMIT %lld)", nFrame);
  tOne = best(db, zSql, 5, 0);
  printf("%9lld %9lld %10.3f %12.2f %16.2f %9.0fx\n", nRow, nFrame, tWin,
         tWin / (double)nRow * 1e6, tOne * 1e6, tOne / (tWin / (double)nRow));
  fflush(stdout);
  sqlite3_close(db);
  remove(zDbFile);
}

int main(void) {
  const char *z = getenv("BENCH_SCALE");
  sqlite3_int64 scale = z ? atoll(z) : 1, n;
  tl_zProgram = "agg_bench";
  if (scale < 1) scale = 1;
  sqlite3_auto_extension((void (*)(void))sqlite3_cuckoo_init);

  printf("Bulk build: cuckoo_agg(x) vs CREATE INDEX and count(DISTINCT x) "
         "(CPU seconds, warm cache; ss: the 'semisort' variant)\n");
  printf("%9s %-6s %9s %7s %7s %8s %8s %7s %7s %10s %11s %6s %5s %7s %6s\n",
         "rows", "type", "distinct", "agg", "agg ss", "index", "distinct",
         "agg/idx", "agg/dst", "filter B", "index B", "f/idx", "bits", "ss/idx",
         "ssB/iB");
  for (n = 1000000; n <= 10000000; n *= 10) {
    bulk(n / scale, K_INT64);
    bulk(n / scale, K_INT32);
    bulk(n / scale, K_TEXT);
  }

  printf("\nGROUP BY: cuckoo_agg per group vs CREATE INDEX on (g, x) "
         "(CPU seconds)\n");
  printf("%9s %7s %12s %14s %12s %9s %11s\n", "rows", "groups", "agg exact",
         "agg capacity", "index (g,x)", "exact/idx", "capacity/idx");
  groupby(10000000 / scale, 10000 / (scale > 100 ? 100 : scale));

  printf("\nSliding window: cuckoo_agg(x) OVER (ROWS F-1 PRECEDING)\n");
  printf("%9s %9s %10s %12s %16s %10s\n", "rows", "frame F", "total s",
         "us per row", "rebuild F: us", "saving");
  for (n = 1000; n <= 100000; n *= 10) {
    window(200000 / scale, n / scale > 0 ? n / scale : 1);
  }
  return 0;
}
