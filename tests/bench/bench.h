/*
** Copyright (c) 2026 the cuckoo authors.  MIT License: see LICENSE.
**
** bench.h: what every benchmark of tests/bench shares, and nothing that
** uses the extension (so that bulk_load.c still builds against the
** sources of any commit).  Its whole API:
**
**   double cpu(void)            the one clock of every benchmark: CPU
**                               seconds (user + system, all threads) of
**                               this process, CLOCK_PROCESS_CPUTIME_ID.
**                               On a shared machine it leaves out the
**                               time other jobs hold the CPU, which wall
**                               time does not.  Time spent waiting for
**                               the disk is not counted either: a
**                               benchmark of I/O says so and reports
**                               what it read (vtab_bench's cold lookup).
**   double median3(double *a)   median_n(a, 3): the median of a[0..2] (a
**                               is sorted), for a figure taken three
**                               times.
**   double median_n(double *a, int n)
**                               the median of a[0..n-1] (a is sorted;
**                               for an even n, the mean of the middle
**                               two), for a figure taken n times.
**
** Included after <sqlite3.h>, it brings tests/testlib.h's helpers (tl_die,
** tl_exec, tl_open, ...: a benchmark names itself in their messages by
** setting tl_zProgram first thing in main()) and these:
**
**   bench_die(db, zWhat)        "<program>: zWhat: <SQLite's message>" and
**                               exit: a failure of the benchmark itself
**   bench_remove_db(zFile)      delete a database file and its -journal,
**                               -wal and -shm files
**   bench_open(zFile, zExt)     bench_remove_db(zFile), then a connection
**                               to the new empty database with the
**                               extension zExt loaded as users load it
**                               (sqlite3_load_extension; none when zExt is
**                               NULL: the extension is linked in), or die
**   bench_open_existing(zFile, zExt)
**                               the same on the database zFile as it is
**
** A new benchmark includes "bench.h", times with cpu() and is built and
** run by tests/bench/Makefile (every *_bench.c).
*/
#ifndef CUCKOO_BENCH_H
#define CUCKOO_BENCH_H

#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

static inline double cpu(void) {
  struct timespec ts;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static inline int bench_cmp_double(const void *pA, const void *pB) {
  double x = *(const double *)pA, y = *(const double *)pB;
  return (x > y) - (x < y);
}

static inline double median_n(double *a, int n) {
  qsort(a, (size_t)n, sizeof(double), bench_cmp_double);
  return n % 2 ? a[n / 2] : (a[n / 2 - 1] + a[n / 2]) / 2;
}

static inline double median3(double *a) { return median_n(a, 3); }

#ifdef SQLITE_VERSION
#include "../testlib.h"

TL_FN void bench_die(sqlite3 *db, const char *zWhat) {
  tl_die("%s: %s", zWhat, db ? sqlite3_errmsg(db) : "no connection");
}

TL_FN void bench_remove_db(const char *zFile) {
  static const char *azSuffix[] = {"", "-journal", "-wal", "-shm"};
  char z[512];
  size_t i;
  for (i = 0; i < sizeof(azSuffix) / sizeof(azSuffix[0]); i++) {
    snprintf(z, sizeof(z), "%s%s", zFile, azSuffix[i]);
    unlink(z);
  }
}

TL_FN sqlite3 *bench_open_existing(const char *zFile, const char *zExt) {
  sqlite3 *db = tl_open(zFile);
  char *zErr = 0;
  if (zExt == 0) return db;
  sqlite3_enable_load_extension(db, 1);
  if (sqlite3_load_extension(db, zExt, "sqlite3_cuckoo_init", &zErr) !=
      SQLITE_OK) {
    tl_die("cannot load %s (build it with make): %s", zExt,
           zErr ? zErr : sqlite3_errmsg(db));
  }
  return db;
}

TL_FN sqlite3 *bench_open(const char *zFile, const char *zExt) {
  bench_remove_db(zFile);
  return bench_open_existing(zFile, zExt);
}
#endif /* SQLITE_VERSION */

#endif /* CUCKOO_BENCH_H */
