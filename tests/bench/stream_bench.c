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
** them).
**
** STREAM_BEFORE=path: another build of the extension (make bench-stream
** STREAM_BEFORE=<commit> builds ext/ of that commit and sets it).  Each
** cuckoo table is then run with that build and with this one in turn,
** STREAM_ROUNDS times (default 3), and each row shows the median of its
** rounds: the two builds compared in one session, on the same disk and
** load.  Without it, STREAM_ROUNDS defaults to 1.  The TEXT PRIMARY KEY
** table runs once per journal mode either way.
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
  char z[33];
  long long w0;
  double t0, c0;
  int i, j;
  db = bench_open(zDbFile, zExt);
  tl_exec(db, "PRAGMA page_size=4096");
  if (bWal) tl_exec(db, "PRAGMA journal_mode=WAL");
  tl_exec(db, zCreate);
  if (sqlite3_prepare_v2(db, "INSERT OR IGNORE INTO t VALUES(?1)", -1, &s, 0) !=
      SQLITE_OK) {
    bench_die(db, "prepare");
  }
  memset(r, 0, sizeof(*r));
  w0 = written();
  t0 = wall();
  c0 = cpu();
  for (i = 0; i < nItems; i += N_BATCH) {
    tl_exec(db, "BEGIN");
    for (j = i; j < i + N_BATCH && j < nItems; j++) {
      item((uint64_t)j, z);
      sqlite3_bind_text(s, 1, z, 32, SQLITE_STATIC);
      if (sqlite3_step(s) != SQLITE_DONE) bench_die(db, "insert");
      r->nInserted += sqlite3_changes(db);
      sqlite3_reset(s);
    }
    tl_exec(db, "COMMIT");
    r->nCommit++;
  }
  if (bWal) tl_exec(db, "PRAGMA wal_checkpoint(TRUNCATE)");
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
  bench_remove_db(zDbFile);
}

/* The median of n values (a is reordered; n <= 15). */
static double median(double *a, int n) {
  int i, j;
  for (i = 1; i < n; i++) {
    for (j = i; j > 0 && a[j] < a[j - 1]; j--) {
      double x = a[j];
      a[j] = a[j - 1];
      a[j - 1] = x;
    }
  }
  return n % 2 ? a[n / 2] : (a[n / 2 - 1] + a[n / 2]) / 2;
}

#define MAX_ROUNDS 15

/* Runs zCreate nRound times with each extension of azExt (one, or the
** before build and this one in turn) and prints a row per extension:
** the medians of wall, CPU and bytes written. */
static void row(const char *zMode, const char *zName, const char *zCreate,
                int bWal, int nItems, const char **azExt, int nExt,
                int nRound) {
  double aWall[2][MAX_ROUNDS], aCpu[2][MAX_ROUNDS], aW[2][MAX_ROUNDS];
  result r[2]; /* each build's last round: its counts and file size */
  int i, e;
  for (i = 0; i < nRound; i++) {
    for (e = 0; e < nExt; e++) {
      zExt = azExt[e];
      run(zCreate, bWal, nItems, &r[e]);
      aWall[e][i] = r[e].wall;
      aCpu[e][i] = r[e].cpu;
      aW[e][i] = (double)r[e].nWritten;
    }
  }
  for (e = 0; e < nExt; e++) {
    double w = median(aW[e], nRound);
    printf("%-8s %-8s %-7s %9.2f %9.2f %14.0f %12.1f %11lld %12lld\n", zMode,
           zName, nExt == 1 ? "this" : (e == 0 ? "before" : "this"),
           median(aWall[e], nRound), median(aCpu[e], nRound),
           w / r[e].nCommit, w / (r[e].nInserted ? r[e].nInserted : 1),
           r[e].nInserted, r[e].nFile);
  }
  fflush(stdout);
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
  const char *zBefore = getenv("STREAM_BEFORE");
  const char *zRounds = getenv("STREAM_ROUNDS");
  const char *azExt[2];
  int scale = zScale ? atoi(zScale) : 1;
  int nItems, iMode, k, nExt = 1, nRound;
  int bSkipPk = getenv("STREAM_SKIP_PK") && atoi(getenv("STREAM_SKIP_PK"));
  tl_zProgram = "stream_bench";
  if (scale < 1) scale = 1;
  nItems = N_ITEMS / scale;
  if (getenv("CUCKOO_EXT")) zExt = getenv("CUCKOO_EXT");
  if (zBefore && zBefore[0]) {
    azExt[0] = zBefore;
    nExt = 2;
  }
  azExt[nExt - 1] = zExt;
  nRound = zRounds ? atoi(zRounds) : (nExt == 2 ? 3 : 1);
  if (nRound < 1 || nRound > MAX_ROUNDS) {
    printf("stream_bench: STREAM_ROUNDS is %s; allowed: 1 to %d\n", zRounds,
           MAX_ROUNDS);
    return 1;
  }
  if (written() < 0) {
    printf("stream_bench: /proc/self/io is not readable\n");
    return 1;
  }
  printf("%d random 32-hex TEXT items, batches of %d, INSERT OR IGNORE, "
         "one commit per batch (%d commits); median of %d round%s",
         nItems, N_BATCH, (nItems + N_BATCH - 1) / N_BATCH, nRound,
         nRound == 1 ? "" : "s");
  if (nExt == 2) printf("; before = %s, this = %s", azExt[0], azExt[1]);
  printf("\n%-8s %-8s %-7s %9s %9s %14s %12s %11s %12s\n", "journal",
         "table", "build", "wall s", "cpu s", "written/commit",
         "written/item", "inserted", "file bytes");
  for (iMode = 0; iMode < 2; iMode++) {
    const char *zMode = iMode ? "wal" : "delete";
    for (k = 0; k < 3; k++) {
      char zCreate[128];
      if (k == 2 && bSkipPk) continue;
      snprintf(zCreate, sizeof(zCreate), aTab[k].zCreate, N_ITEMS / scale);
      if (k == 2) {
        row(zMode, aTab[k].zName, zCreate, iMode, nItems, azExt + nExt - 1, 1,
            1);
      } else {
        row(zMode, aTab[k].zName, zCreate, iMode, nItems, azExt, nExt, nRound);
      }
    }
  }
  return 0;
}
