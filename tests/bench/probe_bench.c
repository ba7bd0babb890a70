/*
** Copyright (c) 2026 the cuckoo authors.  MIT License: see LICENSE.
**
** probe_bench.c: probing a filter stored in a table, every documented
** form against the filter bound as a parameter, in one run (make
** bench-probe; make bench runs it too).
**
** For filters of about 0.17, 1.75, 17.5 and 100 MB (cuckoo_agg() of
** 10^5 .. 5.7*10^7 integers, the default error rate) stored in
** filters(name TEXT PRIMARY KEY, filter BLOB), 20,000 probe rows (random
** integers, about half of them present) are probed by:
**
**   subquery      cuckoo_contains((SELECT filter FROM filters WHERE
**                 name = 'f'), item)                      (today's form)
**   join          FROM items, filters WHERE name = 'f' AND
**                 cuckoo_contains(filter, item)            (today's form)
**   stored join   FROM items, filters WHERE name = 'f' AND
**                 cuckoo_contains_stored('filters', 'filter',
**                 filters.rowid, item)
**   stored subq.  cuckoo_contains_stored('filters', 'filter', (SELECT
**                 rowid FROM filters WHERE name = 'f'), item)
**   bound         cuckoo_contains(?1, item), the BLOB bound with
**                 sqlite3_bind_blob(SQLITE_STATIC) (the application
**                 already holds it; reading it is not timed)
**
** each as one statement summing the answers, timed in CPU seconds of this
** process (user + system), the median of 3; the table gives microseconds
** per probe row and the ratio to the bound form (the goal of
** docs/reference.md: at most 2x).  Today's forms copy the whole BLOB per
** row, so from 17.5 MB on they run over fewer rows (the table says how
** many): their time per row does not depend on the row count.
**
** A second table: one probe per statement (a prepared statement reset and
** stepped once per item, 2,000 items), the latency of a lookup in an
** application that asks one question at a time.
**
** The SQL runs the loadable ./cuckoo.so (or $CUCKOO_EXT), as users run
** it.  The database is a file (build/bench/probe_bench.db) with a 1 GiB
** page cache, so every form reads the filter from memory.  BENCH_SCALE
** (default 1) divides the filter sizes.
*/
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"

static const char *zDbFile = "build/bench/probe_bench.db";
static const char *zExt = "./cuckoo.so"; /* or $CUCKOO_EXT */

#define N_ROWS 20000
#define N_SINGLE 2000

/* CPU seconds of zSql stepped to the end; the BLOB a[0..n) bound to ?1
** when a is not NULL; its first column's value in *pv. */
static double timed(sqlite3 *db, const char *zSql, const void *a, int n,
                    double *pv) {
  sqlite3_stmt *s = 0;
  double t0 = cpu();
  if (sqlite3_prepare_v2(db, zSql, -1, &s, 0) != SQLITE_OK) bench_die(db, zSql);
  if (a) sqlite3_bind_blob(s, 1, a, n, SQLITE_STATIC);
  while (sqlite3_step(s) == SQLITE_ROW) {
    *pv = sqlite3_column_double(s, 0);
  }
  if (sqlite3_finalize(s) != SQLITE_OK) bench_die(db, zSql);
  return cpu() - t0;
}

/* CPU seconds of nItem statements of one probe each: zSql prepared once,
** item ?2 (and the BLOB ?1 if a) bound, stepped once, reset; the answers
** summed in *pv. */
static double timed_single(sqlite3 *db, const char *zSql, const void *a, int n,
                           int nItem, double *pv) {
  sqlite3_stmt *s = 0;
  double t0 = cpu();
  int i;
  *pv = 0;
  if (sqlite3_prepare_v2(db, zSql, -1, &s, 0) != SQLITE_OK) bench_die(db, zSql);
  for (i = 0; i < nItem; i++) {
    if (a) sqlite3_bind_blob(s, 1, a, n, SQLITE_STATIC);
    sqlite3_bind_int64(s, 2, (sqlite3_int64)((i * 2654435761u) % 200000));
    if (sqlite3_step(s) != SQLITE_ROW) bench_die(db, zSql);
    *pv += sqlite3_column_double(s, 0);
    sqlite3_reset(s);
  }
  if (sqlite3_finalize(s) != SQLITE_OK) bench_die(db, zSql);
  return cpu() - t0;
}

static sqlite3 *open_db(void) {
  sqlite3 *db = bench_open(zDbFile, zExt);
  tl_exec(db, "PRAGMA cache_size=-1048576; PRAGMA synchronous=OFF");
  return db;
}

/* The forms, as (name, SQL, rows divisor flag): today's forms run over
** fewer rows for big filters. */
static const struct {
  const char *zName;
  const char *zSql; /* %s: the items table */
  int bToday;
  int bBound;
} aForm[] = {
    {"subquery (today)",
     "SELECT total(cuckoo_contains((SELECT filter FROM filters WHERE name = "
     "'f'), item)) FROM %s",
     1, 0},
    {"join (today)",
     "SELECT total(cuckoo_contains(filter, item)) FROM %s, filters WHERE "
     "filters.name = 'f'",
     1, 0},
    {"stored, join",
     "SELECT total(cuckoo_contains_stored('filters', 'filter', "
     "filters.rowid, item)) FROM %s, filters WHERE filters.name = 'f'",
     0, 0},
    {"stored, subquery",
     "SELECT total(cuckoo_contains_stored('filters', 'filter', (SELECT "
     "rowid FROM filters WHERE name = 'f'), item)) FROM %s",
     0, 0},
    {"bound", "SELECT total(cuckoo_contains(?1, item)) FROM %s", 0, 1},
};
#define N_FORM (int)(sizeof(aForm) / sizeof(aForm[0]))

/* The lines of the one-probe-per-statement table, printed last. */
static char zSingle[4][200];
static int nSize = 0;

/* One filter of nItem items: the per-row table's line. */
static void one_size(sqlite3 *db, sqlite3_int64 nItem) {
  char zSql[600];
  double a[N_FORM][3], us[N_FORM], v[N_FORM];
  int nRows[N_FORM];
  sqlite3_stmt *s = 0;
  void *pF;
  int nF, i, r;
  double mb;

  tl_exec(db, "DELETE FROM filters");
  snprintf(zSql, sizeof(zSql),
           "WITH RECURSIVE s(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM s "
           "WHERE i < %lld) INSERT INTO filters SELECT 'f', cuckoo_agg(i) "
           "FROM s",
           nItem);
  tl_exec(db, zSql);
  if (sqlite3_prepare_v2(db, "SELECT filter FROM filters", -1, &s, 0) !=
          SQLITE_OK ||
      sqlite3_step(s) != SQLITE_ROW) {
    bench_die(db, "SELECT filter");
  }
  nF = sqlite3_column_bytes(s, 0);
  pF = malloc((size_t)nF);
  if (pF == 0) exit(2);
  memcpy(pF, sqlite3_column_blob(s, 0), (size_t)nF);
  sqlite3_finalize(s);
  mb = (double)nF / 1e6;
  /* items: N_ROWS random integers in [1, 2 nItem]; fewer rows for today's
  ** forms on big filters (the first rows of items) */
  tl_exec(db, "DROP TABLE IF EXISTS items; DROP VIEW IF EXISTS few");
  snprintf(zSql, sizeof(zSql),
           "CREATE TABLE items(item INTEGER);"
           "WITH RECURSIVE s(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM s "
           "WHERE i < %d) INSERT INTO items SELECT 1 + abs(random() %% %lld) "
           "FROM s",
           N_ROWS, 2 * nItem);
  tl_exec(db, zSql);
  for (i = 0; i < N_FORM; i++) {
    nRows[i] = N_ROWS;
    if (aForm[i].bToday && mb > 10) nRows[i] = mb > 50 ? 100 : 1000;
  }
  /* warm the page cache */
  timed(db, "SELECT length(filter) FROM filters", 0, 0, &v[0]);
  for (r = 0; r < 3; r++) {
    for (i = 0; i < N_FORM; i++) {
      char zFrom[64];
      if (nRows[i] < N_ROWS) {
        snprintf(zFrom, sizeof(zFrom), "(SELECT item FROM items LIMIT %d)",
                 nRows[i]);
      } else {
        snprintf(zFrom, sizeof(zFrom), "items");
      }
      snprintf(zSql, sizeof(zSql), aForm[i].zSql, zFrom);
      a[i][r] = timed(db, zSql, aForm[i].bBound ? pF : 0, nF, &v[i]);
    }
  }
  for (i = 0; i < N_FORM; i++) {
    us[i] = median3(a[i]) / nRows[i] * 1e6;
  }
  /* the stored forms answer as the bound form does */
  if (v[2] != v[4] || v[3] != v[4]) {
    printf("probe_bench: answers differ: %g %g %g\n", v[2], v[3], v[4]);
    exit(1);
  }
  printf("| %6.2f MB | %9.3f (%d) | %9.3f (%d) | %7.3f | %7.3f | %7.3f | "
         "%5.2fx | %5.2fx |\n",
         mb, us[0], nRows[0], us[1], nRows[1], us[2], us[3], us[4],
         us[2] / us[4], us[3] / us[4]);
  fflush(stdout);

  /* one probe per statement */
  {
    static const char *azSingle[] = {
        "SELECT cuckoo_contains((SELECT filter FROM filters WHERE name = "
        "'f'), ?2)",
        "SELECT cuckoo_contains_stored('filters', 'filter', (SELECT rowid "
        "FROM filters WHERE name = 'f'), ?2)",
        "SELECT cuckoo_contains(?1, ?2)"};
    double b[3][3], w[3];
    int nSingle[3];
    nSingle[0] = mb > 50 ? 20 : mb > 10 ? 100 : N_SINGLE;
    nSingle[1] = nSingle[2] = N_SINGLE;
    for (r = 0; r < 3; r++) {
      for (i = 0; i < 3; i++) {
        b[i][r] = timed_single(db, azSingle[i], i == 2 ? pF : 0, nF, nSingle[i],
                               &w[i]);
      }
    }
    snprintf(zSingle[nSize++], sizeof(zSingle[0]),
             "| %6.2f MB | %9.2f (%d) | %9.2f | %9.2f |\n", mb,
             median3(b[0]) / nSingle[0] * 1e6, nSingle[0],
             median3(b[1]) / nSingle[1] * 1e6,
             median3(b[2]) / nSingle[2] * 1e6);
  }
  free(pF);
}

int main(void) {
  const char *z = getenv("BENCH_SCALE");
  int scale = 1, i;
  sqlite3 *db;
  tl_zProgram = "probe_bench";
  if (z && atoi(z) > 0) scale = atoi(z);
  if (getenv("CUCKOO_EXT")) zExt = getenv("CUCKOO_EXT");
  db = open_db();
  tl_exec(db, "CREATE TABLE filters(name TEXT PRIMARY KEY, filter BLOB)");
  printf("Probing a stored filter, %d probe rows (µs per row, CPU time, "
         "median of 3;\nratio = stored form / bound form; in parentheses: "
         "rows of today's forms; BENCH_SCALE=%d)\n\n",
         N_ROWS, scale);
  printf("| filter | subquery (today) | join (today) | stored, join | "
         "stored, subquery | bound | join / bound | subquery / bound |\n");
  printf("| ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |\n");
  one_size(db, 100000 / scale);
  one_size(db, 1000000 / scale);
  one_size(db, 10000000 / scale);
  one_size(db, 57000000 / scale);
  printf("\nOne probe per statement (µs per statement, CPU time, median of 3; "
         "%d statements,\nin parentheses for today's subquery form)\n\n"
         "| filter | subquery (today) | stored, subquery | bound |\n"
         "| ---: | ---: | ---: | ---: |\n",
         N_SINGLE);
  for (i = 0; i < nSize; i++)
    printf("%s", zSingle[i]);
  sqlite3_close(db);
  remove(zDbFile);
  return 0;
}
