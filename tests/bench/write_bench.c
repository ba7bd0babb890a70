/*
** Copyright (c) 2026 the cuckoo authors.  MIT License: see LICENSE.
**
** write_bench.c: the write shapes applications use, each through the loadable
** extension (./cuckoo.so, or $CUCKOO_EXT, loaded with
** sqlite3_load_extension() as users load it), each printed next to its
** alternative measured in this run, as a ratio with its target:
**
**   1. 3*10^6 ascending integers, BEGIN; INSERT INTO seen(item) SELECT x
**      FROM src; COMMIT, into a cuckoo table sized for them against the
**      same into a heap table (CREATE TABLE heap(item)): rollback journal
**      (the default, journal_mode=DELETE) and WAL (target <= 1.0x both).
**   2. 2*10^6 TEXT items (32 hex characters) in one transaction, the same
**      two tables (target <= 0.8x).
**   3. The same TEXT items with INSERT OR IGNORE against plain INSERT, both
**      into the cuckoo table (target <= 1.15x).
**   4. INSERT OR IGNORE of the TEXT items: the cuckoo table against a
**      CREATE TABLE pk(item TEXT PRIMARY KEY) with OR IGNORE (<= 0.1x).
**   (5. executemany from Python's sqlite3: tests/bench/write_bench.py.)
**
** Each run is a new user's load: a process of its own (fork()), a fresh
** copy of a database file holding only the source table (built once in
** build/bench/), a new connection with the extension loaded, the table
** created, then BEGIN; INSERT ...; COMMIT timed (CPU seconds of that
** process, user and system, bench.h: the fsyncs of a commit are not in
** it).  So no run finds memory, pages or freed pages of another.  The
** median of 3 runs (BENCH_RUNS, 1 to 15, sets how many), the two sides
** taking turns; SQLite's default synchronous setting.
**
** Every shape runs twice, one table each: with a page cache of 1 GiB
** (PRAGMA cache_size=-1048576, the setting of the measurements the
** targets were set from), then with SQLite's default page cache (2 MB).
** With 1 GiB every page the statement reads or writes is new memory of
** the process (user and system time on both sides, more on the heap
** table's, which writes tens of MB of pages where the cuckoo table writes
** a few); with 2 MB the same few pages are used again and the heap table
** writes its pages out as it goes.  BENCH_SCALE (default 1) divides every
** size.  Run by `make bench` and `make bench-write`.
*/
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "bench.h"

static const char *zDbFile = "build/bench/write_bench.db";
static const char *zIntsFile = "build/bench/write_bench_ints.db";
static const char *zWordsFile = "build/bench/write_bench_words.db";
static const char *zExt = "./cuckoo.so"; /* or $CUCKOO_EXT */
#define MAX_RUNS 15
static int nRuns = 3; /* runs of each side, or $BENCH_RUNS */

static void row(const char *zWhat, double ours, double alt, double target) {
  double r = alt > 0 ? ours / alt : 0;
  printf("| %-66s | %8.3f s | %8.3f s | %6.2fx | <= %.2fx | %-3s |\n", zWhat,
         ours, alt, r, target, r <= target ? "yes" : "no");
  fflush(stdout);
}

static void copy_file(const char *zFrom, const char *zTo) {
  static char buf[1 << 16];
  FILE *in = fopen(zFrom, "rb"), *out;
  size_t n;
  if (in == 0) tl_die("cannot read %s", zFrom);
  bench_remove_db(zTo);
  out = fopen(zTo, "wb");
  if (out == 0) tl_die("cannot write %s", zTo);
  while ((n = fread(buf, 1, sizeof(buf), in)) > 0) {
    if (fwrite(buf, 1, n, out) != n) tl_die("cannot write %s", zTo);
  }
  fclose(in);
  if (fclose(out) != 0) tl_die("cannot write %s", zTo);
}

/* One side of a shape: zCreate makes its table (untimed), zInsert is
** timed inside BEGIN ... COMMIT. */
typedef struct side {
  const char *zCreate;
  const char *zInsert;
  double a[MAX_RUNS];
} side;

/* The settings of a shape's runs. */
typedef struct setup {
  const char *zBase;    /* database file with the source table */
  const char *zJournal; /* journal_mode */
  int nCacheKib;        /* cache_size in KiB, 0 for SQLite's default */
} setup;

/* One run in a process of its own (see the header): its CPU seconds. */
static double run_one(const setup *pSet, const char *zCreate,
                      const char *zInsert) {
  int fd[2], status = 0;
  double t = -1;
  pid_t pid;
  fflush(stdout);
  if (pipe(fd) != 0) tl_die("pipe failed");
  pid = fork();
  if (pid < 0) tl_die("fork failed");
  if (pid == 0) {
    sqlite3 *db;
    char zSql[100];
    double t0;
    close(fd[0]);
    copy_file(pSet->zBase, zDbFile);
    db = bench_open_existing(zDbFile, zExt);
    snprintf(zSql, sizeof(zSql), "PRAGMA journal_mode=%s", pSet->zJournal);
    tl_exec(db, zSql);
    if (pSet->nCacheKib) {
      snprintf(zSql, sizeof(zSql), "PRAGMA cache_size=-%d", pSet->nCacheKib);
      tl_exec(db, zSql);
    }
    tl_exec(db, zCreate);
    t0 = cpu();
    tl_exec(db, "BEGIN");
    tl_exec(db, zInsert);
    tl_exec(db, "COMMIT");
    t = cpu() - t0;
    if (sqlite3_close(db) != SQLITE_OK) tl_die("close failed");
    if (write(fd[1], &t, sizeof(t)) != (ssize_t)sizeof(t)) _exit(2);
    _exit(0);
  }
  close(fd[1]);
  if (read(fd[0], &t, sizeof(t)) != (ssize_t)sizeof(t)) t = -1;
  close(fd[0]);
  if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status) ||
      WEXITSTATUS(status) != 0 || t < 0) {
    tl_die("a run failed: %s", zInsert);
  }
  return t;
}

/* nRuns runs of each side, taking turns. */
static void pair(const setup *pSet, side *pOurs, side *pAlt) {
  int i;
  for (i = 0; i < nRuns; i++) {
    pAlt->a[i] = run_one(pSet, pAlt->zCreate, pAlt->zInsert);
    pOurs->a[i] = run_one(pSet, pOurs->zCreate, pOurs->zInsert);
  }
}

/* The median of a side's runs. */
static double med(double *a) { return median_n(a, nRuns); }

/* The database file zFile with the table made by zSql, and nothing else. */
static void make_base(const char *zFile, const char *zSql) {
  sqlite3 *db = bench_open(zFile, 0);
  tl_exec(db, zSql);
  if (sqlite3_close(db) != SQLITE_OK) tl_die("close failed");
}

/* The two sides of a load of n items from zSelect: a cuckoo table sized
** for them (its CREATE written into zCreateSeen) and a heap table. */
static void load_sides(side *pOurs, side *pAlt, char *zCreateSeen,
                       size_t nCreateSeen, sqlite3_int64 n,
                       const char *zSelect) {
  static char zOurs[100], zAlt[100];
  snprintf(zCreateSeen, nCreateSeen,
           "CREATE VIRTUAL TABLE seen USING cuckoo(capacity=%lld)", n);
  snprintf(zOurs, sizeof(zOurs), "INSERT INTO seen(item) %s", zSelect);
  snprintf(zAlt, sizeof(zAlt), "INSERT INTO heap(item) %s", zSelect);
  pOurs->zCreate = zCreateSeen;
  pOurs->zInsert = zOurs;
  pAlt->zCreate = "CREATE TABLE heap(item)";
  pAlt->zInsert = zAlt;
}

/* Every shape with a page cache of nCacheKib KiB (0: SQLite's default). */
static void shapes(sqlite3_int64 nInt, sqlite3_int64 nText, int nCacheKib) {
  char zCreateSeen[200], zWhat[100];
  side ours, alt, plain, ignore, pk;
  setup set;
  int j;
  static const char *azJournal[] = {"DELETE", "WAL"};

  if (nCacheKib) {
    printf("Page cache of %d MiB (PRAGMA cache_size=-%d):\n\n",
           nCacheKib / 1024, nCacheKib);
  } else {
    printf("\nSQLite's default page cache:\n\n");
  }
  printf("| %-66s | %10s | %10s | %7s | %-8s | met |\n", "shape", "cuckoo",
         "other", "ratio", "target");
  printf("| --- | ---: | ---: | ---: | --- | --- |\n");
  set.nCacheKib = nCacheKib;

  /* 1. ascending integers in BEGIN ... COMMIT, both journal modes */
  load_sides(&ours, &alt, zCreateSeen, sizeof(zCreateSeen), nInt,
             "SELECT x FROM src");
  set.zBase = zIntsFile;
  for (j = 0; j < 2; j++) {
    set.zJournal = azJournal[j];
    pair(&set, &ours, &alt);
    snprintf(zWhat, sizeof(zWhat),
             "%lld ascending ints, BEGIN..COMMIT, %s: table / heap", nInt,
             j ? "WAL" : "rollback journal");
    row(zWhat, med(ours.a), med(alt.a), 1.0);
  }

  /* 2-4. TEXT items, rollback journal */
  set.zBase = zWordsFile;
  set.zJournal = "DELETE";
  load_sides(&plain, &alt, zCreateSeen, sizeof(zCreateSeen), nText,
             "SELECT w FROM words");
  pair(&set, &plain, &alt);
  snprintf(zWhat, sizeof(zWhat),
           "%lld TEXT items (32 hex), in a transaction: table / heap", nText);
  row(zWhat, med(plain.a), med(alt.a), 0.8);

  ignore.zCreate = zCreateSeen;
  ignore.zInsert = "INSERT OR IGNORE INTO seen(item) SELECT w FROM words";
  pair(&set, &ignore, &plain);
  row("the same, INSERT OR IGNORE / plain INSERT into the table", med(ignore.a),
      med(plain.a), 1.15);

  pk.zCreate = "CREATE TABLE pk(item TEXT PRIMARY KEY)";
  pk.zInsert = "INSERT OR IGNORE INTO pk(item) SELECT w FROM words";
  pair(&set, &ignore, &pk);
  row("OR IGNORE TEXT: table / TEXT PRIMARY KEY table", med(ignore.a),
      med(pk.a), 0.1);
}

int main(void) {
  const char *z = getenv("BENCH_SCALE");
  int scale = z && atoi(z) > 0 ? atoi(z) : 1;
  sqlite3_int64 nInt = 3000000 / scale, nText = 2000000 / scale;
  char zSql[300];

  tl_zProgram = "write_bench";
  if (getenv("CUCKOO_EXT")) zExt = getenv("CUCKOO_EXT");
  z = getenv("BENCH_RUNS");
  if (z && *z) {
    char *zEnd = 0;
    long n = strtol(z, &zEnd, 10);
    if (*zEnd || n < 1 || n > MAX_RUNS) {
      tl_die("BENCH_RUNS is %s: give a number of runs from 1 to %d", z,
             MAX_RUNS);
    }
    nRuns = (int)n;
  }
  printf("write_bench: the write shapes through %s, SQLite %s, each run a "
         "new process on a fresh copy of the source, median of %d "
         "(BENCH_SCALE=%d, BENCH_RUNS=%d)\n\n",
         zExt, sqlite3_libversion(), nRuns, scale, nRuns);
  snprintf(zSql, sizeof(zSql),
           "CREATE TABLE src(x INTEGER); WITH RECURSIVE s(i) AS (SELECT 1 "
           "UNION ALL SELECT i + 1 FROM s WHERE i < %lld) INSERT INTO src "
           "SELECT i FROM s",
           nInt);
  make_base(zIntsFile, zSql);
  snprintf(zSql, sizeof(zSql),
           "CREATE TABLE words(w TEXT); WITH RECURSIVE s(i) AS (SELECT 1 "
           "UNION ALL SELECT i + 1 FROM s WHERE i < %lld) INSERT INTO words "
           "SELECT lower(hex(randomblob(16))) FROM s",
           nText);
  make_base(zWordsFile, zSql);
  shapes(nInt, nText, 1 << 20);
  shapes(nInt, nText, 0);
  bench_remove_db(zDbFile);
  bench_remove_db(zIntsFile);
  bench_remove_db(zWordsFile);
  return 0;
}
