/*
** Copyright (c) 2026 the cuckoo authors.  MIT License: see LICENSE.
**
** stream_bench.c: de-duplicating a stream with one commit per batch (make
** bench-stream; make bench runs it too).
**
** 5*10^6 random TEXT items (32 hex characters each, distinct) are
** inserted in batches of 10^4 with INSERT OR IGNORE, one transaction
** (BEGIN ... COMMIT) per batch, into
**
**   sized     a cuckoo table created with capacity=5000000 (one level),
**   default   a cuckoo table of the default capacity (it grows levels),
**   text pk   CREATE TABLE t(item TEXT PRIMARY KEY) (the alternative),
**
** each in a new database file (build/bench/stream.db, 4096-byte pages,
** synchronous=FULL as SQLite defaults to) in the default rollback-journal
** mode and in WAL mode (wal_autocheckpoint at its default 1000 pages, and
** a final PRAGMA wal_checkpoint(TRUNCATE) counted in the run), through the
** loadable ./cuckoo.so (or $CUCKOO_EXT), as users run it.
**
** For each run: wall seconds and CPU seconds (bench.h's cpu(): user +
** system; the difference is mostly waiting for fsync), the bytes written
** per commit and per inserted item, and the file's final size.  Bytes
** written are counted by the kernel: the growth of wchar in
** /proc/self/io, the bytes this process passed to write() and pwrite()
** (the database file, its journal, the WAL, the WAL index and every
** checkpoint; SQLite writes no file any other way here, and this process
** writes nothing else while a run is timed).
**
** BENCH_SCALE (default 1) divides the item count and the sized table's
** capacity (batches stay 10^4 items).  STREAM_SKIP_PK=1 leaves out the
** TEXT PRIMARY KEY runs (most of the time; the extension does not change
** them).  The machine is shared: run it
** more than once and read the figures as noisy.
*/
#include <sqlite3.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <unistd.h>

#include "bench.h"

static const char *zDbFile = "build/bench/stream.db";
static const char *zExt = "./cuckoo.so"; /* or $CUCKOO_EXT */

#define N_ITEMS 5000000
#define N_BATCH 10000

static void die(sqlite3 *db, const char *zSql) {
  printf("stream_bench: %s: %s\n", zSql, sqlite3_errmsg(db));
  exit(1);
}

static void exec(sqlite3 *db, const char *zSql) {
  if (sqlite3_exec(db, zSql, 0, 0, 0) != SQLITE_OK) die(db, zSql);
}

static double wall(void) {
  struct timeval tv;
  gettimeofday(&tv, 0);
  return (double)tv.tv_sec + (double)tv.tv_usec * 1e-6;
}

/* Bytes this process has passed to write system calls (wchar). */
static long long written(void) {
  char line[128];
  long long v = -1;
  FILE *f = fopen("/proc/self/io", "r");
  if (f == 0) return -1;
  while (fgets(line, sizeof(line), f)) {
    if (sscanf(line, "wchar: %lld", &v) == 1) break;
  }
  fclose(f);
  return v;
}

/* Item k of the stream: 32 hex characters of two splitmix64 outputs
** (distinct for distinct k: splitmix64 is a bijection). */
static uint64_t splitmix(uint64_t x) {
  x += 0x9E3779B97F4A7C15ULL;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ULL;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBULL;
  return x ^ (x >> 31);
}
static void item(uint64_t k, char *z) {
  snprintf(z, 33, "%016llx%016llx", (unsigned long long)splitmix(k),
           (unsigned long long)splitmix(k ^ 0x5555555555555555ULL));
}

static void remove_db(void) {
  char z[64];
  unlink(zDbFile);
  snprintf(z, sizeof(z), "%s-journal", zDbFile);
  unlink(z);
  snprintf(z, sizeof(z), "%s-wal", zDbFile);
  unlink(z);
  snprintf(z, sizeof(z), "%s-shm", zDbFile);
  unlink(z);
}

typedef struct result {
  double wall, cpu;
  long long nWritten;
  long long nInserted;
  long long nFile;
  int nCommit;
} result;

/* One run: zCreate makes table t; every batch is one transaction of
** INSERT OR IGNORE INTO t VALUES(?); bWal picks the journal mode. */
static void run(const char *zCreate, int bWal, int nItems, result *r) {
  sqlite3 *db = 0;
  sqlite3_stmt *s = 0;
  char *zErr = 0;
  char z[33];
  long long w0;
  double t0, c0;
  int i, j;
  remove_db();
  if (sqlite3_open(zDbFile, &db) != SQLITE_OK) die(db, "open");
  sqlite3_enable_load_extension(db, 1);
  if (sqlite3_load_extension(db, zExt, 0, &zErr) != SQLITE_OK) {
    printf("stream_bench: cannot load %s: %s\n", zExt, zErr);
    exit(1);
  }
  exec(db, "PRAGMA page_size=4096");
  if (bWal) exec(db, "PRAGMA journal_mode=WAL");
  exec(db, zCreate);
  if (sqlite3_prepare_v2(db, "INSERT OR IGNORE INTO t VALUES(?1)", -1, &s,
                         0) != SQLITE_OK) {
    die(db, "prepare");
  }
  memset(r, 0, sizeof(*r));
  w0 = written();
  t0 = wall();
  c0 = cpu();
  for (i = 0; i < nItems; i += N_BATCH) {
    exec(db, "BEGIN");
    for (j = i; j < i + N_BATCH && j < nItems; j++) {
      item((uint64_t)j, z);
      sqlite3_bind_text(s, 1, z, 32, SQLITE_STATIC);
      if (sqlite3_step(s) != SQLITE_DONE) die(db, "insert");
      r->nInserted += sqlite3_changes(db);
      sqlite3_reset(s);
    }
    exec(db, "COMMIT");
    r->nCommit++;
  }
  if (bWal) exec(db, "PRAGMA wal_checkpoint(TRUNCATE)");
  r->cpu = cpu() - c0;
  r->wall = wall() - t0;
  r->nWritten = written() - w0;
  sqlite3_finalize(s);
  {
    sqlite3_stmt *q = 0;
    if (sqlite3_prepare_v2(db,
                           "SELECT page_count * page_size FROM "
                           "pragma_page_count, pragma_page_size",
                           -1, &q, 0) == SQLITE_OK &&
        sqlite3_step(q) == SQLITE_ROW) {
      r->nFile = sqlite3_column_int64(q, 0);
    }
    sqlite3_finalize(q);
  }
  sqlite3_close(db);
  remove_db();
}

int main(void) {
  static const struct {
    const char *zName;
    const char *zCreate; /* %d: the sized capacity */
  } aTab[] = {
      {"sized", "CREATE VIRTUAL TABLE t USING cuckoo(capacity=%d)"},
      {"default", "CREATE VIRTUAL TABLE t USING cuckoo"},
      {"text pk", "CREATE TABLE t(item TEXT PRIMARY KEY)"},
  };
  const char *zScale = getenv("BENCH_SCALE");
  int scale = zScale ? atoi(zScale) : 1;
  int nItems, iMode, k;
  int bSkipPk = getenv("STREAM_SKIP_PK") && atoi(getenv("STREAM_SKIP_PK"));
  if (scale < 1) scale = 1;
  nItems = N_ITEMS / scale;
  if (getenv("CUCKOO_EXT")) zExt = getenv("CUCKOO_EXT");
  if (written() < 0) {
    printf("stream_bench: /proc/self/io is not readable\n");
    return 1;
  }
  printf("%d random 32-hex TEXT items, batches of %d, INSERT OR IGNORE, "
         "one commit per batch (%d commits)\n",
         nItems, N_BATCH, (nItems + N_BATCH - 1) / N_BATCH);
  printf("%-8s %-8s %9s %9s %14s %12s %11s %12s\n", "journal", "table",
         "wall s", "cpu s", "written/commit", "written/item", "inserted",
         "file bytes");
  for (iMode = 0; iMode < 2; iMode++) {
    for (k = 0; k < 3; k++) {
      char zCreate[128];
      result r;
      if (k == 2 && bSkipPk) continue;
      snprintf(zCreate, sizeof(zCreate), aTab[k].zCreate, N_ITEMS / scale);
      run(zCreate, iMode, nItems, &r);
      printf("%-8s %-8s %9.2f %9.2f %14.0f %12.1f %11lld %12lld\n",
             iMode ? "wal" : "delete", aTab[k].zName, r.wall, r.cpu,
             (double)r.nWritten / r.nCommit,
             (double)r.nWritten / (r.nInserted ? r.nInserted : 1), r.nInserted,
             r.nFile);
      fflush(stdout);
    }
  }
  return 0;
}
