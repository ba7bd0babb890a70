/*
** Copyright (c) 2026 the cuckoo authors.  MIT License: see LICENSE.
**
** target_bench.c: the product's fast paths against their natural
** alternatives, each pair measured in this one run, as one table with the
** target of each ratio.  Run from the repository root by `make bench`
** (or alone: `make -C tests/bench target`); the SQL measures load
** ./cuckoo.so, the core's lookup rows use the core compiled in.
**
**   1. Bulk load: INSERT INTO seen(item) SELECT x FROM src, 3*10^6
**      ascending integers from an existing table, into a cuckoo table
**      sized for them (and one growing from the default capacity) against
**      the same insert into a plain heap table (target <= 1.0x); and
**      10^7 random integers into a cuckoo table (items/s).
**   2. Probes: a join and an EXISTS subquery, 3*10^6 probes (half present)
**      against the cuckoo table and against CREATE TABLE pk(item PRIMARY
**      KEY) WITHOUT ROWID holding the same items: ascending integers
**      (target <= 1.0x) and random ones (join <= 0.15x, EXISTS <= 0.25x).
**   3. WHERE item IN (10^5 values) against 10^5 point lookups (one
**      prepared statement stepped per item): at least 3x faster.
**   4. The core's single-item lookup (cf_contains_int, the path of every
**      scalar call), b = 4, f = 12, filters of 384 KB and 6 MB filled to
**      the first failed insert, 50% positive lookups in random order
**      (targets 200 and 100 M/s; the paper authors' C++ Contain() was
**      measured at 280-320 and 88-123 M/s on this machine kind).
**   5. cuckoo_contains(filter, x) per row over 2*10^6 rows with a 1.75 MB
**      filter against abs(x) (target <= 1.35x).
**
** Every SQL measure runs the extension as users run it: the loadable
** ./cuckoo.so (or $CUCKOO_EXT), loaded into each connection with
** sqlite3_load_extension(), so its calls into SQLite go through the
** extension API table as they do for every user.  Only part 4 calls the
** core, compiled into this program, directly.
**
** Times are CPU seconds of this process (user + system; on a shared
** machine they vary much less than wall-clock time), the median of 3
** repetitions.  Every database gets a 1 GiB page cache, synchronous=OFF
** and no rollback journal for the bulk loads (the same for both sides).
** BENCH_SCALE (default 1) divides every size.  With the argument
** "lookup" only parts 4 and 5 run (make bench-targets BENCH_ONLY=lookup),
** with "bulk" only part 1 (BENCH_ONLY=bulk).
*/
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench.h"
#include "cuckoo_filter.h"

static const char *zDbFile = "build/bench/target_bench.db";
static const char *zExt = "./cuckoo.so"; /* or $CUCKOO_EXT */
static int g_scale = 1;

static sqlite3_int64 one(sqlite3 *db, const char *zSql) {
  sqlite3_stmt *s = 0;
  sqlite3_int64 v = -1;
  if (sqlite3_prepare_v2(db, zSql, -1, &s, 0) != SQLITE_OK) bench_die(db, zSql);
  if (sqlite3_step(s) == SQLITE_ROW) v = sqlite3_column_int64(s, 0);
  if (sqlite3_finalize(s) != SQLITE_OK) bench_die(db, zSql);
  return v;
}

/* CPU seconds of one statement (prepared, stepped to the end); its first
** column's last integer in *pv (if not NULL). */
static double timed(sqlite3 *db, const char *zSql, sqlite3_int64 *pv) {
  sqlite3_stmt *s = 0;
  double t0 = cpu();
  if (sqlite3_prepare_v2(db, zSql, -1, &s, 0) != SQLITE_OK) bench_die(db, zSql);
  while (sqlite3_step(s) == SQLITE_ROW) {
    if (pv) *pv = sqlite3_column_int64(s, 0);
  }
  if (sqlite3_finalize(s) != SQLITE_OK) bench_die(db, zSql);
  return cpu() - t0;
}

/* One row of the result table. */
static void row(const char *zWhat, double ours, double alt, const char *zUnit,
                double target, int bLess) {
  double r = alt > 0 ? ours / alt : 0;
  const char *zMet = target <= 0                           ? "-"
                     : (bLess ? r <= target : r >= target) ? "yes"
                                                           : "no";
  char zTarget[32];
  if (target > 0) {
    snprintf(zTarget, sizeof(zTarget), "%s %.2fx", bLess ? "<=" : ">=", target);
  } else {
    snprintf(zTarget, sizeof(zTarget), "-");
  }
  printf("| %-58s | %9.3f %-3s | %9.3f %-3s | %6.2fx | %-8s | %-3s |\n", zWhat,
         ours, zUnit, alt, zUnit, r, zTarget, zMet);
  fflush(stdout);
}

static sqlite3 *open_fresh(void) {
  sqlite3 *db = bench_open(zDbFile, zExt);
  tl_exec(db, "PRAGMA cache_size=-1048576; PRAGMA synchronous=OFF; "
              "PRAGMA threads=0");
  return db;
}

/* Median of 3 timings of zSql, each after zSetup (untimed). */
static double med_stmt(sqlite3 *db, const char *zSetup, const char *zSql,
                       sqlite3_int64 *pv) {
  double a[3];
  int i;
  for (i = 0; i < 3; i++) {
    if (zSetup) tl_exec(db, zSetup);
    a[i] = timed(db, zSql, pv);
  }
  return median3(a);
}

/* 1. Bulk loads.  The heap table, the sized table and the growing one
** take turns (heap, sized, growing, three times), so that a change in the
** machine's speed during the run weighs on all three alike. */
static void bulk(sqlite3 *db, sqlite3_int64 n, sqlite3_int64 nRandom) {
  char zSetup[300], zWhat[100];
  double aHeap[3], aSeen[3], aGrow[3], tHeap, tSeen, tGrow, tRand;
  sqlite3_int64 got = 0;
  int i;
  tl_exec(db, "PRAGMA journal_mode=OFF");
  snprintf(zSetup, sizeof(zSetup),
           "DROP TABLE IF EXISTS seen; "
           "CREATE VIRTUAL TABLE seen USING cuckoo(capacity=%lld)",
           n);
  for (i = 0; i < 3; i++) {
    tl_exec(db, "DROP TABLE IF EXISTS heap; CREATE TABLE heap(item)");
    aHeap[i] = timed(db, "INSERT INTO heap(item) SELECT x FROM src", 0);
    tl_exec(db, zSetup);
    aSeen[i] = timed(db, "INSERT INTO seen(item) SELECT x FROM src", 0);
    tl_exec(db, "DROP TABLE IF EXISTS seen; "
                "CREATE VIRTUAL TABLE seen USING cuckoo");
    aGrow[i] = timed(db, "INSERT INTO seen(item) SELECT x FROM src", 0);
  }
  tHeap = median3(aHeap);
  tSeen = median3(aSeen);
  tGrow = median3(aGrow);
  snprintf(zWhat, sizeof(zWhat),
           "INSERT ... SELECT %lld ascending ints: sized / heap", n);
  row(zWhat, tSeen, tHeap, "s", 1.0, 1);
  snprintf(zWhat, sizeof(zWhat),
           "INSERT ... SELECT %lld ascending ints: growing / heap", n);
  row(zWhat, tGrow, tHeap, "s", 0, 1);
  tl_exec(db, "DROP TABLE IF EXISTS seen; DROP TABLE IF EXISTS heap");

  snprintf(zSetup, sizeof(zSetup),
           "DROP TABLE IF EXISTS big; CREATE TABLE big(x INTEGER); "
           "WITH RECURSIVE s(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM s "
           "WHERE i < %lld) INSERT INTO big SELECT random() FROM s",
           nRandom);
  tl_exec(db, zSetup);
  snprintf(zSetup, sizeof(zSetup),
           "DROP TABLE IF EXISTS seen; "
           "CREATE VIRTUAL TABLE seen USING cuckoo(capacity=%lld)",
           nRandom);
  tRand = med_stmt(db, zSetup, "INSERT INTO seen(item) SELECT x FROM big", 0);
  got = one(db, "SELECT json_extract(cuckoo_table_info('seen'), '$.count')");
  if (got != nRandom) bench_die(db, "random load lost items");
  printf("| %-58s | %9.3f M/s | %13s | %7s | %-8s | %-3s |\n",
         "INSERT ... SELECT 10^7 random ints: items/s (sized table)",
         (double)nRandom / tRand / 1e6, "", "", "-", "-");
  tl_exec(db, "DROP TABLE seen; DROP TABLE big; PRAGMA journal_mode=DELETE");
}

/* 2. Probes: zItems fills seen and pk, zProbe the probe table. */
static void probes(sqlite3 *db, const char *zKind, sqlite3_int64 n,
                   const char *zItems, const char *zProbe, double tJoin,
                   double tExists) {
  char zSql[1200], zWhat[100];
  double a, b;
  sqlite3_int64 c1 = 0, c2 = 0;
  snprintf(zSql, sizeof(zSql),
           "DROP TABLE IF EXISTS seen; DROP TABLE IF EXISTS pk; "
           "DROP TABLE IF EXISTS probe; DROP TABLE IF EXISTS items;"
           "CREATE TABLE items(x INTEGER); CREATE TABLE probe(x INTEGER);"
           "WITH RECURSIVE s(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM s "
           "WHERE i < %lld) INSERT INTO items SELECT %s FROM s;"
           "WITH RECURSIVE s(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM s "
           "WHERE i < %lld) INSERT INTO probe SELECT %s FROM s;"
           "CREATE VIRTUAL TABLE seen USING cuckoo(capacity=%lld);"
           "INSERT INTO seen(item) SELECT x FROM items;"
           "CREATE TABLE pk(item INTEGER PRIMARY KEY) WITHOUT ROWID;"
           "INSERT OR IGNORE INTO pk SELECT x FROM items ORDER BY x;",
           n, zItems, n, zProbe, n);
  tl_exec(db, zSql);
  /* warm both */
  timed(db, "SELECT count(*) FROM probe p JOIN seen s ON s.item = p.x", 0);
  timed(db, "SELECT count(*) FROM probe p JOIN pk ON pk.item = p.x", 0);
  a = med_stmt(db, 0,
               "SELECT count(*) FROM probe p JOIN seen s ON s.item = p.x", &c1);
  b = med_stmt(db, 0, "SELECT count(*) FROM probe p JOIN pk ON pk.item = p.x",
               &c2);
  if (c1 < c2) bench_die(db, "false negatives in the join");
  snprintf(zWhat, sizeof(zWhat), "join, %lld %s probes: cuckoo / pk", n, zKind);
  row(zWhat, a, b, "s", tJoin, 1);
  a = med_stmt(db, 0,
               "SELECT count(*) FROM probe p WHERE EXISTS "
               "(SELECT 1 FROM seen WHERE item = p.x)",
               &c1);
  b = med_stmt(db, 0,
               "SELECT count(*) FROM probe p WHERE EXISTS "
               "(SELECT 1 FROM pk WHERE item = p.x)",
               &c2);
  if (c1 < c2) bench_die(db, "false negatives in EXISTS");
  snprintf(zWhat, sizeof(zWhat), "EXISTS, %lld %s probes: cuckoo / pk", n,
           zKind);
  row(zWhat, a, b, "s", tExists, 1);
}

/* 3. IN (list) against point lookups, on the last probes' tables. */
static void in_list(sqlite3 *db, sqlite3_int64 nList) {
  sqlite3_str *s = sqlite3_str_new(db);
  sqlite3_stmt *pStmt = 0, *pIds = 0;
  sqlite3_int64 *aV = malloc(sizeof(sqlite3_int64) * (size_t)nList), i, n = 0;
  sqlite3_int64 cIn = 0, cPoint;
  double aIn[3], aPoint[3], t0;
  char *zSql;
  int rep;
  if (aV == 0) exit(2);
  if (sqlite3_prepare_v2(db, "SELECT x FROM probe ORDER BY rowid", -1, &pIds,
                         0) != SQLITE_OK) {
    bench_die(db, "probe ids");
  }
  while (n < nList && sqlite3_step(pIds) == SQLITE_ROW) {
    aV[n++] = sqlite3_column_int64(pIds, 0);
  }
  sqlite3_finalize(pIds);
  sqlite3_str_appendall(s, "SELECT count(*) FROM seen WHERE item IN (");
  for (i = 0; i < n; i++) {
    sqlite3_str_appendf(s, "%s%lld", i ? "," : "", aV[i]);
  }
  sqlite3_str_appendall(s, ")");
  zSql = sqlite3_str_finish(s);
  if (zSql == 0) exit(2);
  if (sqlite3_prepare_v2(db, "SELECT count(*) FROM seen WHERE item = ?1", -1,
                         &pStmt, 0) != SQLITE_OK) {
    bench_die(db, "point lookup");
  }
  for (rep = 0; rep < 3; rep++) {
    aIn[rep] = timed(db, zSql, &cIn);
    t0 = cpu();
    for (cPoint = 0, i = 0; i < n; i++) {
      sqlite3_bind_int64(pStmt, 1, aV[i]);
      if (sqlite3_step(pStmt) == SQLITE_ROW) {
        cPoint += sqlite3_column_int64(pStmt, 0);
      }
      sqlite3_reset(pStmt);
    }
    aPoint[rep] = cpu() - t0;
  }
  if (cIn != cPoint) bench_die(db, "IN and point lookups disagree");
  /* the target is a speed-up: point lookups' time over the list's */
  row("IN (10^5 values) vs 10^5 point lookups: speed-up", median3(aPoint),
      median3(aIn), "s", 3.0, 0);
  sqlite3_finalize(pStmt);
  sqlite3_free(zSql);
  free(aV);
}

/* 4. The core's single-item lookup.  Item id -> a distinct integer. */
static int64_t item_of(uint64_t id) {
  return (int64_t)(id * 0x9e3779b97f4a7c15ULL + 0x632be59bd9b4e019ULL);
}

static __attribute__((noinline)) size_t probe_all(const cf_filter *f,
                                                  const int64_t *aV, size_t n) {
  size_t i, hits = 0;
  for (i = 0; i < n; i++)
    hits += (size_t)cf_contains_int(f, aV[i]);
  return hits;
}

static void single(uint64_t nBytes, double target, const char *zRef) {
  cf_params p;
  cf_filter f;
  uint8_t *buf;
  uint64_t nItems = 0, r = 0x9e3779b9, pos = 0, neg = 1ULL << 40;
  size_t nOps = (size_t)(16000000 / g_scale), i, hits = 0;
  int64_t *aV;
  double a[3], t0;
  int rep;
  char zWhat[100];
  memset(&p, 0, sizeof(p));
  p.bucket_size = 4;
  p.fp_bits = 12;
  p.nbuckets = nBytes * 8 / 48 / (uint64_t)g_scale;
  if (p.nbuckets < 64) p.nbuckets = 64;
  p.capacity = p.nbuckets * 4;
  p.seed = 0x5eed;
  buf = malloc((size_t)cf_blob_size(&p));
  aV = malloc(nOps * sizeof(int64_t));
  if (buf == 0 || aV == 0) exit(2);
  cf_init(&f, &p, buf);
  while (cf_insert(&f, cf_key_of(&f, cf_hash_int(p.seed, item_of(nItems)))) ==
         CF_OK) {
    nItems++;
  }
  for (i = 0; i < nOps; i++) {
    r ^= r << 13, r ^= r >> 7, r ^= r << 17;
    if (r & 1) {
      aV[i] = item_of(pos);
      pos = pos + 1 == nItems ? 0 : pos + 1;
    } else {
      aV[i] = item_of(neg++);
    }
  }
  for (rep = 0; rep < 3; rep++) {
    t0 = cpu();
    hits = probe_all(&f, aV, nOps);
    a[rep] = (double)nOps / (cpu() - t0) / 1e6;
  }
  if (hits < nOps / 3) {
    printf("target_bench: lookups lost items\n");
    exit(1);
  }
  snprintf(zWhat, sizeof(zWhat),
           "core lookup 1-by-1, b=4 f=12, %s filter (M/s; C++ %s)",
           nBytes < (1u << 20) ? "384 KB" : "6 MB", zRef);
  row(zWhat, median3(a), target, "M/s", 1.0, 0);
  free(aV);
  free(buf);
}

/* CPU seconds of zSql with the BLOB a[0..n) bound to ?1. */
static double timed_blob(sqlite3 *db, const char *zSql, const void *a, int n) {
  sqlite3_stmt *s = 0;
  double t0 = cpu();
  if (sqlite3_prepare_v2(db, zSql, -1, &s, 0) != SQLITE_OK) bench_die(db, zSql);
  sqlite3_bind_blob(s, 1, a, n, SQLITE_STATIC);
  while (sqlite3_step(s) == SQLITE_ROW) {
  }
  if (sqlite3_finalize(s) != SQLITE_OK) bench_die(db, zSql);
  return cpu() - t0;
}

/* 5. cuckoo_contains per row against abs(), the filter a bound BLOB. */
static void per_row(sqlite3 *db, sqlite3_int64 n) {
  char zSql[600];
  double a[3], b[3];
  sqlite3_stmt *s = 0;
  void *pF;
  int nF, i;
  snprintf(zSql, sizeof(zSql),
           "DROP TABLE IF EXISTS r; CREATE TABLE r(x INTEGER);"
           "WITH RECURSIVE s(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM s "
           "WHERE i < %lld) INSERT INTO r SELECT random() FROM s;",
           n);
  tl_exec(db, zSql);
  snprintf(zSql, sizeof(zSql),
           "SELECT cuckoo_agg(x, 0.001, %lld) FROM (SELECT x FROM r LIMIT "
           "%lld)",
           n / 2, n / 2);
  if (sqlite3_prepare_v2(db, zSql, -1, &s, 0) != SQLITE_OK) bench_die(db, zSql);
  if (sqlite3_step(s) != SQLITE_ROW) bench_die(db, zSql);
  nF = sqlite3_column_bytes(s, 0);
  pF = malloc((size_t)nF);
  if (pF == 0) exit(2);
  memcpy(pF, sqlite3_column_blob(s, 0), (size_t)nF);
  sqlite3_finalize(s);
  timed(db, "SELECT total(abs(x)) FROM r", 0);
  for (i = 0; i < 3; i++) {
    a[i] =
        timed_blob(db, "SELECT total(cuckoo_contains(?1, x)) FROM r", pF, nF);
    b[i] = timed_blob(db, "SELECT total(abs(x)) + length(?1) FROM r", pF, nF);
  }
  snprintf(zSql, sizeof(zSql),
           "cuckoo_contains per row, %lld rows, %.2f MB filter / abs()", n,
           (double)nF / (1 << 20));
  row(zSql, median3(a), median3(b), "s", 1.35, 1);
  free(pF);
}

int main(int argc, char **argv) {
  const char *z = getenv("BENCH_SCALE");
  sqlite3 *db;
  sqlite3_int64 n;
  int onlyLookup = argc > 1 && strcmp(argv[1], "lookup") == 0;
  int onlyBulk = argc > 1 && strcmp(argv[1], "bulk") == 0;
  tl_zProgram = "target_bench";
  if (z && atoi(z) > 0) g_scale = atoi(z);
  n = 3000000 / g_scale;
  if (getenv("CUCKOO_EXT")) zExt = getenv("CUCKOO_EXT");
  printf("The product's fast paths against their alternatives (CPU seconds, "
         "median of 3;\nratio = ours / alternative unless said otherwise; "
         "BENCH_SCALE=%d)\n\n",
         g_scale);
  printf("| %-58s | %13s | %13s | %7s | %-8s | %-3s |\n", "measure", "ours",
         "alternative", "ratio", "target", "met");
  printf("| --- | ---: | ---: | ---: | --- | --- |\n");
  db = open_fresh();
  if (onlyLookup) {
    single(384u << 10, 200, "280-320");
    single(6u << 20, 100, "88-123");
    per_row(db, 2000000 / g_scale);
    sqlite3_close(db);
    remove(zDbFile);
    return 0;
  }
  {
    char zSql[300];
    snprintf(zSql, sizeof(zSql),
             "CREATE TABLE src(x INTEGER);"
             "WITH RECURSIVE s(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM s "
             "WHERE i < %lld) INSERT INTO src SELECT i FROM s;"
             "SELECT count(*) FROM src",
             n);
    tl_exec(db, zSql);
  }
  bulk(db, n, 10000000 / g_scale);
  if (onlyBulk) {
    sqlite3_close(db);
    remove(zDbFile);
    return 0;
  }
  single(384u << 10, 200, "280-320");
  single(6u << 20, 100, "88-123");
  per_row(db, 2000000 / g_scale);
  probes(db, "random", n, "random()",
         "CASE WHEN i % 2 THEN (SELECT x FROM items WHERE rowid = i) "
         "ELSE random() END",
         0.15, 0.25);
  {
    char zProbe[40]; /* ascending, the upper half present */
    snprintf(zProbe, sizeof(zProbe), "i + %lld", n / 2);
    probes(db, "ascending", n, "i", zProbe, 1.0, 1.0);
  }
  in_list(db, 100000 / g_scale > 0 ? 100000 / g_scale : 1);
  sqlite3_close(db);
  remove(zDbFile);
  printf("\n(The machine may be shared: compare ratios, not absolute "
         "times.)\n");
  return 0;
}
