/*
** Copyright (c) 2026 the cuckoo authors.  MIT License: see LICENSE.
**
** vtab_bench.c: the cuckoo virtual table against the natural alternative,
** an indexed table CREATE TABLE s(item PRIMARY KEY) WITHOUT ROWID, in one
** run.  Run from the repository root by `make bench`
** (built with the extension linked statically).
**
**   1. Bulk load: INSERT INTO t(item) SELECT email FROM src, N = 10^7
**      items in one transaction, into each (items/s; target >= 10^6/s).
**   2. Join: 10^6 probes (half present) joined against each
**      (target: the cuckoo table in <= 0.5x the indexed table's time).
**   3. File bytes per item of each database (target <= 1/10).
**   4. One cold lookup on a 10^8-item table from a fresh process: blocks
**      read, pages read, and its CPU time (waiting for the disk is not
**      counted: the blocks and pages read are the measure).  The database
**      is built once under build/bench/ and reused; the file's pages are
**      dropped from the OS cache (posix_fadvise) before the lookup.
**
** Times are CPU seconds of this process (bench.h).
**
** Items are e-mail-like strings 'user<k>@example.com' in a scrambled
** order.  Both tables get the same 256 MiB page cache as the cuckoo
** table's block cache.  BENCH_SCALE (default 1) divides every size.
*/
#include <fcntl.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "../testlib.h"
#include "bench.h"

int sqlite3_cuckoo_init(sqlite3 *db, char **pzErr, const void *pApi);


static void die(sqlite3 *db, const char *zWhat) {
  tl_die("%s: %s", zWhat, db ? sqlite3_errmsg(db) : "");
}

static sqlite3_int64 one_int(sqlite3 *db, const char *zSql) {
  sqlite3_stmt *s;
  sqlite3_int64 v = -1;
  if (sqlite3_prepare_v2(db, zSql, -1, &s, 0) != SQLITE_OK) die(db, zSql);
  if (sqlite3_step(s) == SQLITE_ROW) v = sqlite3_column_int64(s, 0);
  if (sqlite3_finalize(s) != SQLITE_OK) die(db, zSql);
  return v;
}

static sqlite3 *open_db(const char *zFile) {
  sqlite3 *db;
  if (sqlite3_open(zFile, &db) != SQLITE_OK) die(db, zFile);
  tl_exec(db, "PRAGMA cache_size = -262144");
  return db;
}

static sqlite3_int64 file_bytes(const char *zFile) {
  FILE *f = fopen(zFile, "rb");
  long n;
  if (f == 0) return 0;
  fseek(f, 0, SEEK_END);
  n = ftell(f);
  fclose(f);
  return n;
}

static void drop_os_cache(const char *zFile) {
  int fd = open(zFile, O_RDONLY);
  if (fd >= 0) {
    posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
    close(fd);
  }
}

/* Time the join of the probes against zTable in zFile (second run). */
static double time_join(const char *zFile, const char *zSrc, const char *zTable,
                        sqlite3_int64 *pHits) {
  sqlite3 *db = open_db(zFile);
  char zSql[256];
  double t0;
  snprintf(zSql, sizeof(zSql), "ATTACH '%s' AS s", zSrc);
  tl_exec(db, zSql);
  snprintf(zSql, sizeof(zSql),
           "SELECT count(*) FROM s.probes p JOIN %s t ON t.item = p.email",
           zTable);
  one_int(db, zSql);
  t0 = cpu();
  *pHits = one_int(db, zSql);
  t0 = cpu() - t0;
  sqlite3_close(db);
  return t0;
}

/* The cold lookup, run in a child process: open, one lookup, report. */
static int cold_lookup(const char *zFile, const char *zItem) {
  sqlite3 *db;
  int cur, hi, nMiss;
  double t0 = cpu(), t1;
  sqlite3_int64 found, nRead;
  if (sqlite3_open(zFile, &db) != SQLITE_OK) die(db, zFile);
  char zSql[200];
  snprintf(zSql, sizeof(zSql), "SELECT count(*) FROM big WHERE item = '%s'",
           zItem);
  found = one_int(db, zSql);
  t1 = cpu();
  sqlite3_db_status(db, SQLITE_DBSTATUS_CACHE_MISS, &cur, &hi, 0);
  nMiss = cur;
  nRead = one_int(db, "SELECT json_extract(cuckoo_table_info('big'),"
                      " '$.blocks_read')");
  printf("%lld %.6f %lld %d\n", found, t1 - t0, nRead, nMiss);
  sqlite3_close(db);
  return 0;
}

int main(int argc, char **argv) {
  const char *zScale = getenv("BENCH_SCALE");
  sqlite3_int64 scale = zScale && atoll(zScale) > 0 ? atoll(zScale) : 1;
  sqlite3_int64 n = 10000000 / scale, nProbe = 1000000 / scale;
  sqlite3_int64 nBig = 100000000 / scale;
  const char *zSrc = "build/bench/vtab_src.db";
  const char *zCk = "build/bench/vtab_cuckoo.db";
  const char *zIx = "build/bench/vtab_index.db";
  char zBig[128], zSql[1024];
  sqlite3 *db;
  double t0, tCk, tIx, tJoinCk, tJoinIx;
  sqlite3_int64 hitCk, hitIx, bytesCk, bytesIx;
  tl_zProgram = "vtab_bench";

  sqlite3_auto_extension((void (*)(void))sqlite3_cuckoo_init);
  if (argc == 4 && strcmp(argv[1], "--cold") == 0) {
    return cold_lookup(argv[2], argv[3]);
  }
  if (n < 1000) n = 1000;
  if (nProbe < 100) nProbe = 100;
  snprintf(zBig, sizeof(zBig), "build/bench/vtab_big_%lld.db", nBig);

  /* Source data: n items in scrambled order, and nProbe probes, half of
  ** them present. */
  unlink(zSrc);
  unlink(zCk);
  unlink(zIx);
  db = open_db(zSrc);
  tl_exec(db, "PRAGMA journal_mode = OFF; PRAGMA synchronous = OFF");
  snprintf(zSql, sizeof(zSql),
           "CREATE TABLE src(email TEXT);"
           "WITH RECURSIVE k(i) AS (SELECT 0 UNION ALL SELECT i+1 FROM k "
           "WHERE i < %lld - 1) INSERT INTO src SELECT 'user' || "
           "(i * 7919 %% %lld) || '@example.com' FROM k;"
           "CREATE TABLE probes(email TEXT);"
           "WITH RECURSIVE k(i) AS (SELECT 0 UNION ALL SELECT i+1 FROM k "
           "WHERE i < %lld - 1) INSERT INTO probes SELECT 'user' || "
           "(CASE WHEN i %% 2 THEN (i * 104729) %% %lld ELSE %lld + i END) "
           "|| '@example.com' FROM k;",
           n, n, nProbe, n, n);
  tl_exec(db, zSql);
  sqlite3_close(db);

  printf("vtab_bench: N = %lld items, %lld probes, cold table of %lld items"
         " (BENCH_SCALE=%lld)\n\n",
         n, nProbe, nBig, scale);

  /* 1. Bulk load */
  db = open_db(zCk);
  snprintf(zSql, sizeof(zSql),
           "ATTACH '%s' AS s;"
           "CREATE VIRTUAL TABLE seen USING cuckoo(capacity=%lld, "
           "error_rate=0.001);",
           zSrc, n);
  tl_exec(db, zSql);
  t0 = cpu();
  tl_exec(db, "BEGIN; INSERT INTO seen(item) SELECT email FROM s.src; COMMIT");
  tCk = cpu() - t0;
  sqlite3_close(db);

  db = open_db(zIx);
  snprintf(zSql, sizeof(zSql),
           "ATTACH '%s' AS s;"
           "CREATE TABLE idx(item PRIMARY KEY) WITHOUT ROWID;",
           zSrc);
  tl_exec(db, zSql);
  t0 = cpu();
  tl_exec(db, "BEGIN; INSERT INTO idx(item) SELECT email FROM s.src; COMMIT");
  tIx = cpu() - t0;
  sqlite3_close(db);

  /* 2. Join of the probes (second run of each: warm caches) */
  tJoinCk = time_join(zCk, zSrc, "seen", &hitCk);
  tJoinIx = time_join(zIx, zSrc, "idx", &hitIx);

  /* 3. Space */
  bytesCk = file_bytes(zCk);
  bytesIx = file_bytes(zIx);

  printf("| measure | cuckoo table | indexed table | ratio | target |\n");
  printf("| --- | ---: | ---: | ---: | --- |\n");
  printf("| bulk INSERT ... SELECT of %lld items, one transaction | %.2f s"
         " (%.2f M items/s) | %.2f s (%.2f M items/s) | %.2fx the time |"
         " >= 1 M items/s: %s |\n",
         n, tCk, n / tCk / 1e6, tIx, n / tIx / 1e6, tCk / tIx,
         n / tCk >= 1e6 ? "met" : "MISSED");
  printf("| join of %lld probes (half present) | %.3f s (%lld rows) | %.3f s"
         " (%lld rows) | %.2fx the time | <= 0.5x: %s |\n",
         nProbe, tJoinCk, hitCk, tJoinIx, hitIx, tJoinCk / tJoinIx,
         tJoinCk <= 0.5 * tJoinIx ? "met" : "MISSED");
  printf("| file bytes per item | %.2f | %.2f | 1/%.1f | <= 1/10: %s |\n",
         (double)bytesCk / n, (double)bytesIx / n,
         (double)bytesIx / (double)bytesCk,
         bytesCk * 10 <= bytesIx ? "met" : "MISSED");
  printf("| false positives among %lld absent probes | %lld (%.4f%%) | 0 | |"
         " < 0.1%% |\n",
         nProbe / 2, hitCk - hitIx, 100.0 * (hitCk - hitIx) / (nProbe / 2));
  fflush(stdout);

  /* 4. Cold lookup on a large table, built once and reused */
  if (access(zBig, F_OK) != 0) {
    char zTmp[160];
    snprintf(zTmp, sizeof(zTmp), "%s.tmp", zBig);
    unlink(zTmp);
    fprintf(stderr, "vtab_bench: building %s (%lld items, once)...\n", zBig,
            nBig);
    db = open_db(zTmp);
    snprintf(zSql, sizeof(zSql),
             "CREATE VIRTUAL TABLE big USING cuckoo(capacity=%lld, "
             "error_rate=0.001, growth=off);"
             "BEGIN;"
             "WITH RECURSIVE k(i) AS (SELECT 0 UNION ALL SELECT i+1 FROM k "
             "WHERE i < %lld - 1) INSERT INTO big SELECT 'user' || i || "
             "'@example.com' FROM k;"
             "COMMIT;",
             nBig, nBig);
    t0 = cpu();
    tl_exec(db, zSql);
    fprintf(stderr, "vtab_bench: built in %.1f s\n", cpu() - t0);
    sqlite3_close(db);
    if (rename(zTmp, zBig) != 0) die(0, "rename");
  }
  {
    static const char *const azItem[] = {"user12345@example.com",
                                         "nobody@example.com"};
    sqlite3_int64 nBlocks, nPages;
    int k;
    db = open_db(zBig);
    nBlocks = one_int(db, "SELECT json_extract(cuckoo_table_info('big'),"
                          " '$.blocks')");
    nPages = one_int(db, "PRAGMA page_count");
    sqlite3_close(db);
    for (k = 0; k < 2; k++) {
      char zCmd[512], zLine[256];
      FILE *p;
      sqlite3_int64 found = -1, nRead = -1;
      double tCold = -1;
      int nMiss = -1;
      drop_os_cache(zBig);
      snprintf(zCmd, sizeof(zCmd), "%s --cold %s %s", argv[0], zBig, azItem[k]);
      p = popen(zCmd, "r");
      if (p && fgets(zLine, sizeof(zLine), p)) {
        sscanf(zLine, "%lld %lf %lld %d", &found, &tCold, &nRead, &nMiss);
      }
      if (p) pclose(p);
      printf("| cold lookup of %s item, fresh process, %lld-item table (%.0f"
             " MB) | %.2f ms, %lld of %lld blocks, %d of %lld pages read |"
             " | | a handful of blocks: %s |\n",
             k ? "an absent" : "a present", nBig, file_bytes(zBig) / 1e6,
             tCold * 1e3, nRead, nBlocks, nMiss, nPages,
             found == 1 - k && nRead >= 1 && nRead <= 2 ? "met" : "MISSED");
    }
  }
  unlink(zSrc);
  unlink(zCk);
  unlink(zIx);
  return 0;
}
