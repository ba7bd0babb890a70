/*
** Copyright (c) 2026 the cuckoo authors.  MIT License: see LICENSE.
**
** speed_bench.c: speed and space of the core filter (ext/cuckoo_filter.h),
** plain and semi-sorted, next to the paper authors' C++ implementation
** (a reference table measured on a machine of this kind).
**
** Usage (from the repository root; `make bench` runs it with no argument):
**
**   build/bench/speed_bench                 both tables below
**   build/bench/speed_bench --speed         the speed table only
**   build/bench/speed_bench --fpr [FILE]    the space/FPR table only, and
**                                           its data as columns in FILE
**                                           (the input of fpr_vs_bits.gp)
**
** BENCH_SCALE (environment, default 1) divides every filter size and
** operation count, for a quick smoke run; BENCH_MAX_MB=N skips the speed
** rows whose (scaled) filter is larger than N MB.
**
** 1. Speed.  b = 4; plain filters with 12-bit fingerprints, semi-sorted
**    ones with 13-bit fingerprints (the same 48 bits per bucket, so the
**    same bucket count), at the filter sizes: 384 KB, 6 MB, 96 MB
**    (2^24 buckets) and 192 MB (2^25 buckets, the paper's Table 3).  Each
**    filter is built by inserting distinct 64-bit integers until the first
**    insert fails (the paper's "full"), then probed with lookups that are
**    0%, 50% and 100% positive in random order, then emptied by deleting
**    every item.  Every figure includes hashing each item with cf_hash_int
**    (XXH3-64 with the filter's seed), like the reference's ~20 ns hash.
**    Operations go through the batched API (cf_hash_int_batch, then
**    cf_insert_batch / cf_contains_batch / cf_remove_batch on chunks of
**    CHUNK items); the "1-by-1" column is the single-item path the SQL
**    functions take (the inline cf_contains_int per item) on the 50% mix.
*bits/item is the bucket array's bits over the items stored;
**    FPR is measured on the 0%-positive lookups.  Filters up to 6 MB are
**    timed 5 times and the best of the 5 is shown (the machine is shared:
**    the best repetition is the one least disturbed), larger ones once.
**
** 2. Space and false positives.  For error rates from 10% down to 0.001%,
**    a plain and a semi-sorted filter made as cuckoo_new makes them
**    (cf_params_for) are filled to capacity; bits/item is the bucket
**    array's bits over the capacity, FPR is measured with at least 100/eps
**    absent items.  Printed next to a space-optimal Bloom filter,
**    1.44 log2(1/eps), and the paper's cuckoo filter bound at 95.5% load,
**    (log2(1/eps) + 3) / 0.955 (semi-sorted: + 2).
**
** Every item found is checked: a false negative aborts the run.
*/
#include "cuckoo_filter.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../testlib.h"
#include "bench.h"

#define CHUNK 8192
#define NEG_BASE 0x4000000000ULL /* ids of absent items start here */

static int g_scale = 1;
static uint64_t g_maxBytes = ~(uint64_t)0; /* BENCH_MAX_MB: skip larger */


/* Item id -> the 64-bit integer stored (a bijection, so distinct ids give
** distinct items). */
static int64_t item_of(uint64_t id) {
  return (int64_t)(id * 0x9e3779b97f4a7c15ULL + 0x632be59bd9b4e019ULL);
}

static void fail(const char *zMsg, unsigned long long a) {
  tl_die("%s (%llu)", zMsg, a);
}

/* The best (highest) of n rates. */
static double best(const double *a, int n) {
  double x = a[0];
  int i;
  for (i = 1; i < n; i++)
    x = a[i] > x ? a[i] : x;
  return x;
}

/* ---------------------------------------------------------------------
** Timed phases.  Items are generated in chunks of CHUNK outside the
** timed part (like the reference's pre-generated key array); what is
** timed is hashing the chunk and the operation on it.  Each returns
** seconds.
*/

/* Insert ids 0, 1, ... until the first failure; returns items stored. */
static uint64_t build_full(cf_filter *f, double *pSec) {
  static int64_t aV[CHUNK];
  static uint64_t aH[CHUNK];
  uint64_t id = 0, n = 0;
  int rc = CF_OK;
  double sec = 0;
  while (rc == CF_OK) {
    size_t i;
    double t0;
    for (i = 0; i < CHUNK; i++)
      aV[i] = item_of(id + i);
    t0 = cpu();
    cf_hash_int_batch(f->p.seed, aV, CHUNK, aH);
    n += cf_insert_batch(f, aH, CHUNK, &rc);
    sec += cpu() - t0;
    id += CHUNK;
  }
  *pSec = sec;
  if (f->count != n) fail("count mismatch after build", f->count);
  return n;
}

/* nOps lookups, a fraction pct/100 of them positive (ids < nItems),
** in random order; returns the number of absent items reported present
** and checks that every present one was found.  single: one item at a
** time through cf_contains_int, the inline single-item path of the SQL
** functions. */
static uint64_t lookups(const cf_filter *f, uint64_t nItems, uint64_t nOps,
                        int pct, int single, double *pSec) {
  static int64_t aV[CHUNK];
  static uint64_t aH[CHUNK];
  static uint8_t aFound[CHUNK], aIsPos[CHUNK];
  uint64_t done = 0, pos = 0, neg = NEG_BASE, r = 0x9e3779b9;
  uint64_t nFalsePos = 0, nPos = 0, nFound = 0;
  double sec = 0;
  while (done < nOps) {
    size_t i, k = nOps - done < CHUNK ? (size_t)(nOps - done) : CHUNK;
    double t0;
    for (i = 0; i < k; i++) {
      uint64_t isPos;
      r ^= r << 13, r ^= r >> 7, r ^= r << 17;
      isPos = ((r >> 32) * 100 >> 32) < (uint64_t)pct;
      aIsPos[i] = (uint8_t)isPos;
      aV[i] = item_of(isPos ? pos : neg);
      pos += isPos;
      neg += 1 - isPos;
      pos = pos == nItems ? 0 : pos;
    }
    t0 = cpu();
    if (single) {
      for (i = 0; i < k; i++) {
        aFound[i] = (uint8_t)cf_contains_int(f, aV[i]);
      }
    } else {
      cf_hash_int_batch(f->p.seed, aV, k, aH);
      cf_contains_batch(f, aH, k, aFound);
    }
    sec += cpu() - t0;
    for (i = 0; i < k; i++) {
      nPos += aIsPos[i];
      nFound += aFound[i];
      nFalsePos += aFound[i] & !aIsPos[i];
    }
    done += k;
  }
  *pSec = sec;
  if (nFound - nFalsePos != nPos) fail("false negatives", nPos);
  return nFalsePos;
}

static void delete_all(cf_filter *f, uint64_t nItems, double *pSec) {
  static int64_t aV[CHUNK];
  static uint64_t aH[CHUNK];
  uint64_t id = 0, nRemoved = 0;
  double sec = 0;
  while (id < nItems) {
    size_t i, k = nItems - id < CHUNK ? (size_t)(nItems - id) : CHUNK;
    double t0;
    for (i = 0; i < k; i++)
      aV[i] = item_of(id + i);
    t0 = cpu();
    cf_hash_int_batch(f->p.seed, aV, k, aH);
    nRemoved += cf_remove_batch(f, aH, k, 0);
    sec += cpu() - t0;
    id += k;
  }
  *pSec = sec;
  if (nRemoved != nItems || f->count != 0)
    fail("delete missed items", nRemoved);
}

/* ---------------------------------------------------------------------
** 1. The speed table.
*/

typedef struct row {
  const char *zSize;
  uint64_t nBytes; /* bucket array size at BENCH_SCALE=1 */
  int semisort;
  double refBuild, refLookup, refDelete; /* 0: no reference figure */
} row;

static const row aRow[] = {
    {"384 KB", 384u << 10, 0, 28.8, 300, 69.8},
    {"384 KB", 384u << 10, 1, 0, 0, 0},
    {"6 MB", 6u << 20, 0, 21.4, 100, 54.5},
    {"6 MB", 6u << 20, 1, 0, 0, 0},
    {"96 MB", 96u << 20, 0, 4.35, 22.5, 18.6},
    {"96 MB", 96u << 20, 1, 3.33, 10.0, 6.6},
    {"192 MB", 192ull << 20, 0, 3.85, 21.2, 18.0},
    {"192 MB", 192ull << 20, 1, 2.98, 9.4, 6.2},
};

/* "ours (ref, ratio)" or just "ours". */
static void print_vs(double ours, double ref) {
  char z[40];
  if (ref > 0)
    snprintf(z, sizeof(z), "%.1f (%.4g; %.2fx)", ours, ref, ours / ref);
  else
    snprintf(z, sizeof(z), "%.1f (-)", ours);
  printf(" %-20s |", z);
}

static void run_row(const row *w) {
  cf_params p;
  cf_filter f;
  uint8_t *buf;
  uint64_t nItems = 0, nOps, nFalsePos = 0, nNeg = 0;
  int nRep, rep, pct;
  double aBuild[5], aLook[3][5], aSingle[5], aDel[5], sec;
  double mBuild, mLook[3], mSingle, mDel, bits, fpr, minLook;

  memset(&p, 0, sizeof(p));
  p.bucket_size = 4;
  p.fp_bits = w->semisort ? 13 : 12;
  p.flags = w->semisort ? CF_FLAG_SEMISORT : 0;
  p.nbuckets = w->nBytes * 8 / 48 / (uint64_t)g_scale;
  if (p.nbuckets < 64) p.nbuckets = 64;
  p.capacity = p.nbuckets * 4;
  p.seed = 0x5eed;
  if (cf_params_check(&p) != CF_OK) fail("bad parameters", p.nbuckets);
  buf = tl_xmalloc((size_t)cf_blob_size(&p));
  nRep = cf_table_size(&p) <= (6u << 20) ? 5 : 1;
  for (rep = 0; rep < nRep; rep++) {
    cf_init(&f, &p, buf);
    nItems = build_full(&f, &sec);
    aBuild[rep] = (double)nItems / sec;
    nOps = nItems > 8000000 / (uint64_t)g_scale ? nItems
                                                : 8000000 / (uint64_t)g_scale;
    for (pct = 0; pct < 3; pct++) {
      uint64_t fp = lookups(&f, nItems, nOps, pct * 50, 0, &sec);
      aLook[pct][rep] = (double)nOps / sec;
      if (pct == 0) nFalsePos += fp, nNeg += nOps;
    }
    lookups(&f, nItems, nOps, 50, 1, &sec);
    aSingle[rep] = (double)nOps / sec;
    delete_all(&f, nItems, &sec);
    aDel[rep] = (double)nItems / sec;
  }
  mBuild = best(aBuild, nRep) / 1e6;
  for (pct = 0; pct < 3; pct++)
    mLook[pct] = best(aLook[pct], nRep) / 1e6;
  mSingle = best(aSingle, nRep) / 1e6;
  mDel = best(aDel, nRep) / 1e6;
  bits = (double)f.table_size * 8.0 / (double)nItems;
  fpr = (double)nFalsePos / (double)nNeg;

  printf("| %-6s | %-9s | %10llu | %5.2f%% | %5.2f | %6.3f%% |", w->zSize,
         w->semisort ? "ss f=13" : "plain f=12", (unsigned long long)nItems,
         100.0 * (double)nItems / (double)(p.nbuckets * 4), bits, 100 * fpr);
  print_vs(mBuild, w->refBuild);
  printf(" %6.1f | %6.1f | %6.1f |", mLook[0], mLook[1], mLook[2]);
  /* the reference is for "any mix": compare the slowest of ours */
  minLook = mLook[0] < mLook[1] ? mLook[0] : mLook[1];
  if (mLook[2] < minLook) minLook = mLook[2];
  if (w->refLookup > 0) {
    printf(" %.4g (%.2fx) |", w->refLookup, minLook / w->refLookup);
  } else {
    printf(" - |");
  }
  print_vs(mDel, w->refDelete);
  printf(" %6.1f |\n", mSingle);
  fflush(stdout);
  free(buf);
}

static void speed_table(void) {
  size_t i;
  printf("Core speed, b = 4, filled to the first failed insert, hash "
         "included (M ops/s;\nreference = the paper authors' C++ "
         "implementation; BENCH_SCALE=%d)\n\n",
         g_scale);
  printf("| filter | variant | items | load | bits/item | FPR | build "
         "(ref; x) | lookup 0%% | 50%% | 100%% | lookup ref (slowest/ref) "
         "| delete (ref; x) | 1-by-1 lookup 50%% |\n");
  printf("| --- | --- | ---: | ---: | ---: | ---: | --- | ---: | ---: | ---: "
         "| ---: | --- | ---: |\n");
  for (i = 0; i < sizeof(aRow) / sizeof(aRow[0]); i++) {
    if (aRow[i].nBytes / (uint64_t)g_scale > g_maxBytes) continue;
    run_row(&aRow[i]);
  }
}

/* ---------------------------------------------------------------------
** 2. Space and false-positive rate versus error_rate.
*/

static void fpr_point(double eps, int semisort, uint64_t cap, unsigned *pF,
                      double *pBits, double *pFpr) {
  cf_params p;
  cf_filter f;
  uint8_t *buf;
  uint64_t id, nNeg, nFalse = 0, done = 0;
  static int64_t aV[CHUNK];
  static uint64_t aH[CHUNK];
  int rc;
  if (cf_params_for(&p, cap, eps, 4, 7) != CF_OK) fail("cf_params_for", cap);
  if (semisort) {
    p.flags = CF_FLAG_SEMISORT;
    if (p.fp_bits < CF_SS_MIN_FP_BITS) p.fp_bits = CF_SS_MIN_FP_BITS;
  }
  buf = tl_xmalloc((size_t)cf_blob_size(&p));
  cf_init(&f, &p, buf);
  for (id = 0; id < cap; id += CHUNK) {
    size_t i, k = cap - id < CHUNK ? (size_t)(cap - id) : CHUNK;
    for (i = 0; i < k; i++)
      aV[i] = item_of(id + i);
    cf_hash_int_batch(p.seed, aV, k, aH);
    if (cf_insert_batch(&f, aH, k, &rc) != k) fail("capacity not reached", id);
  }
  nNeg = (uint64_t)(100.0 / eps);
  if (nNeg < 4000000 / (uint64_t)g_scale) nNeg = 4000000 / (uint64_t)g_scale;
  while (done < nNeg) {
    size_t i, k = nNeg - done < CHUNK ? (size_t)(nNeg - done) : CHUNK;
    for (i = 0; i < k; i++)
      aV[i] = item_of(NEG_BASE + done + i);
    cf_hash_int_batch(p.seed, aV, k, aH);
    nFalse += cf_contains_batch(&f, aH, k, 0);
    done += k;
  }
  *pF = p.fp_bits;
  *pBits = (double)f.table_size * 8.0 / (double)cap;
  *pFpr = (double)nFalse / (double)nNeg;
  free(buf);
}

static void fpr_table(const char *zData) {
  static const double aEps[] = {0.1,  0.05, 0.02, 0.01, 0.005, 0.002, 0.001,
                                5e-4, 2e-4, 1e-4, 5e-5, 2e-5,  1e-5};
  uint64_t cap = 1000000 / (uint64_t)g_scale;
  FILE *out = 0;
  size_t i;
  if (cap < 10000) cap = 10000;
  if (zData) {
    out = fopen(zData, "w");
    if (out == 0) {
      fprintf(stderr, "speed_bench: cannot write %s\n", zData);
      exit(2);
    }
    fprintf(out,
            "# speed_bench --fpr: capacity %llu, b = 4\n"
            "# error_rate  f  bits/item  fpr   ss_f  ss_bits/item  "
            "ss_fpr  bloom_bits  cf_bound_bits  ss_bound_bits\n",
            (unsigned long long)cap);
  }
  printf("\nSpace and false-positive rate at capacity (%llu items, b = 4, "
         "as cuckoo_new sizes them)\n\n",
         (unsigned long long)cap);
  printf("| error_rate | plain f | bits/item | FPR | semisort f | bits/item "
         "| FPR | Bloom 1.44 log2(1/e) | paper CF (log2(1/e)+3)/a | paper "
         "ss-CF (log2(1/e)+2)/a |\n");
  printf("| ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | "
         "---: |\n");
  for (i = 0; i < sizeof(aEps) / sizeof(aEps[0]); i++) {
    double eps = aEps[i], bits, fpr, ssBits, ssFpr;
    double lg = log2(1.0 / eps);
    unsigned f, ssF;
    fpr_point(eps, 0, cap, &f, &bits, &fpr);
    fpr_point(eps, 1, cap, &ssF, &ssBits, &ssFpr);
    printf("| %g | %u | %.2f | %.4g | %u | %.2f | %.4g | %.2f | %.2f | %.2f "
           "|\n",
           eps, f, bits, fpr, ssF, ssBits, ssFpr, 1.44 * lg, (lg + 3) / 0.955,
           (lg + 2) / 0.955);
    if (out) {
      fprintf(out, "%g %u %.4f %.6g %u %.4f %.6g %.4f %.4f %.4f\n", eps, f,
              bits, fpr, ssF, ssBits, ssFpr, 1.44 * lg, (lg + 3) / 0.955,
              (lg + 2) / 0.955);
    }
    fflush(stdout);
  }
  if (out) fclose(out);
}

int main(int argc, char **argv) {
  const char *z = getenv("BENCH_SCALE");
  int doSpeed = 1, doFpr = 1;
  const char *zData = 0;
  tl_zProgram = "speed_bench";
  if (z && atoi(z) > 0) g_scale = atoi(z);
  z = getenv("BENCH_MAX_MB");
  if (z && atoi(z) > 0) g_maxBytes = (uint64_t)atoi(z) << 20;
  if (argc > 1 && strcmp(argv[1], "--speed") == 0) doFpr = 0;
  if (argc > 1 && strcmp(argv[1], "--fpr") == 0) {
    doSpeed = 0;
    if (argc > 2) zData = argv[2];
  }
  if (doSpeed) speed_table();
  if (doFpr) fpr_table(zData);
  return 0;
}
