/*
** Copyright (c) 2026 the cuckoo authors.  MIT License: see LICENSE.
**
** testlib.h: what every C test and benchmark of tests/ shares, so that
** they check, count and report one way (SQLite's Tcl tests share
** tester.tcl the same way).
**
**   CHECK(cond)              count a check; print it when it fails
**   CHECKF(cond, fmt, ...)   the same with a printf-style context
**   tl_check(ok, fmt, ...)   the function behind them, for a check whose
**                            text is built at run time
**   tl_report(zName)         print "zName: N passed, N failed" (the one
**                            closing line tests/run.tcl and tests/suite.sh
**                            count) and return the exit status
**   tl_die(fmt, ...)         print "<program>: message" and exit(2): for a
**                            failure of the harness itself, not a check
**   tl_xmalloc(n)            malloc or die
**   tl_open(zFile)           open a database (":memory:" or a file) or die
**   tl_exec(db, zSql)        run SQL or die, naming the statement
**   tl_prep(db, zSql)        prepare a statement or die
**   tl_one_int(db, zSql)     the first column of the first row, or die
**   tl_rnd(&state)           splitmix64: the one random generator, always
**                            seeded explicitly
**
** The programs are single files: everything here is static.  tl_zProgram
** names the program in messages (set it first thing in main()); failed
** checks are printed up to TL_MAX_REPORTED, all are counted.  Include it
** after <sqlite3.h> for the SQL helpers (without it they are left out:
** core_test links no SQLite).
*/
#ifndef TESTLIB_H
#define TESTLIB_H

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#define TL_MAX_REPORTED 100
/* A program uses only some of these: no warning for the others. */
#define TL_FN static __attribute__((unused))

static const char *tl_zProgram = "test";
static int tl_nPass = 0, tl_nFail = 0;

/* Count one check; on failure print the file, line and context. */
TL_FN void tl_check_at(int ok, const char *zFile, int line, const char *zFmt,
                       ...) {
  va_list ap;
  if (ok) {
    tl_nPass++;
    return;
  }
  tl_nFail++;
  if (tl_nFail > TL_MAX_REPORTED) return;
  printf("! %s:%d: ", zFile, line);
  va_start(ap, zFmt);
  vprintf(zFmt, ap);
  va_end(ap);
  printf("\n");
  fflush(stdout);
}

#define CHECK(cond) tl_check_at((cond) != 0, __FILE__, __LINE__, "%s", #cond)
#define CHECKF(cond, ...)                                                      \
  tl_check_at((cond) != 0, __FILE__, __LINE__, __VA_ARGS__)
#define tl_check(ok, ...)                                                      \
  tl_check_at((ok) != 0, __FILE__, __LINE__, __VA_ARGS__)

/* The closing line; the exit status of the program. */
TL_FN int tl_report(const char *zName) {
  printf("%s: %d passed, %d failed\n", zName, tl_nPass, tl_nFail);
  fflush(stdout);
  return tl_nFail ? 1 : 0;
}

/* A failure of the harness (not of a check): message and exit(2). */
TL_FN void tl_die(const char *zFmt, ...) {
  va_list ap;
  fflush(stdout);
  fprintf(stderr, "%s: ", tl_zProgram);
  va_start(ap, zFmt);
  vfprintf(stderr, zFmt, ap);
  va_end(ap);
  fprintf(stderr, "\n");
  exit(2);
}

TL_FN void *tl_xmalloc(size_t n) {
  void *p = malloc(n ? n : 1);
  if (p == 0) tl_die("out of memory (%zu bytes)", n);
  return p;
}

/* splitmix64 over *pState. */
TL_FN uint64_t tl_rnd(uint64_t *pState) {
  uint64_t z = (*pState += 0x9e3779b97f4a7c15ULL);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

#ifdef SQLITE_VERSION
TL_FN sqlite3 *tl_open(const char *zFile) {
  sqlite3 *db = 0;
  if (sqlite3_open(zFile, &db) != SQLITE_OK) {
    tl_die("cannot open %s: %s", zFile, db ? sqlite3_errmsg(db) : "");
  }
  return db;
}

TL_FN void tl_exec(sqlite3 *db, const char *zSql) {
  char *zErr = 0;
  if (sqlite3_exec(db, zSql, 0, 0, &zErr) != SQLITE_OK) {
    tl_die("%s: %s", zSql, zErr ? zErr : sqlite3_errmsg(db));
  }
}

TL_FN sqlite3_stmt *tl_prep(sqlite3 *db, const char *zSql) {
  sqlite3_stmt *s = 0;
  if (sqlite3_prepare_v2(db, zSql, -1, &s, 0) != SQLITE_OK) {
    tl_die("%s: %s", zSql, sqlite3_errmsg(db));
  }
  return s;
}

TL_FN sqlite3_int64 tl_one_int(sqlite3 *db, const char *zSql) {
  sqlite3_stmt *s = tl_prep(db, zSql);
  sqlite3_int64 v;
  if (sqlite3_step(s) != SQLITE_ROW) tl_die("%s: no row", zSql);
  v = sqlite3_column_int64(s, 0);
  sqlite3_finalize(s);
  return v;
}
#endif /* SQLITE_VERSION */

#endif /* TESTLIB_H */
