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
**   tl_db_dump(db)           the whole database as one string (schema,
**                            then every row of every ordinary table,
**                            sorted; NULL if a query failed)
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
#include <string.h>

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

TL_FN int tl_cmp_str(const void *a, const void *b) {
  return strcmp(*(char *const *)a, *(char *const *)b);
}

/*
** The whole database as one string: the schema, then every row of every
** table but virtual ones (their shadow tables are ordinary tables), rows
** sorted.  NULL if a query failed.  Run without injection.
*/
TL_FN char *tl_db_dump(sqlite3 *db) {
  sqlite3_str *pOut = sqlite3_str_new(0);
  sqlite3_stmt *pTab = 0;
  int rc;
  sqlite3_str_appendall(pOut, "database\n"); /* never an empty string */
  rc = sqlite3_prepare_v2(
      db, "SELECT name, type, sql FROM sqlite_master ORDER BY name, type", -1,
      &pTab, 0);
  while (rc == SQLITE_OK && sqlite3_step(pTab) == SQLITE_ROW) {
    const char *zName = (const char *)sqlite3_column_text(pTab, 0);
    const char *zType = (const char *)sqlite3_column_text(pTab, 1);
    const char *zSqlT = (const char *)sqlite3_column_text(pTab, 2);
    char **azRow = 0;
    int nRow = 0, nAlloc = 0, i;
    sqlite3_stmt *pRows = 0;
    char *zQ;
    sqlite3_str_appendf(pOut, "%s %s %s\n", zType, zName, zSqlT ? zSqlT : "");
    if (strcmp(zType, "table") != 0 || !zSqlT ||
        strncmp(zSqlT, "CREATE VIRTUAL", 14) == 0) {
      continue;
    }
    zQ = sqlite3_mprintf("SELECT * FROM \"%w\"", zName);
    rc = sqlite3_prepare_v2(db, zQ, -1, &pRows, 0);
    sqlite3_free(zQ);
    while (rc == SQLITE_OK && sqlite3_step(pRows) == SQLITE_ROW) {
      sqlite3_str *pRow = sqlite3_str_new(0);
      int c;
      for (c = 0; c < sqlite3_column_count(pRows); c++) {
        const unsigned char *a = sqlite3_column_blob(pRows, c);
        int n = sqlite3_column_bytes(pRows, c), b;
        sqlite3_str_appendf(pRow, "|%d:", sqlite3_column_type(pRows, c));
        for (b = 0; b < n; b++)
          sqlite3_str_appendf(pRow, "%02x", a[b]);
      }
      if (nRow == nAlloc) {
        nAlloc = nAlloc ? 2 * nAlloc : 64;
        azRow = realloc(azRow, sizeof(char *) * (size_t)nAlloc);
        if (azRow == 0) abort();
      }
      azRow[nRow++] = sqlite3_str_finish(pRow);
    }
    sqlite3_finalize(pRows);
    if (nRow) qsort(azRow, (size_t)nRow, sizeof(char *), tl_cmp_str);
    for (i = 0; i < nRow; i++) {
      sqlite3_str_appendf(pOut, "%s\n", azRow[i] ? azRow[i] : "?");
      sqlite3_free(azRow[i]);
    }
    free(azRow);
  }
  sqlite3_finalize(pTab);
  if (rc != SQLITE_OK) {
    sqlite3_free(sqlite3_str_finish(pOut));
    return 0;
  }
  return sqlite3_str_finish(pOut);
}
#endif /* SQLITE_VERSION */

#endif /* TESTLIB_H */
