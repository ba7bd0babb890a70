/*
** Copyright (c) 2026 the cuckoo authors.  MIT License: see LICENSE.
**
** core_bench.c: the first benchmark of cuckoo: the core filter and the
** scalar functions, printed as four tables.
**
**   1. Core speed on a filter larger than the CPU cache: ns per insert,
**      positive lookup, negative lookup and delete (the item hash
**      included), with a filter that fits in L2 for comparison.
**   2. Load factor at the first failed insert, b = 4 and f = 4, 6, 8, 12,
**      16, several seeds (min/mean/max), against the paper's Table 2.
**   3. Measured false-positive rate and bits per item at full capacity for
**      error_rate 1%, 0.1%, 0.01%, against the target, the space bound
**      1.06 * f / 0.95 and a space-optimal Bloom filter (1.44 log2(1/e)).
**      Then bits per item for capacities 1000, 12345, 10^6, 1.5 * 10^6.
**   4. Per-row cost in SQL: SELECT count(*) FROM t WHERE
**      cuckoo_contains(?, x) over 2 million rows, as a ratio to SELECT
**      count(*) FROM t WHERE abs(x) >= 0 on the same table in the same
**      run (median of several repetitions, the two queries alternating).
**
** Built by tests/bench/Makefile with the extension linked statically
** (-DSQLITE_CORE) and run from the repository root by `make bench`.
** BENCH_SCALE (environment, default 1) divides every size.  An argument
** of digits runs only those tables: `build/bench/core_bench 4`.
*/
#include <math.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cuckoo_filter.h"

#include "../testlib.h"
#include "bench.h"

int sqlite3_cuckoo_init(sqlite3 *db, char **pzErrMsg, const void *pApi);

static uint64_t g_scale = 1;

/* Nanoseconds of CPU time (bench.h's clock). */
static double now_ns(void) { return cpu() * 1e9; }

static void *xmalloc(size_t n) {
  void *p = malloc(n ? n : 1);
  if (p == 0) {
    fprintf(stderr, "core_bench: out of memory (%zu bytes)\n", n);
    exit(1);
  }
  return p;
}

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

static double median(double *a, int n) {
  qsort(a, (size_t)n, sizeof(double), cmp_double);
  return n % 2 ? a[n / 2] : (a[n / 2 - 1] + a[n / 2]) / 2;
}

/* A filter for `capacity` items at error_rate in a malloc'd buffer. */
static uint8_t *new_filter(cf_filter *f, uint64_t capacity, double eps,
                           uint64_t seed) {
  cf_params p;
  uint8_t *buf;
  if (cf_params_for(&p, capacity, eps, 4, seed) != CF_OK) {
    fprintf(stderr, "core_bench: bad parameters\n");
    exit(1);
  }
  buf = xmalloc((size_t)cf_blob_size(&p));
  cf_init(f, &p, buf);
  return buf;
}

/* The key of item i (item ids >= 2^40 are never inserted: negatives). */
static cf_key key_of(const cf_filter *f, uint64_t i) {
  return cf_key_of(f, cf_hash_int(f->p.seed, (int64_t)i));
}

/* ---------------------------------------------------------------------
** 1. Core speed.
*/
static void speed_row(const char *zName, uint64_t n) {
  cf_filter f;
  uint8_t *buf = new_filter(&f, n, 0.002, 0); /* f = 12 bits */
  uint64_t i, hits = 0, fails = 0;
  double t0, tIns, tPos, tNeg, tDel;

  t0 = now_ns();
  for (i = 0; i < n; i++)
    fails += cf_insert(&f, key_of(&f, i)) != CF_OK;
  tIns = now_ns() - t0;
  t0 = now_ns();
  for (i = 0; i < n; i++)
    hits += cf_contains(&f, key_of(&f, i));
  tPos = now_ns() - t0;
  t0 = now_ns();
  for (i = 0; i < n; i++)
    hits += cf_contains(&f, key_of(&f, i + (1ULL << 40)));
  tNeg = now_ns() - t0;
  t0 = now_ns();
  for (i = 0; i < n; i++)
    fails += cf_remove(&f, key_of(&f, i)) != CF_OK;
  tDel = now_ns() - t0;

  printf("| %-22s | %9.1f MB | %9llu | %6.1f | %6.1f | %6.1f | %6.1f |\n",
         f.table_size > (32u << 20) ? "in memory (> 32 MB)" : zName,
         (double)f.table_size / 1e6, (unsigned long long)n, tIns / n, tPos / n,
         tNeg / n, tDel / n);
  if (fails || hits < n) {
    printf("ERROR: %llu failed inserts/removes, %llu of %llu found\n",
           (unsigned long long)fails, (unsigned long long)hits,
           (unsigned long long)n);
    exit(1);
  }
  free(buf);
}

static void bench_speed(void) {
  printf("\n### 1. Core speed (b = 4, f = 12, filled to its capacity; "
         "ns per operation, item hash included)\n\n");
  printf("| filter                 |   bucket array |     items | insert "
         "| lookup+ | lookup- | delete |\n");
  printf("| --- | ---: | ---: | ---: | ---: | ---: | ---: |\n");
  speed_row("in L2 cache", 200000 / g_scale + 1000);
  speed_row("large (scaled down)", 40000000 / g_scale + 1000);
}

/* ---------------------------------------------------------------------
** 2. Load factor at the first failed insert.
*/
static void bench_load(void) {
  static const unsigned aF[] = {4, 6, 8, 12, 16};
  static const double aPaper[] = {67.67, 95.39, 95.62, 95.77, 95.80};
  const int nSeed = 5;
  uint64_t m = (1ULL << 20) / g_scale + 7; /* deliberately not 2^k */
  size_t k;
  printf("\n### 2. Load factor at the first failed insert (b = 4, %llu "
         "buckets, %d seeds)\n\n",
         (unsigned long long)m, nSeed);
  printf("| f | min | mean | max | paper (Table 2, mean) |\n");
  printf("| ---: | ---: | ---: | ---: | ---: |\n");
  for (k = 0; k < sizeof(aF) / sizeof(aF[0]); k++) {
    double lo = 1, hi = 0, sum = 0;
    int s;
    for (s = 0; s < nSeed; s++) {
      cf_params p;
      cf_filter f;
      uint8_t *buf;
      uint64_t i;
      double load;
      memset(&p, 0, sizeof(p));
      p.nbuckets = m;
      p.bucket_size = 4;
      p.fp_bits = aF[k];
      p.capacity = 1;
      p.seed = 1000 + (uint64_t)s;
      buf = xmalloc((size_t)cf_blob_size(&p));
      cf_init(&f, &p, buf);
      for (i = 0;; i++) {
        if (cf_insert(&f, key_of(&f, i)) != CF_OK) break;
      }
      load = (double)f.count / (double)(m * 4);
      if (load < lo) lo = load;
      if (load > hi) hi = load;
      sum += load;
      free(buf);
    }
    printf("| %u | %.2f%% | %.2f%% | %.2f%% | %.2f%% |\n", aF[k], 100 * lo,
           100 * sum / nSeed, 100 * hi, aPaper[k]);
  }
}

/* ---------------------------------------------------------------------
** 3. False-positive rate and space at full capacity.
*/
static void bench_fpr(void) {
  static const double aEps[] = {0.01, 0.001, 0.0001};
  static const uint64_t aCap[] = {1000, 12345, 1000000, 1500000};
  uint64_t n = 1000000 / g_scale + 1000;
  uint64_t nProbe = 10000000 / g_scale + 10000;
  size_t k, c;
  printf("\n### 3. False-positive rate and space at full capacity (b = 4, "
         "%llu items, %llu absent probes)\n\n",
         (unsigned long long)n, (unsigned long long)nProbe);
  printf("| error_rate | f | measured FPR | FPR / target | bits/item | "
         "bound 1.06 f/0.95 | Bloom filter bits/item |\n");
  printf("| ---: | ---: | ---: | ---: | ---: | ---: | ---: |\n");
  for (k = 0; k < sizeof(aEps) / sizeof(aEps[0]); k++) {
    cf_filter f;
    uint8_t *buf = new_filter(&f, n, aEps[k], 0);
    uint64_t i, fp = 0;
    double bpi;
    for (i = 0; i < n; i++) {
      if (cf_insert(&f, key_of(&f, i)) != CF_OK) {
        printf("ERROR: insert %llu of %llu failed\n", (unsigned long long)i,
               (unsigned long long)n);
        exit(1);
      }
    }
    for (i = 0; i < nProbe; i++)
      fp += cf_contains(&f, key_of(&f, i + (1ULL << 40)));
    bpi = (double)f.table_size * 8.0 / (double)n;
    printf("| %g | %u | %.4f%% | %.2f | %.2f | %.2f | %.2f |\n", aEps[k],
           f.p.fp_bits, 100.0 * fp / nProbe, (double)fp / nProbe / aEps[k], bpi,
           1.06 * f.p.fp_bits / 0.95, 1.44 * log2(1 / aEps[k]));
    free(buf);
  }

  printf("\nBits per item of the bucket array at capacity (b = 4) against "
         "the bound 1.06 f / 0.95:\n\n");
  printf("| capacity |");
  for (k = 0; k < sizeof(aEps) / sizeof(aEps[0]); k++)
    printf(" error_rate %g |", aEps[k]);
  printf("\n| ---: |");
  for (k = 0; k < sizeof(aEps) / sizeof(aEps[0]); k++)
    printf(" ---: |");
  printf("\n");
  for (c = 0; c < sizeof(aCap) / sizeof(aCap[0]); c++) {
    printf("| %llu |", (unsigned long long)aCap[c]);
    for (k = 0; k < sizeof(aEps) / sizeof(aEps[0]); k++) {
      cf_params p;
      double bpi, bound;
      cf_params_for(&p, aCap[c], aEps[k], 4, 0);
      bpi = (double)cf_table_size(&p) * 8.0 / (double)aCap[c];
      bound = 1.06 * p.fp_bits / 0.95;
      printf(" %.2f of %.2f (f=%u)%s |", bpi, bound, p.fp_bits,
             bpi <= bound ? "" : " OVER");
    }
    printf("\n");
  }
}

/* ---------------------------------------------------------------------
** 4. cuckoo_contains per row, against abs().
*/
static void check(int rc, sqlite3 *db, const char *zWhat) {
  if (rc != SQLITE_OK && rc != SQLITE_DONE && rc != SQLITE_ROW) {
    tl_die("%s: %s", zWhat, sqlite3_errmsg(db));
  }
}

/* Run a prepared count(*) query; returns ns elapsed, *pCount the count. */
static double time_count(sqlite3 *db, sqlite3_stmt *pStmt, sqlite3_int64 *pN) {
  double t0 = now_ns();
  check(sqlite3_step(pStmt), db, "step");
  *pN = sqlite3_column_int64(pStmt, 0);
  sqlite3_reset(pStmt);
  return now_ns() - t0;
}

/* One row of table 4: a filter of nItems odd numbers probed for every row
** of t (1..nRows). */
static void sql_row(sqlite3 *db, sqlite3_int64 nRows, sqlite3_int64 nItems) {
  sqlite3_stmt *pContains, *pAbs;
  sqlite3_int64 nHit = 0, nAll = 0, x;
  const int nRep = 9;
  double aC[9], aA[9], aR[9], mA, mC;
  cf_filter f;
  uint8_t *pBuf;
  int i;

  /* Built with the core (building a 1.7 MB BLOB through cuckoo_add calls
  ** would copy it once per call) and bound as a BLOB parameter. */
  pBuf = new_filter(&f, (uint64_t)nItems, 0.001, 0);
  for (x = 1; x <= 2 * nItems; x += 2) {
    if (cf_insert(&f, cf_key_of(&f, cf_hash_int(0, x))) != CF_OK) {
      fprintf(stderr, "core_bench: filter full\n");
      exit(1);
    }
  }
  check(sqlite3_prepare_v2(db,
                           "SELECT count(*) FROM t WHERE cuckoo_contains(?, x)",
                           -1, &pContains, 0),
        db, "prepare contains");
  check(sqlite3_prepare_v2(db, "SELECT count(*) FROM t WHERE abs(x) >= 0", -1,
                           &pAbs, 0),
        db, "prepare abs");
  sqlite3_bind_blob(pContains, 1, pBuf, (int)f.blob_size, SQLITE_STATIC);

  /* warm up both, then alternate */
  time_count(db, pAbs, &nAll);
  time_count(db, pContains, &nHit);
  for (i = 0; i < nRep; i++) {
    aA[i] = time_count(db, pAbs, &nAll);
    aC[i] = time_count(db, pContains, &nHit);
    aR[i] = aC[i] / aA[i];
  }
  mA = median(aA, nRep);
  mC = median(aC, nRep);
  printf("| %lld | %.1f KB | %.1f | %.1f | %.1f | **%.2f** (%.2f) |\n", nItems,
         f.blob_size / 1e3, mA / nRows, mC / nRows, (mC - mA) / nRows, mC / mA,
         median(aR, nRep));
  if (nHit < (nItems < nRows / 2 ? nItems : nRows / 2) || nAll != nRows) {
    printf("ERROR: %lld rows found of %lld present\n", nHit, nItems);
    exit(1);
  }
  sqlite3_finalize(pContains);
  sqlite3_finalize(pAbs);
  free(pBuf);
}

static void bench_sql(void) {
  sqlite3 *db;
  sqlite3_int64 nRows = 2000000 / (sqlite3_int64)g_scale + 1000;
  sqlite3_int64 aItems[3];
  char *zErr = 0;
  char zSql[400];
  int k;

  aItems[0] = 1000;
  aItems[1] = 100000 / (sqlite3_int64)g_scale + 100;
  aItems[2] = nRows / 2;
  check(sqlite3_open(":memory:", &db), db, "open");
  if (sqlite3_cuckoo_init(db, &zErr, 0) != SQLITE_OK) {
    fprintf(stderr, "core_bench: init: %s\n", zErr ? zErr : "?");
    exit(1);
  }
  sqlite3_snprintf(
      sizeof(zSql), zSql,
      "CREATE TABLE t(x INTEGER);"
      "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n "
      "WHERE i < %lld) INSERT INTO t SELECT i FROM n",
      nRows);
  check(sqlite3_exec(db, zSql, 0, 0, 0), db, "fill t");
  printf("\n### 4. cuckoo_contains per row in SQL: `SELECT count(*) FROM t "
         "WHERE cuckoo_contains(?, x)` against `SELECT count(*) FROM t WHERE "
         "abs(x) >= 0`\n\n");
  printf("%lld rows (x = 1, 2, ...); the filter holds the odd x up to 2n "
         "(error_rate 0.001); median of 9 alternating runs.\n\n",
         nRows);
  printf("| filter items n | filter size | abs ns/row | contains ns/row | "
         "extra ns/row | ratio (median of per-run ratios) |\n");
  printf("| ---: | ---: | ---: | ---: | ---: | ---: |\n");
  for (k = 0; k < 3; k++)
    sql_row(db, nRows, aItems[k]);
  printf("\nTarget: ratio <= 1.3.\n");
  sqlite3_close(db);
}

int main(int argc, char **argv) {
  const char *zScale = getenv("BENCH_SCALE");
  const char *zOnly = argc > 1 ? argv[1] : "";
  tl_zProgram = "core_bench";
  setvbuf(stdout, 0, _IOLBF, 0); /* tables appear as they are measured */
  if (zScale && atoll(zScale) > 0) g_scale = (uint64_t)atoll(zScale);
  printf("core_bench (BENCH_SCALE=%llu)\n", (unsigned long long)g_scale);
  if (!*zOnly || strchr(zOnly, '1')) bench_speed();
  if (!*zOnly || strchr(zOnly, '2')) bench_load();
  if (!*zOnly || strchr(zOnly, '3')) bench_fpr();
  if (!*zOnly || strchr(zOnly, '4')) bench_sql();
  return 0;
}
