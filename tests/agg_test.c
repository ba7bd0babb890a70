/*
** Copyright (c) 2026 the cuckoo authors.  MIT License: see LICENSE.
**
** agg_test.c: the aggregates checked against their definitions, with
** SQLite and the extension linked statically (-DSQLITE_CORE).
**
**   a. Exact size: cuckoo_agg(x [, error_rate [, NULL, options]]) is
**      byte-identical to a filter built here from the rule in
**      ext/cuckoo_agg.c (rule 3): the distinct 64-bit hashes in ascending
**      order, inserted into the first bucket count of the sequence
**      m0 = max(1, ceil(n/(b*T))), m' = m + max(1, m/64) that holds them
**      all.  Many sizes, item types, duplicates, options; the rows in two
**      different orders give the same BLOB.
**   b. Fixed geometry: cuckoo_agg(x, e, capacity) is byte-identical to
**      cuckoo_new(capacity, e) with the distinct hashes added in ascending
**      order.
**   c. Space: bits per item of the bucket array <= 1.10 * f / 0.95 for every
**      size n >= 48 tried (all n to 3000, then a geometric grid), and a
**      table of bits per item with and without the 40-byte header.
**   d. SQLITE_LIMIT_LENGTH: exact, fixed and window builds that would
**      exceed it fail with SQLITE_TOOBIG and a message naming cuckoo_agg.
**   e. Windows: randomized frames of every kind (ROWS, RANGE, GROUPS,
**      EXCLUDE, PARTITION BY, FOLLOWING-only, shrinking and growing) checked
**      row by row against SQLite's own group_concat() over the same window:
**      the count is the number of distinct items of the frame, every item
**      of the frame is found, and the false-positive rate over absent
**      items is below the error rate.
**
** CUCKOO_SANITIZED=1 in the environment scales the loops down.  The last
** line is "agg_test: N passed, N failed".
*/
#include <sqlite3.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cuckoo_filter.h"
#include "testlib.h"

int sqlite3_cuckoo_init(sqlite3 *db, char **pzErr, const void *pApi);

static int scale = 1;

static uint64_t g_rng = 0x853c49e6748fea9bULL;
static uint64_t rnd(void) { return tl_rnd(&g_rng); }

/* Run a one-row query; copy its first column (a BLOB) into *pn bytes. */
static uint8_t *query_blob(sqlite3 *db, const char *zSql, size_t *pn) {
  sqlite3_stmt *s = tl_prep(db, zSql);
  uint8_t *p = 0;
  *pn = 0;
  if (sqlite3_step(s) == SQLITE_ROW &&
      sqlite3_column_type(s, 0) == SQLITE_BLOB) {
    *pn = (size_t)sqlite3_column_bytes(s, 0);
    p = tl_xmalloc(*pn);
    memcpy(p, sqlite3_column_blob(s, 0), *pn);
  }
  sqlite3_finalize(s);
  return p;
}

static int cmp_u64(const void *a, const void *b) {
  uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
  return x < y ? -1 : x > y;
}

/* Sort and drop duplicates; returns the new length. */
static size_t sort_unique(uint64_t *h, size_t n) {
  size_t i, k = 0;
  qsort(h, n, sizeof(uint64_t), cmp_u64);
  for (i = 0; i < n; i++) {
    if (k == 0 || h[k - 1] != h[i]) h[k++] = h[i];
  }
  return k;
}

/* Parameters cuckoo_new would choose for (capacity, e, b, semisort). */
static void params_for(cf_params *p, uint64_t cap, double e, unsigned b,
                       int semisort, uint64_t seed) {
  cf_params_for(p, cap, e, b, seed);
  if (semisort) {
    p->flags = CF_FLAG_SEMISORT;
    if (p->fp_bits < CF_SS_MIN_FP_BITS) p->fp_bits = CF_SS_MIN_FP_BITS;
  }
}

/* Insert sorted hashes h[0..n) into a fresh filter of geometry *p; NULL if
** one does not fit. */
static uint8_t *fill(const cf_params *p, const uint64_t *h, size_t n,
                     size_t *pSize) {
  cf_filter f;
  uint8_t *buf = tl_xmalloc((size_t)cf_blob_size(p));
  size_t i;
  cf_init(&f, p, buf);
  for (i = 0; i < n; i++) {
    if (cf_insert(&f, cf_key_of(&f, h[i])) != CF_OK) {
      free(buf);
      return 0;
    }
  }
  *pSize = f.blob_size;
  return buf;
}

/* The exact-size filter of rule 3 for sorted distinct hashes h[0..n). */
static uint8_t *expect_exact(const uint64_t *h, size_t n, double e, unsigned b,
                             int semisort, uint64_t seed, size_t *pSize) {
  cf_params p;
  uint64_t m;
  params_for(&p, 1, e, b, semisort, seed);
  p.capacity = n ? n : 1;
  m = (uint64_t)ceil((double)n / (b * cf_load_target(b, p.fp_bits)));
  if (m < 1) m = 1;
  while (m * b < p.capacity)
    m++;
  for (;;) {
    uint8_t *buf;
    p.nbuckets = m;
    buf = fill(&p, h, n, pSize);
    if (buf) return buf;
    m += m / 64 > 1 ? m / 64 : 1;
  }
}

/* ---------------------------------------------------------------------
** a, b: byte-identity with the definitions
*/

/* Fill table zTab with n rows: integer items from a universe of nUniv
** values (so duplicates), in a random order, plus a few NULLs.  Hashes of
** the items go to h (seed `seed`); returns how many. */
static size_t fill_table(sqlite3 *db, const char *zTab, size_t n,
                         uint64_t nUniv, int asText, uint64_t seed,
                         uint64_t *h) {
  char zSql[200];
  sqlite3_stmt *s;
  size_t i, k = 0;
  snprintf(zSql, sizeof(zSql), "DROP TABLE IF EXISTS %s", zTab);
  tl_exec(db, zSql);
  snprintf(zSql, sizeof(zSql), "CREATE TABLE %s(x)", zTab);
  tl_exec(db, zSql);
  snprintf(zSql, sizeof(zSql), "INSERT INTO %s VALUES(?)", zTab);
  tl_exec(db, "BEGIN");
  s = tl_prep(db, zSql);
  for (i = 0; i < n; i++) {
    int64_t v = (int64_t)(rnd() % nUniv) - (int64_t)(nUniv / 3);
    if (rnd() % 50 == 0) {
      sqlite3_bind_null(s, 1);
    } else if (asText) {
      char z[40];
      int len = snprintf(z, sizeof(z), "item-%lld", (long long)v);
      sqlite3_bind_text(s, 1, z, len, SQLITE_TRANSIENT);
      h[k++] = cf_hash_text(seed, z, (size_t)len);
    } else if (rnd() % 4 == 0) {
      sqlite3_bind_double(s, 1, (double)v); /* 42.0 is item 42 */
      h[k++] = cf_hash_int(seed, v);
    } else {
      sqlite3_bind_int64(s, 1, v);
      h[k++] = cf_hash_int(seed, v);
    }
    sqlite3_step(s);
    sqlite3_reset(s);
  }
  sqlite3_finalize(s);
  tl_exec(db, "COMMIT");
  return k;
}

static void test_identity(void) {
  static const size_t aSize[] = {0,    1,    2,     3,     4,     5,
                                 7,    12,   31,    64,    100,   257,
                                 1000, 4099, 10000, 65537, 200000};
  static const struct {
    const char *zArgs; /* extra arguments of cuckoo_agg */
    double e;
    unsigned b;
    int semisort;
    uint64_t seed;
  } aCfg[] = {
      {"", 0.001, 4, 0, 0},
      {", 0.01", 0.01, 4, 0, 0},
      {", NULL, NULL, 'semisort'", 0.001, 4, 1, 0},
      {", 0.2, NULL, 'bucket_size=2 seed=99'", 0.2, 2, 0, 99},
      {", 1e-6, NULL, 'bucket_size=8'", 1e-6, 8, 0, 0},
      {", 0.5, NULL, 'semisort seed=7'", 0.5, 4, 1, 7},
  };
  sqlite3 *db = tl_open(":memory:");
  uint64_t *h = tl_xmalloc(200000 * sizeof(uint64_t));
  size_t iSize, iCfg;
  for (iCfg = 0; iCfg < sizeof(aCfg) / sizeof(aCfg[0]); iCfg++) {
    for (iSize = 0; iSize < sizeof(aSize) / sizeof(aSize[0]); iSize++) {
      size_t nRow = aSize[iSize] / (size_t)scale, n, nGot, nGot2, nWant;
      int asText = (iSize % 3) == 1;
      uint64_t nUniv = nRow < 4 ? 1000000 : (iSize % 2 ? nRow : nRow / 3);
      char zSql[300];
      uint8_t *got, *got2, *want;
      if (iCfg > 0 && nRow > 20000) continue;
      n = fill_table(db, "t1", nRow, nUniv, asText, aCfg[iCfg].seed, h);
      n = sort_unique(h, n);
      snprintf(zSql, sizeof(zSql), "SELECT cuckoo_agg(x%s) FROM t1",
               aCfg[iCfg].zArgs);
      got = query_blob(db, zSql, &nGot);
      want = expect_exact(h, n, aCfg[iCfg].e, aCfg[iCfg].b, aCfg[iCfg].semisort,
                          aCfg[iCfg].seed, &nWant);
      if (nRow == 0 && iCfg > 0) {
        /* No row at all: the arguments are unknown, the result NULL. */
        CHECKF(got == 0, "no rows, cfg %d: NULL expected", (int)iCfg);
        free(got);
        free(want);
        continue;
      }
      CHECKF(got && nGot == nWant && memcmp(got, want, nWant) == 0,
             "exact cfg %d rows %zu distinct %zu: %zu vs %zu bytes", (int)iCfg,
             nRow, n, nGot, nWant);
      /* The same rows in another order give the same BLOB. */
      tl_exec(db, "DROP TABLE IF EXISTS t2;"
                  "CREATE TABLE t2 AS SELECT x FROM t1 ORDER BY random()");
      snprintf(zSql, sizeof(zSql), "SELECT cuckoo_agg(x%s) FROM t2",
               aCfg[iCfg].zArgs);
      got2 = query_blob(db, zSql, &nGot2);
      CHECKF(got2 && nGot2 == nGot && memcmp(got, got2, nGot) == 0,
             "row order cfg %d rows %zu", (int)iCfg, nRow);
      free(got);
      free(got2);
      free(want);
    }
  }
  /* b. Fixed geometry: cuckoo_new(capacity, e) + the hashes in order. */
  for (iSize = 0; iSize < sizeof(aSize) / sizeof(aSize[0]); iSize++) {
    size_t nRow = aSize[iSize] / (size_t)scale, n, nGot, nNew;
    uint64_t cap = nRow < 3 ? 3 : nRow / 2 + 1;
    char zSql[300];
    uint8_t *got, *empty;
    cf_filter f;
    size_t i;
    int ok = 1;
    n = fill_table(db, "t1", nRow, nRow < 3 ? 1000 : nRow / 2, 0, 0, h);
    n = sort_unique(h, n);
    snprintf(zSql, sizeof(zSql), "SELECT cuckoo_agg(x, 0.01, %llu) FROM t1",
             (unsigned long long)cap);
    got = query_blob(db, zSql, &nGot);
    if (nRow == 0) {
      CHECKF(got == 0, "fixed, no rows: NULL expected");
      free(got);
      continue;
    }
    snprintf(zSql, sizeof(zSql), "SELECT cuckoo_new(%llu, 0.01)",
             (unsigned long long)cap);
    empty = query_blob(db, zSql, &nNew);
    if (empty == 0 || cf_open(&f, empty, nNew, 0) != CF_OK) {
      CHECKF(0, "cuckoo_new(%llu, 0.01) failed", (unsigned long long)cap);
      continue;
    }
    for (i = 0; i < n && ok; i++) {
      ok = cf_insert(&f, cf_key_of(&f, h[i])) == CF_OK;
    }
    if (ok) {
      CHECKF(got && nGot == nNew && memcmp(got, empty, nNew) == 0,
             "fixed: rows %zu distinct %zu capacity %llu", nRow, n,
             (unsigned long long)cap);
    } else {
      CHECKF(got == 0, "fixed: rows %zu: expected the full error", nRow);
    }
    free(got);
    free(empty);
  }
  free(h);
  sqlite3_close(db);
}

/* ---------------------------------------------------------------------
** c. space
*/

static void test_space(void) {
  sqlite3 *db = tl_open(":memory:");
  uint64_t n, nMax = 3000000 / (uint64_t)scale, nNextPrint = 100;
  int nOver = 0;
  printf("%10s %8s %5s %10s %12s %10s\n", "items", "buckets", "f", "bits/item",
         "with header", "bound");
  for (n = 1; n <= nMax;) {
    char zSql[300];
    size_t nBlob;
    uint8_t *blob;
    cf_filter f;
    double bpi, total, bound;
    snprintf(zSql, sizeof(zSql),
             "WITH RECURSIVE s(i) AS (SELECT 1 UNION ALL SELECT i+1 FROM s "
             "WHERE i < %llu) SELECT cuckoo_agg(i * 7919) FROM s",
             (unsigned long long)n);
    blob = query_blob(db, zSql, &nBlob);
    if (blob == 0 || cf_open(&f, blob, nBlob, 0) != CF_OK) {
      CHECKF(0, "space: no filter for %llu items", (unsigned long long)n);
      free(blob);
      break;
    }
    bpi = (double)f.table_size * 8.0 / (double)n;
    total = (double)f.blob_size * 8.0 / (double)n;
    bound = 1.10 * f.p.fp_bits / 0.95;
    CHECKF(f.count == n && f.p.capacity == n, "space: count %llu of %llu",
           (unsigned long long)f.count, (unsigned long long)n);
    if (n >= 48) {
      CHECKF(bpi <= bound, "space: %llu items: %.3f bits/item > %.3f",
             (unsigned long long)n, bpi, bound);
    } else if (bpi > bound) {
      nOver++;
    }
    if (n <= 10 || n == 47 || n == 48 || n >= nNextPrint || n == nMax) {
      printf("%10llu %8llu %5u %10.2f %12.2f %10.2f\n", (unsigned long long)n,
             (unsigned long long)f.p.nbuckets, f.p.fp_bits, bpi, total, bound);
      while (nNextPrint <= n)
        nNextPrint *= 10;
    }
    free(blob);
    if (n < 3000) {
      n++;
    } else if (n < 1000000) {
      n = n * 21 / 20;
      if (n > 100000 && n < 1000000) n = n < 1000000 / 2 ? n * 2 : 1000000;
    } else {
      n = n == 1000000 ? 3000000 : n + 1;
    }
  }
  printf("space: %d sizes below 48 items exceed the bound (whole buckets)\n",
         nOver);
  sqlite3_close(db);
}

/* ---------------------------------------------------------------------
** d. SQLITE_LIMIT_LENGTH
*/

/* Run zSql; expect SQLITE_TOOBIG with zPattern in the message. */
static void expect_toobig(sqlite3 *db, const char *zSql, const char *zPattern) {
  sqlite3_stmt *s = tl_prep(db, zSql);
  int rc;
  while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
  }
  sqlite3_finalize(s);
  CHECKF(rc != SQLITE_DONE && sqlite3_errcode(db) == SQLITE_TOOBIG &&
             strstr(sqlite3_errmsg(db), zPattern) != 0,
         "%s: rc=%d %s", zSql, sqlite3_errcode(db), sqlite3_errmsg(db));
}

static void test_limit(void) {
  sqlite3 *db = tl_open(":memory:");
  tl_exec(db, "CREATE TABLE t(x);"
              "WITH RECURSIVE s(i) AS (SELECT 1 UNION ALL SELECT i+1 FROM s "
              "WHERE i < 20000) INSERT INTO t SELECT i FROM s;");
  sqlite3_limit(db, SQLITE_LIMIT_LENGTH, 20000);
  /* 20000 items need about 35 KB: found while collecting. */
  expect_toobig(db, "SELECT cuckoo_agg(x) FROM t",
                "cuckoo_agg: the group has more than");
  /* 8000 items fit with 13-bit fingerprints (~14 KB), not with 32. */
  expect_toobig(db, "SELECT cuckoo_agg(x, 2e-9) FROM t WHERE x <= 8000",
                "more than SQLITE_LIMIT_LENGTH");
  expect_toobig(db, "SELECT cuckoo_agg(x, 0.001, 100000) FROM t",
                "more than SQLITE_LIMIT_LENGTH");
  expect_toobig(db, "SELECT cuckoo_agg(x) OVER (ORDER BY x) FROM t",
                "more than SQLITE_LIMIT_LENGTH");
  {
    size_t n;
    uint8_t *p =
        query_blob(db, "SELECT cuckoo_agg(x) FROM t WHERE x <= 8000", &n);
    CHECKF(p != 0 && n <= 20000, "8000 items fit in 20000 bytes (%zu)", n);
    free(p);
  }
  sqlite3_close(db);
}

/* ---------------------------------------------------------------------
** e. windows against group_concat over the same window
*/

/* Parse group_concat's comma list of integers into v (returns count). */
static size_t parse_list(const char *z, int64_t *v, size_t nMax) {
  size_t n = 0;
  while (z && *z && n < nMax) {
    char *zEnd;
    v[n++] = (int64_t)strtod(z, &zEnd);
    z = *zEnd == ',' ? zEnd + 1 : zEnd;
    if (zEnd == z && *z) break;
  }
  return n;
}

static int cmp_i64(const void *a, const void *b) {
  int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
  return x < y ? -1 : x > y;
}

static void test_window(void) {
  static const char *azWin[] = {
      "ORDER BY ts ROWS 0 PRECEDING",
      "ORDER BY ts ROWS 1 PRECEDING",
      "ORDER BY ts ROWS 9 PRECEDING",
      "ORDER BY ts ROWS 150 PRECEDING",
      "PARTITION BY p ORDER BY ts ROWS 20 PRECEDING",
      "ORDER BY ts ROWS BETWEEN 30 PRECEDING AND 30 FOLLOWING",
      "ORDER BY ts ROWS BETWEEN 5 FOLLOWING AND 40 FOLLOWING",
      "ORDER BY ts ROWS BETWEEN 40 PRECEDING AND 3 PRECEDING",
      "ORDER BY ts ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW",
      "ORDER BY ts ROWS BETWEEN CURRENT ROW AND UNBOUNDED FOLLOWING",
      "ORDER BY ts RANGE BETWEEN 50 PRECEDING AND 20 FOLLOWING",
      "ORDER BY k GROUPS BETWEEN 3 PRECEDING AND 1 FOLLOWING",
      "ORDER BY k ROWS 12 PRECEDING EXCLUDE CURRENT ROW",
      "ORDER BY k RANGE BETWEEN 4 PRECEDING AND CURRENT ROW EXCLUDE TIES",
      "PARTITION BY p",
      "ORDER BY ts RANGE 400 PRECEDING",
  };
  static const char *azArgs[] = {"", ", 0.01", ", 0.01, 400",
                                 ", 0.01, NULL, 'semisort'"};
  sqlite3 *db = tl_open(":memory:");
  int nRow = 2500 / scale, i, iWin, iArg;
  sqlite3_stmt *s;
  int64_t *aFrame = tl_xmalloc(sizeof(int64_t) * (size_t)nRow);
  uint64_t nProbe = 0, nFalse = 0;
  int64_t ts = 0;
  tl_exec(db, "CREATE TABLE t(ts INTEGER PRIMARY KEY, p, k, x)");
  s = tl_prep(db, "INSERT INTO t VALUES(?, ?, ?, ?)");
  for (i = 0; i < nRow; i++) {
    /* Stretches of dense and sparse timestamps: RANGE frames of a few
    ** rows to a few hundred, so window filters grow and shrink. */
    ts += (i / 300) % 2 ? 1 + (int64_t)(rnd() % 2) : 20 + (int64_t)(rnd() % 20);
    sqlite3_bind_int64(s, 1, ts);
    sqlite3_bind_int(s, 2, (int)(rnd() % 3));
    sqlite3_bind_int64(s, 3, ts / 10);
    if (rnd() % 25 == 0) {
      sqlite3_bind_null(s, 4);
    } else {
      sqlite3_bind_int64(s, 4, (int64_t)(rnd() % 700));
    }
    sqlite3_step(s);
    sqlite3_reset(s);
  }
  sqlite3_finalize(s);
  for (iWin = 0; iWin < (int)(sizeof(azWin) / sizeof(azWin[0])); iWin++) {
    for (iArg = 0; iArg < 4; iArg++) {
      char zSql[600];
      int nBad = 0, nCountBad = 0, nRows = 0, full = 0;
      if (iArg == 2 && (iWin == 9 || iWin == 8 || iWin == 14)) continue;
      snprintf(zSql, sizeof(zSql),
               "SELECT cuckoo_agg(x%s) OVER win, group_concat(x) OVER win "
               "FROM t WINDOW win AS (%s)",
               azArgs[iArg], azWin[iWin]);
      s = tl_prep(db, zSql);
      while (sqlite3_step(s) == SQLITE_ROW) {
        const void *pBlob = sqlite3_column_blob(s, 0);
        int nBlob = sqlite3_column_bytes(s, 0);
        const char *zList = (const char *)sqlite3_column_text(s, 1);
        size_t nFrame = parse_list(zList, aFrame, (size_t)nRow), j, nDist;
        cf_filter f;
        nRows++;
        qsort(aFrame, nFrame, sizeof(int64_t), cmp_i64);
        for (j = 0, nDist = 0; j < nFrame; j++) {
          if (nDist == 0 || aFrame[nDist - 1] != aFrame[j]) {
            aFrame[nDist++] = aFrame[j];
          }
        }
        if (pBlob == 0) {
          /* Only a frame before any row, with arguments (rule 8). */
          if (nDist != 0 || iArg == 0) nBad++;
          continue;
        }
        if (cf_open(&f, pBlob, (size_t)nBlob, 0) != CF_OK) {
          nBad++;
          continue;
        }
        if (f.count != nDist) nCountBad++;
        for (j = 0; j < nDist; j++) {
          if (!cf_contains(&f, cf_key_of(&f, cf_hash_int(0, aFrame[j])))) {
            nBad++;
          }
        }
        /* Absent items of the universe (0..699) and outside it. */
        for (j = 0; j < 60; j++) {
          int64_t v = (int64_t)(rnd() % 1400);
          if (bsearch(&v, aFrame, nDist, sizeof(int64_t), cmp_i64)) continue;
          nProbe++;
          nFalse += cf_contains(&f, cf_key_of(&f, cf_hash_int(0, v))) ? 1 : 0;
        }
        if (iArg == 2) {
          full |= f.p.capacity != 400;
        }
      }
      if (sqlite3_finalize(s) != SQLITE_OK) {
        /* Only the fixed capacity may fail: a frame with too many items. */
        CHECKF(iArg == 2 && strstr(sqlite3_errmsg(db), "filter is full"),
               "%s: %s", zSql, sqlite3_errmsg(db));
        continue;
      }
      CHECKF(nRows == nRow && nBad == 0 && nCountBad == 0 && full == 0,
             "%s: rows %d bad %d wrong counts %d", zSql, nRows, nBad,
             nCountBad);
    }
  }
  CHECKF(nProbe > 100000 && nFalse < nProbe / 100,
         "window false positives %llu of %llu probes",
         (unsigned long long)nFalse, (unsigned long long)nProbe);
  printf("window: %llu false positives in %llu absent probes (%.4f%%)\n",
         (unsigned long long)nFalse, (unsigned long long)nProbe,
         100.0 * (double)nFalse / (double)(nProbe ? nProbe : 1));
  free(aFrame);
  sqlite3_close(db);
}

int main(void) {
  const char *z = getenv("CUCKOO_SANITIZED");
  tl_zProgram = "agg_test";
  if (z && z[0] == '1') scale = 5;
  sqlite3_auto_extension((void (*)(void))sqlite3_cuckoo_init);
  test_identity();
  test_space();
  test_limit();
  test_window();
  return tl_report("agg_test");
}
