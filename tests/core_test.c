/*
** Copyright (c) 2026 the cuckoo authors.  MIT License: see LICENSE.
**
** core_test.c: correctness and robustness tests of the SQLite-free core
** (ext/cuckoo_filter.[ch] and the files beside it that
** cuckoo_core_int.h lists), run by `make test` and, under ASan/UBSan, by
** `make asan`.
**
** What is checked (letters as in the test plan):
**   a. a randomized model test: add/remove/contains against an exact
**      multiset, b = 2, 4, 8, several fingerprint widths, many bucket
**      counts that are not powers of two.  After every batch: no false
**      negative, count == model size == cf_count_slots(), copies >= model.
**   b. fill to failure: the failing insert leaves the buffer byte-identical,
**      every inserted item is still found, the load at failure is high.
**   c. too many copies: 2b copies fit, the next is CF_TOO_MANY, unchanged.
**   d. determinism: equal sequences give equal bytes, plus golden hashes
**      that pin the format, the hashing and the kick choices.
**   e. the capacity guarantee: `capacity` distinct items always fit, the
**      space per item and the measured false-positive rate are in bounds.
**   f. cf_open() rejects every malformed header; random and mutated
**      buffers never crash (ASan), accepted ones survive every operation.
**   g. value hashing identities (docs/format.md#item-identity).
**   h. merge: union, mismatch detection.
**   i. callback stores equal the in-memory table; failing accessors undo.
**   j. semi-sorted buckets: the codec over all 3876 codes, and model,
**      fill-to-failure and churn runs at every width 5..32.
**   k. the closed-form item hash equals XXH3; batched insert, lookup and
**      remove give the same results and bytes as single items, at every
**      width, plain and semi-sorted, in every bucket mode (whole words,
**      field by field, tiny tables, tables large enough to prefetch),
**      with no false negative after fill, delete-half and churn.
**   l. slot counts that skip all-zero runs equal a count of every bucket.
**
** Deterministic: every random choice comes from a fixed-seed generator.
** CUCKOO_SANITIZED=1 in the environment scales the loops down ~5x;
** CUCKOO_TEST_SCALE=N by N (make cross, under an emulator); a build with
** -DCORE_TEST_SCALE=N starts from N (make check's CF_NO_SIMD build).
** The last line is "core_test: N passed, N failed".
*/
/* The private header: the tests check internals (the alternate bucket,
** the bucket codecs, the mixer) beside the API. */
#include "cuckoo_core_int.h"
#include "testlib.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define XXH_INLINE_ALL
#include <xxhash.h>

#ifndef CORE_TEST_SCALE
#define CORE_TEST_SCALE 1
#endif
static int scale = CORE_TEST_SCALE; /* divisor for loop sizes */
static uint32_t g_flags = 0; /* bucket encoding of make_filter()'s filters */

/* splitmix64: the only source of randomness, always seeded explicitly. */
typedef struct rng {
  uint64_t s;
} rng;
static uint64_t rnd(rng *r) { return tl_rnd(&r->s); }
static uint64_t rnd_below(rng *r, uint64_t n) { return rnd(r) % n; }

static void *xmalloc(size_t n) {
  void *p = malloc(n ? n : 1);
  if (p == 0) {
    printf("core_test: out of memory\n");
    exit(2);
  }
  return p;
}

/* A filter with explicit geometry in a malloc'd buffer of exact size. */
static uint8_t *make_filter(cf_filter *f, uint64_t m, unsigned b, unsigned fp,
                            uint64_t seed) {
  cf_params p;
  uint8_t *buf;
  memset(&p, 0, sizeof(p));
  p.nbuckets = m;
  p.bucket_size = b;
  p.fp_bits = fp;
  p.capacity = m * b;
  p.seed = seed;
  p.flags = g_flags;
  if (cf_params_check(&p) != CF_OK) {
    printf("core_test: bad params m=%llu b=%u f=%u\n", (unsigned long long)m, b,
           fp);
    exit(2);
  }
  buf = xmalloc((size_t)cf_blob_size(&p));
  cf_init(f, &p, buf);
  return buf;
}

/* First slot of a decoded bucket holding fp, or -1. */
static int cf_slot_of_test(const uint32_t *a, unsigned b, uint32_t fp) {
  unsigned s;
  for (s = 0; s < b; s++)
    if (a[s] == fp) return (int)s;
  return -1;
}

/* Item id -> key: ids are hashed as SQL integers with the filter's seed. */
static cf_key key_of_id(const cf_filter *f, uint64_t id) {
  return cf_key_of(
      f, cf_hash_int(f->p.seed, (int64_t)(id * 0x2545f4914f6cdd1dULL)));
}

/* ---------------------------------------------------------------------
** (a) Randomized model test.
*/

typedef struct model {
  uint64_t nUniverse; /* item ids are 0 .. nUniverse-1 */
  uint8_t *copies;    /* copies[id] */
  uint64_t *present;  /* ids with copies > 0 */
  uint64_t *pos;      /* pos[id]: index in present[], if copies > 0 */
  uint64_t nPresent;
  uint64_t total; /* sum of copies */
} model;

static void model_init(model *md, uint64_t n) {
  md->nUniverse = n;
  md->copies = calloc(n, 1);
  md->present = xmalloc(n * sizeof(uint64_t));
  md->pos = xmalloc(n * sizeof(uint64_t));
  md->nPresent = 0;
  md->total = 0;
  if (md->copies == 0) exit(2);
}
static void model_free(model *md) {
  free(md->copies);
  free(md->present);
  free(md->pos);
}
static void model_add(model *md, uint64_t id) {
  if (md->copies[id]++ == 0) {
    md->pos[id] = md->nPresent;
    md->present[md->nPresent++] = id;
  }
  md->total++;
}
static void model_remove(model *md, uint64_t id) {
  if (--md->copies[id] == 0) {
    uint64_t last = md->present[--md->nPresent];
    md->present[md->pos[id]] = last;
    md->pos[last] = md->pos[id];
  }
  md->total--;
}

/* Full consistency check of filter against model; returns #problems. */
static int model_verify(const cf_filter *f, const model *md) {
  uint64_t i;
  int bad = 0;
  for (i = 0; i < md->nPresent; i++) {
    uint64_t id = md->present[i];
    cf_key k = key_of_id(f, id);
    if (!cf_contains(f, k)) bad++;
    if (cf_copies(f, k) < md->copies[id]) bad++;
  }
  if (f->count != md->total) bad++;
  if (cf_count_slots(f) != f->count) bad++;
  if (cf_get_u64(f->blob + 24) != f->count) bad++;
  return bad;
}

static uint64_t g_model_ops = 0;

static void run_model(uint64_t m, unsigned b, unsigned fp, double target,
                      uint64_t nOps, uint64_t seed) {
  cf_filter f;
  uint8_t *buf = make_filter(&f, m, b, fp, seed);
  uint64_t slots = m * b;
  uint64_t batch = slots / 4 > 500 ? slots / 4 : 500;
  model md;
  rng r = {seed * 7919 + m * 31 + b * 7 + fp};
  uint64_t op, nFalseNeg = 0, nVerifyBad = 0, nInsertFail = 0;
  uint64_t nBadFail = 0, nRemoveMiss = 0, maxTotal = 0;
  model_init(&md, slots * 2 + 8);
  for (op = 1; op <= nOps; op++) {
    uint64_t x = rnd(&r);
    double load = (double)md.total / (double)slots;
    int choice = (int)(x % 100);
    if (load < target ? choice < 60 : choice < 25) {
      /* add: a fresh id, or another copy of a present one */
      uint64_t id;
      int rc;
      uint64_t before = f.count;
      if (md.nPresent > 0 && (x >> 32) % 8 == 0) {
        id = md.present[rnd_below(&r, md.nPresent)];
        if (md.copies[id] >= 3) id = rnd_below(&r, md.nUniverse);
      } else {
        id = rnd_below(&r, md.nUniverse);
      }
      rc = cf_insert(&f, key_of_id(&f, id));
      if (rc == CF_OK) {
        model_add(&md, id);
      } else {
        nInsertFail++;
        if ((rc != CF_FULL && rc != CF_TOO_MANY) || f.count != before)
          nBadFail++;
      }
    } else if (choice < 85 && md.nPresent > 0) {
      uint64_t id = md.present[rnd_below(&r, md.nPresent)];
      if (cf_remove(&f, key_of_id(&f, id)) == CF_OK) {
        model_remove(&md, id);
      } else {
        nRemoveMiss++;
      }
    } else {
      /* contains: a present id must be found */
      if (md.nPresent > 0) {
        uint64_t id = md.present[rnd_below(&r, md.nPresent)];
        if (!cf_contains(&f, key_of_id(&f, id))) nFalseNeg++;
      }
      (void)cf_contains(&f, key_of_id(&f, rnd_below(&r, md.nUniverse)));
    }
    if (md.total > maxTotal) maxTotal = md.total;
    if (op % batch == 0 || op == nOps) nVerifyBad += model_verify(&f, &md);
  }
  g_model_ops += nOps;
  CHECKF(nFalseNeg == 0, "m=%llu b=%u f=%u: %llu false negatives",
         (unsigned long long)m, b, fp, (unsigned long long)nFalseNeg);
  CHECKF(nVerifyBad == 0, "m=%llu b=%u f=%u: %llu verify problems",
         (unsigned long long)m, b, fp, (unsigned long long)nVerifyBad);
  CHECKF(nBadFail == 0, "m=%llu b=%u f=%u: %llu bad insert failures",
         (unsigned long long)m, b, fp, (unsigned long long)nBadFail);
  CHECKF(nRemoveMiss == 0,
         "m=%llu b=%u f=%u: %llu removes of present items "
         "not found",
         (unsigned long long)m, b, fp, (unsigned long long)nRemoveMiss);
  /* A run that never got near its target load tested too little. */
  CHECKF(2.0 * (double)maxTotal >= target * (double)slots,
         "m=%llu b=%u f=%u: load never got near the target",
         (unsigned long long)m, b, fp);
  model_free(&md);
  free(buf);
}

static void test_model(void) {
  static const uint64_t aM[] = {1,   2,    3,    7,    13,   100,
                                257, 1000, 1023, 4099, 12345};
  static const unsigned aB[] = {2, 4, 8};
  static const unsigned aF[] = {4, 7, 12, 16, 19, 32};
  size_t im, ib, iF;
  uint64_t seed = 1;
  for (ib = 0; ib < 3; ib++) {
    unsigned b = aB[ib];
    double target = b == 2 ? 0.80 : b == 4 ? 0.90 : 0.93;
    for (iF = 0; iF < sizeof(aF) / sizeof(aF[0]); iF++) {
      for (im = 0; im < sizeof(aM) / sizeof(aM[0]); im++) {
        uint64_t m = aM[im];
        uint64_t nOps = m * b * 4;
        if (nOps < 2000) nOps = 2000;
        if (nOps > 400000) nOps = 400000;
        /* skip a few combinations to bound the run time */
        if (m == 12345 && aF[iF] != 12 && aF[iF] != 32) continue;
        /* under sanitizers: the small tables only, each run to full load */
        if (scale > 1 && m > 1023) continue;
        run_model(m, b, aF[iF], aF[iF] == 4 && b == 2 ? 0.3 : target, nOps,
                  seed++);
      }
    }
  }
  printf("model test: %llu operations\n", (unsigned long long)g_model_ops);
  CHECK(g_model_ops >= (uint64_t)1000000 / (uint64_t)(scale * 2));
}

/* ---------------------------------------------------------------------
** (b) Fill to failure.
*/
static void fill_to_failure(uint64_t m, unsigned b, unsigned fp, uint64_t seed,
                            double *pLoad) {
  cf_filter f;
  uint8_t *buf = make_filter(&f, m, b, fp, seed);
  uint8_t *copy = xmalloc(f.blob_size);
  uint64_t id, n = 0, lost = 0, extraBad = 0;
  int rc = CF_OK;
  for (id = 0;; id++) {
    memcpy(copy, buf, f.blob_size);
    rc = cf_insert(&f, key_of_id(&f, id));
    if (rc != CF_OK) break;
    n++;
  }
  CHECKF(rc == CF_FULL || rc == CF_TOO_MANY, "m=%llu b=%u f=%u rc=%d",
         (unsigned long long)m, b, fp, rc);
  CHECKF(memcmp(copy, buf, f.blob_size) == 0,
         "m=%llu b=%u f=%u: failed insert changed the buffer",
         (unsigned long long)m, b, fp);
  CHECK(f.count == n && cf_count_slots(&f) == n);
  for (id = 0; id < n; id++)
    lost += !cf_contains(&f, key_of_id(&f, id));
  CHECKF(lost == 0, "m=%llu b=%u f=%u: %llu items lost", (unsigned long long)m,
         b, fp, (unsigned long long)lost);
  /* More attempts after the first failure: each succeeds or changes
  ** nothing, and nothing already stored is lost. */
  for (id = n + 1; id < n + 200; id++) {
    memcpy(copy, buf, f.blob_size);
    rc = cf_insert(&f, key_of_id(&f, id));
    if (rc != CF_OK && memcmp(copy, buf, f.blob_size) != 0) extraBad++;
  }
  CHECK(extraBad == 0);
  for (id = 0; id < n; id++)
    lost += !cf_contains(&f, key_of_id(&f, id));
  CHECK(lost == 0);
  *pLoad = (double)n / (double)(m * b);
  free(copy);
  free(buf);
}

static void test_fill(void) {
  static const uint64_t aM[] = {1000, 1001, 2047, 3333, 5000};
  static const unsigned aF[] = {6, 8, 12, 16, 32};
  unsigned ib, iF, im, s;
  for (ib = 0; ib < 3; ib++) {
    unsigned b = 2u << ib;
    for (iF = 0; iF < 5; iF++) {
      double minLoad = 1.0;
      for (im = 0; im < 5; im++) {
        for (s = 0; s < (scale > 1 ? 1u : 3u); s++) {
          double load;
          fill_to_failure(aM[im], b, aF[iF], 100 + s * 17 + im, &load);
          if (load < minLoad) minLoad = load;
        }
      }
      printf("fill: b=%u f=%-2u min load at failure %.4f\n", b, aF[iF],
             minLoad);
      /* b=4 per the test plan and the paper (95%); b=2 and b=8 with the
      ** paper's figures (84%, 98%) less a little for small tables. */
      if (b == 4)
        CHECKF(minLoad >= 0.94, "b=4 f=%u load %.4f", aF[iF], minLoad);
      if (b == 8)
        CHECKF(minLoad >= 0.97, "b=8 f=%u load %.4f", aF[iF], minLoad);
      if (b == 2 && aF[iF] >= 8)
        CHECKF(minLoad >= 0.84, "b=2 f=%u load %.4f", aF[iF], minLoad);
    }
  }
}

/* ---------------------------------------------------------------------
** (c) Too many copies of one item.
*/
static void test_too_many(void) {
  unsigned b;
  for (b = 2; b <= 8; b *= 2) {
    cf_filter f;
    uint8_t *buf = make_filter(&f, 1000, b, 16, 5);
    uint8_t *copy = xmalloc(f.blob_size);
    uint64_t id;
    cf_key k;
    unsigned i, nOk = 0;
    /* an item whose two buckets differ */
    for (id = 0;; id++) {
      k = key_of_id(&f, id);
      if (cf_alt_bucket(f.p.nbuckets, k.i1, k.fp) != k.i1) break;
    }
    for (i = 0; i < 2 * b; i++)
      nOk += cf_insert(&f, k) == CF_OK;
    CHECKF(nOk == 2 * b, "b=%u: %u of %u copies stored", b, nOk, 2 * b);
    CHECK(cf_copies(&f, k) == 2 * b);
    memcpy(copy, buf, f.blob_size);
    CHECKF(cf_insert(&f, k) == CF_TOO_MANY, "b=%u", b);
    CHECK(memcmp(copy, buf, f.blob_size) == 0);
    CHECK(f.count == 2 * b);
    /* other items still go in around it */
    CHECK(cf_insert(&f, key_of_id(&f, id + 1)) == CF_OK);
    /* removing the copies one by one */
    for (i = 0; i < 2 * b; i++)
      CHECK(cf_remove(&f, k) == CF_OK);
    CHECK(cf_remove(&f, k) == CF_NOTFOUND);
    CHECK(!cf_contains(&f, k) && cf_copies(&f, k) == 0);
    CHECK(cf_contains(&f, key_of_id(&f, id + 1)));
    free(buf);
    free(copy);

    /* an item whose two buckets coincide: b copies, then CF_TOO_MANY */
    buf = make_filter(&f, 3, b, 16, 9);
    copy = xmalloc(f.blob_size);
    for (id = 0;; id++) {
      k = key_of_id(&f, id);
      if (cf_alt_bucket(f.p.nbuckets, k.i1, k.fp) == k.i1) break;
    }
    for (i = 0, nOk = 0; i < b; i++)
      nOk += cf_insert(&f, k) == CF_OK;
    CHECKF(nOk == b, "b=%u one bucket: %u of %u copies", b, nOk, b);
    memcpy(copy, buf, f.blob_size);
    CHECKF(cf_insert(&f, k) == CF_TOO_MANY, "b=%u one bucket", b);
    CHECK(memcmp(copy, buf, f.blob_size) == 0);
    free(buf);
    free(copy);
  }
}

/* ---------------------------------------------------------------------
** (d) Determinism and golden values.
*/

/* A fixed sequence with many kicks and a few failures. */
static uint64_t golden_sequence(uint8_t **ppBuf, size_t *pn, uint64_t m,
                                unsigned b, unsigned fp, uint64_t seed) {
  cf_filter f;
  uint8_t *buf = make_filter(&f, m, b, fp, seed);
  rng r = {42};
  uint64_t i, acc = 0;
  for (i = 0; i < m * b + 50; i++) {
    acc = acc * 31 + (uint64_t)cf_insert(&f, key_of_id(&f, i));
  }
  for (i = 0; i < m * b / 3; i++) {
    acc =
        acc * 31 + (uint64_t)cf_remove(&f, key_of_id(&f, rnd_below(&r, m * b)));
  }
  for (i = 0; i < m; i++) {
    acc = acc * 31 +
          (uint64_t)cf_insert(&f, key_of_id(&f, 1000000 + rnd_below(&r, 50)));
  }
  *ppBuf = buf;
  *pn = f.blob_size;
  return acc;
}

static void test_determinism(void) {
  uint8_t *a, *b;
  size_t na, nb;
  uint64_t ra, rb, h;
  static const struct {
    uint64_t m;
    unsigned b, f;
    uint64_t seed;
    uint64_t golden; /* XXH3-64 of the final BLOB */
    uint32_t flags;
  } aCase[] = {
      {1000, 4, 12, 0, 0xf2e1c06b67b51a42ULL, 0},
      {777, 2, 9, 12345, 0xd94f9844e2a6f3adULL, 0},
      {301, 8, 7, 0xdeadbeefcafeULL, 0x2d42a781db6548a7ULL, 0},
      {513, 4, 32, 3, 0xe7788aff570dab4fULL, 0},
      {1000, 4, 13, 0, 0x963d060283e41111ULL, CF_FLAG_SEMISORT},
      {333, 4, 17, 99, 0x66a90313c7d468ffULL, CF_FLAG_SEMISORT},
  };
  size_t i;
  for (i = 0; i < sizeof(aCase) / sizeof(aCase[0]); i++) {
    g_flags = aCase[i].flags;
    ra = golden_sequence(&a, &na, aCase[i].m, aCase[i].b, aCase[i].f,
                         aCase[i].seed);
    rb = golden_sequence(&b, &nb, aCase[i].m, aCase[i].b, aCase[i].f,
                         aCase[i].seed);
    g_flags = 0;
    CHECK(ra == rb && na == nb && memcmp(a, b, na) == 0);
    h = XXH3_64bits(a, na);
    /* These constants pin the BLOB format, the item hashing, the key
    ** split and the kick choices.  The format, the hashing and the key
    ** split decide where every stored fingerprint can be found: changing
    ** them needs a format version bump.  The kick choices only decide
    ** which of its two buckets a fingerprint ends up in (every reader
    ** looks in both), so they may change within a version, deliberately:
    ** they last changed when insertion gained its one-step look-ahead
    ** (see docs/format.md#insertion-and-determinism), which fills large
    ** filters several times faster. */
    CHECKF(h == aCase[i].golden, "case %zu: got 0x%016llxULL", i,
           (unsigned long long)h);
    free(a);
    free(b);
  }
  /* Pinned item hashes (docs/format.md#hashing-bucket-and-fingerprint). */
  CHECKF(cf_hash_int(0, 42) == 0xa8a3669bf021b742ULL, "got 0x%016llxULL",
         (unsigned long long)cf_hash_int(0, 42));
  CHECKF(cf_hash_text(0, "abc", 3) == 0xfb426e02b29d6d83ULL, "got 0x%016llxULL",
         (unsigned long long)cf_hash_text(0, "abc", 3));
  CHECKF(cf_hash_blob(7, "abc", 3) == 0xb7167be78205bcd4ULL, "got 0x%016llxULL",
         (unsigned long long)cf_hash_blob(7, "abc", 3));
  CHECKF(cf_hash_real(0, 42.5) == 0xd615b242d4fcf5f5ULL, "got 0x%016llxULL",
         (unsigned long long)cf_hash_real(0, 42.5));
}

/* ---------------------------------------------------------------------
** (e) Capacity guarantee, space and false-positive rate.
*/
static void test_capacity(void) {
  static const uint64_t aCap[] = {1,    2,     3,       10,     100,
                                  1000, 12345, 1000000, 1500000};
  static const double aEps[] = {0.01, 0.001, 0.0001};
  size_t ic, ie;
  /* the measured rate needs enough probes: at most 5x fewer */
  uint64_t nProbe = 1000000 / (uint64_t)(scale > 5 ? 5 : scale);
  for (ie = 0; ie < 3; ie++) {
    for (ic = 0; ic < sizeof(aCap) / sizeof(aCap[0]); ic++) {
      uint64_t cap = aCap[ic], i, nFail = 0, nFp = 0;
      double eps = aEps[ie], bits, bound, fpr;
      cf_params p;
      cf_filter f;
      uint8_t *buf;
      if (scale > 1 && cap > 100000 && ie > 0) continue;
      CHECK(cf_params_for(&p, cap, eps, 4, 77) == CF_OK);
      buf = xmalloc((size_t)cf_blob_size(&p));
      CHECK(cf_init(&f, &p, buf) == CF_OK);
      for (i = 0; i < cap; i++)
        nFail += cf_insert(&f, key_of_id(&f, i)) != CF_OK;
      CHECKF(nFail == 0, "capacity %llu eps %g: %llu inserts failed",
             (unsigned long long)cap, eps, (unsigned long long)nFail);
      CHECK(f.count == cap);
      bits = (double)f.table_size * 8.0 / (double)cap;
      bound = 1.06 * p.fp_bits / 0.95;
      /* The space bound (docs/format.md#geometry-and-space) cannot hold
      ** for tiny capacities (one bucket of four slots already gives 4f
      ** bits per item for capacity 1): check it from 1000 items up, and
      ** for smaller filters that the table is no larger than twice the
      ** items plus a bucket. */
      if (cap >= 1000) {
        CHECKF(bits <= bound, "capacity %llu eps %g: %.3f bits/item > %.3f",
               (unsigned long long)cap, eps, bits, bound);
      } else {
        CHECKF(p.nbuckets * 4 <= 2 * cap + 8, "capacity %llu: %llu slots",
               (unsigned long long)cap, (unsigned long long)(p.nbuckets * 4));
      }
      for (i = 0; i < nProbe; i++) {
        nFp += cf_contains(&f, key_of_id(&f, (uint64_t)1 << 40 | i));
      }
      fpr = (double)nFp / (double)nProbe;
      CHECKF(fpr <= eps, "capacity %llu eps %g: measured fpr %g",
             (unsigned long long)cap, eps, fpr);
      if (cap == 1000000) {
        printf("capacity %llu eps %g: f=%u m=%llu %.3f bits/item "
               "(bound %.3f) fpr %.6f\n",
               (unsigned long long)cap, eps, p.fp_bits,
               (unsigned long long)p.nbuckets, bits, bound, fpr);
      }
      free(buf);
    }
  }
  /* cf_fp_bits_for follows the paper: f = ceil(log2(2b/eps)). */
  CHECK(cf_fp_bits_for(0.01, 4) == 10);
  CHECK(cf_fp_bits_for(0.001, 4) == 13);
  CHECK(cf_fp_bits_for(0.0001, 4) == 17);
  CHECK(cf_fp_bits_for(0.5, 2) == CF_MIN_FP_BITS);
  CHECK(cf_fp_bits_for(0.0, 4) == 0 && cf_fp_bits_for(1.0, 4) == 0);
  CHECK(cf_fp_bits_for(1e-12, 4) == 0);
  /* cf_params_for never uses fingerprints too short to reach the target
  ** load in large tables: with 4 bits (error_rate 0.5), capacity 3718763
  ** (10^6 + 3 buckets) once failed at 3402554 items with seed 77. */
  {
    static const struct {
      uint64_t cap;
      double eps;
      unsigned b;
      uint64_t seed;
    } aBig[] = {
        {3718763, 0.5, 4, 77}, {3718763, 0.5, 4, 80}, {1000000, 0.3, 2, 0}};
    size_t k;
    for (k = 0; k < sizeof(aBig) / sizeof(aBig[0]); k++) {
      cf_params p;
      cf_filter f;
      uint8_t *buf;
      uint64_t i, cap = aBig[k].cap;
      CHECK(cf_params_for(&p, cap, aBig[k].eps, aBig[k].b, aBig[k].seed) ==
            CF_OK);
      CHECK(p.fp_bits == (aBig[k].b == 2 ? 7u : 5u));
      if (scale > 1) continue;
      buf = xmalloc((size_t)cf_blob_size(&p));
      CHECK(cf_init(&f, &p, buf) == CF_OK);
      for (i = 0; i < cap; i++) {
        if (cf_insert(&f, cf_key_of(&f, cf_hash_int(p.seed, (int64_t)i))) !=
            CF_OK)
          break;
      }
      CHECKF(i == cap, "capacity %llu b=%u: only %llu fit",
             (unsigned long long)cap, aBig[k].b, (unsigned long long)i);
      free(buf);
    }
  }
  {
    cf_params p;
    CHECK(cf_params_for(&p, 0, 0.01, 4, 0) == CF_RANGE);
    CHECK(cf_params_for(&p, 10, 0.01, 3, 0) == CF_RANGE);
    CHECK(cf_params_for(&p, 10, 1.5, 4, 0) == CF_RANGE);
    CHECK(cf_params_for(&p, 10, NAN, 4, 0) == CF_RANGE);
    CHECK(cf_params_for(&p, (uint64_t)1 << 40, 0.01, 4, 0) == CF_RANGE);
    CHECK(cf_params_for(&p, UINT64_MAX, 0.01, 8, 0) == CF_RANGE);
  }
}

/* ---------------------------------------------------------------------
** (f) cf_open: rejection of malformed buffers, robustness.
*/

static int open_copy(const uint8_t *src, size_t n, const char **pzWhy) {
  /* exact-size heap copy so that ASan sees any overread */
  uint8_t *p = xmalloc(n);
  cf_filter f;
  int rc;
  memcpy(p, src, n);
  rc = cf_open(&f, p, n, pzWhy);
  free(p);
  return rc;
}

/* Exercise an accepted buffer: every operation on a private copy. */
static int exercise(const uint8_t *src, size_t n, rng *r) {
  uint8_t *p = xmalloc(n);
  uint8_t *q;
  cf_filter f, g;
  int i;
  memcpy(p, src, n);
  int bad = 0;
  if (cf_open(&f, p, n, 0) != CF_OK) {
    free(p);
    return 1;
  }
  for (i = 0; i < 20; i++) {
    cf_key k = cf_key_of(&f, rnd(r));
    int rc;
    (void)cf_contains(&f, k);
    (void)cf_copies(&f, k);
    rc = cf_insert(&f, k);
    if (rc != CF_OK && rc != CF_FULL && rc != CF_TOO_MANY) bad++;
    if (rc == CF_OK && !cf_contains(&f, k)) bad++;
    rc = cf_remove(&f, cf_key_of(&f, rnd(r)));
    if (rc != CF_OK && rc != CF_NOTFOUND && rc != CF_CORRUPT) bad++;
  }
  (void)cf_count_slots(&f);
  (void)cf_expected_fpr(&f);
  /* merge with a copy of itself */
  q = xmalloc(n);
  memcpy(q, p, n);
  if (cf_open(&g, q, n, 0) == CF_OK) (void)cf_merge(&g, &f);
  free(q);
  free(p);
  return bad;
}

static void put_hdr(uint8_t *h, unsigned b, unsigned fp, uint64_t m,
                    uint64_t cap, uint64_t count, uint64_t seed) {
  memcpy(h, "CKOO", 4);
  h[4] = 1;
  h[5] = 0;
  h[6] = (uint8_t)b;
  h[7] = (uint8_t)fp;
  cf_put_u64(h + 8, m);
  cf_put_u64(h + 16, cap);
  cf_put_u64(h + 24, count);
  cf_put_u64(h + 32, seed);
}

/*
** One mutation of the valid n-byte filter buf for test_open(): copy it to
** mut, apply stmt (which may set nm, the length to open), and check that
** cf_open() accepts the copy iff expectOk, giving a reason when not.
** (The header offsets are written as numbers on purpose: the test pins
** the format of docs/format.md, not the core's names for it.)
*/
#define MUTATE(label, stmt, expectOk)                                          \
  do {                                                                         \
    size_t nm = n;                                                             \
    memcpy(mut, buf, n);                                                       \
    stmt;                                                                      \
    zWhy = 0;                                                                  \
    CHECKF((open_copy(mut, nm, &zWhy) == CF_OK) == (expectOk), "%s", label);   \
    if (!(expectOk))                                                           \
      CHECKF(zWhy != 0 && zWhy[0] != 0, "%s: no reason", label);               \
  } while (0)

static void test_open(void) {
  cf_filter f;
  uint8_t *buf, *mut;
  size_t n, i;
  const char *zWhy;
  rng r = {2024};
  int iter, nAccepted = 0, nIter = 20000 / scale, nBad = 0;

  /* A valid filter with padding bits: m=5 b=2 f=7 -> 70 bits, 9 bytes. */
  buf = make_filter(&f, 5, 2, 7, 99);
  n = f.blob_size;
  CHECK(n == 40 + 9);
  for (i = 0; i < 6; i++)
    CHECK(cf_insert(&f, key_of_id(&f, i)) == CF_OK);
  CHECK(open_copy(buf, n, &zWhy) == CF_OK && zWhy == 0);
  mut = xmalloc(n + 16);

  MUTATE("unchanged", (void)0, 1);
  MUTATE("empty", nm = 0, 0);
  MUTATE("39 bytes", nm = 39, 0);
  MUTATE("header only", nm = 40, 0);
  MUTATE("truncated by 1", nm = n - 1, 0);
  MUTATE("extended by 1", (mut[n] = 0, nm = n + 1), 0);
  MUTATE("extended by 8", (memset(mut + n, 0, 8), nm = n + 8), 0);
  MUTATE("magic", mut[0] = 'c', 0);
  MUTATE("magic 3", mut[3] = 'P', 0);
  MUTATE("version 0", mut[4] = 0, 0);
  MUTATE("version 2", mut[4] = 2, 0);
  MUTATE("flags 1", mut[5] = 1, 0);
  MUTATE("flags 0x80", mut[5] = 0x80, 0);
  MUTATE("b=0", mut[6] = 0, 0);
  MUTATE("b=3", mut[6] = 3, 0);
  MUTATE("b=16", mut[6] = 16, 0);
  MUTATE("f=3", mut[7] = 3, 0);
  MUTATE("f=33", mut[7] = 33, 0);
  MUTATE("f=0", mut[7] = 0, 0);
  MUTATE("f=255", mut[7] = 255, 0);
  MUTATE("m=0", cf_put_u64(mut + 8, 0), 0);
  MUTATE("m=6", cf_put_u64(mut + 8, 6), 0);
  MUTATE("m=2^32-1", cf_put_u64(mut + 8, 0xffffffffULL), 0);
  MUTATE("m=2^63", cf_put_u64(mut + 8, (uint64_t)1 << 63), 0);
  MUTATE("m=2^64-1", cf_put_u64(mut + 8, UINT64_MAX), 0);
  MUTATE("capacity 0", cf_put_u64(mut + 16, 0), 0);
  MUTATE("capacity m*b", cf_put_u64(mut + 16, 10), 1);
  MUTATE("capacity m*b+1", cf_put_u64(mut + 16, 11), 0);
  MUTATE("capacity 2^64-1", cf_put_u64(mut + 16, UINT64_MAX), 0);
  MUTATE("count m*b", cf_put_u64(mut + 24, 10), 1);
  MUTATE("count m*b+1", cf_put_u64(mut + 24, 11), 0);
  MUTATE("count 2^64-1", cf_put_u64(mut + 24, UINT64_MAX), 0);
  MUTATE("seed", cf_put_u64(mut + 32, 1), 1);
  MUTATE("padding bit 7", mut[n - 1] |= 0x80, 0);
  MUTATE("padding bit 6", mut[n - 1] |= 0x40, 0);
  MUTATE("last used bit", mut[n - 1] |= 0x20, 1);
  /* b=4 f=7 m=5 has the same 70 bits: geometry change, same length */
  MUTATE("b=4 m=... mismatch", mut[6] = 4, 0);
  CHECK(cf_open(&f, 0, 0, &zWhy) == CF_CORRUPT && zWhy != 0);
  CHECK(cf_open(&f, buf, n, 0) == CF_OK); /* pzWhy may be NULL */
  free(mut);
  free(buf);

  /* A semi-sorted filter: m=5 b=4 f=7 -> 5 buckets of 24 bits, 15 bytes
  ** (a plain one of that geometry has 140 bits, 18 bytes). */
  g_flags = CF_FLAG_SEMISORT;
  buf = make_filter(&f, 5, 4, 7, 99);
  g_flags = 0;
  n = f.blob_size;
  CHECK(n == 40 + 15);
  for (i = 0; i < 12; i++)
    CHECK(cf_insert(&f, key_of_id(&f, i)) == CF_OK);
  mut = xmalloc(n + 16);
  MUTATE("ss unchanged", (void)0, 1);
  MUTATE("ss flags 0 (plain: length mismatch)", mut[5] = 0, 0);
  MUTATE("ss flags 3", mut[5] = 3, 0);
  MUTATE("ss b=2", mut[6] = 2, 0);
  MUTATE("ss b=8", mut[6] = 8, 0);
  MUTATE("ss f=4", mut[7] = 4, 0);
  MUTATE("ss f=8 (length mismatch)", mut[7] = 8, 0);
  MUTATE("ss padding", mut[n - 1] |= 0x80, 1); /* 120 bits: no padding */
  MUTATE("ss code 4095", (mut[40] = 0xff, mut[41] |= 0x0f), 1);
  free(mut);
  free(buf);

  /* A count that contradicts the table: accepted (O(1) validation), but
  ** the operations stay in bounds and report what they can. */
  buf = make_filter(&f, 10, 4, 8, 1);
  n = f.blob_size;
  {
    cf_key k = key_of_id(&f, 1);
    CHECK(cf_insert(&f, k) == CF_OK);
    cf_put_u64(buf + 24, 0);
    CHECK(cf_open(&f, buf, n, 0) == CF_OK);
    CHECK(cf_contains(&f, k));
    CHECK(cf_remove(&f, k) == CF_CORRUPT);
    cf_put_u64(buf + 24, 40);
    CHECK(cf_open(&f, buf, n, 0) == CF_OK);
    CHECK(cf_insert(&f, key_of_id(&f, 2)) == CF_FULL);
    CHECK(cf_remove(&f, k) == CF_OK && f.count == 39);
  }
  free(buf);

  /* Random buffers: pure noise, noise behind a valid magic and version,
  ** and well-formed headers of random geometry over random tables. */
  for (iter = 0; iter < nIter; iter++) {
    size_t len = (size_t)rnd_below(&r, 160);
    uint8_t *p = xmalloc(len + 64);
    int kind = iter % 3;
    for (i = 0; i < len + 64; i++)
      p[i] = (uint8_t)rnd(&r);
    if (kind == 1 && len >= 8) {
      memcpy(p, "CKOO", 4);
      p[4] = 1;
      p[5] = rnd_below(&r, 4) == 0 ? p[5] : 0;
      p[6] = (uint8_t)(2u << rnd_below(&r, 3));
      p[7] = (uint8_t)(4 + rnd_below(&r, 29));
    } else if (kind == 2) {
      unsigned b = 2u << rnd_below(&r, 3);
      unsigned fp = 4 + (unsigned)rnd_below(&r, 29);
      uint64_t m = 1 + rnd_below(&r, 20);
      int ss = b == 4 && fp >= CF_SS_MIN_FP_BITS && (rnd(&r) & 1);
      cf_params pp;
      memset(&pp, 0, sizeof(pp));
      pp.nbuckets = m;
      pp.bucket_size = b;
      pp.fp_bits = fp;
      pp.flags = ss ? CF_FLAG_SEMISORT : 0;
      pp.capacity = 1 + rnd_below(&r, m * b);
      len = (size_t)cf_blob_size(&pp);
      free(p);
      p = xmalloc(len);
      for (i = 0; i < len; i++)
        p[i] = (uint8_t)rnd(&r);
      put_hdr(p, b, fp, m, pp.capacity, rnd_below(&r, m * b + 2), rnd(&r));
      p[5] = (uint8_t)pp.flags;
      /* usually clear the padding bits so that it is accepted */
      if (rnd_below(&r, 4) != 0) {
        uint64_t used = m * cf_bucket_bits(&pp), tbits = (len - 40) * 8;
        if (tbits > used) p[len - 1] &= (uint8_t)(0xff >> (tbits - used));
      }
    }
    if (open_copy(p, len, &zWhy) == CF_OK) {
      nAccepted++;
      nBad += exercise(p, len, &r);
    } else if (zWhy == 0) {
      nBad++;
    }
    free(p);
  }
  printf("random buffers: %d of %d accepted\n", nAccepted, nIter);
  CHECK(nBad == 0);
  nBad = 0;
  CHECK(nAccepted > nIter / 10);

  /* Mutations of valid filters of several geometries. */
  nAccepted = 0;
  for (iter = 0; iter < nIter; iter++) {
    unsigned b = 2u << (iter % 3);
    unsigned fp = 4 + (unsigned)(iter % 29);
    uint64_t m = 1 + (uint64_t)(iter % 37), id;
    size_t len;
    uint8_t *p;
    int nmut, j;
    if (b == 4 && fp >= CF_SS_MIN_FP_BITS && iter % 2)
      g_flags = CF_FLAG_SEMISORT;
    buf = make_filter(&f, m, b, fp, (uint64_t)iter);
    g_flags = 0;
    for (id = 0; id < m * b / 2; id++)
      (void)cf_insert(&f, key_of_id(&f, id));
    len = f.blob_size;
    p = xmalloc(len + 32);
    memcpy(p, buf, len);
    memset(p + len, 0, 32);
    nmut = 1 + (int)rnd_below(&r, 3);
    for (j = 0; j < nmut; j++) {
      switch (rnd_below(&r, 6)) {
      case 0: /* flip a header bit */
        p[rnd_below(&r, 40)] ^= (uint8_t)(1u << rnd_below(&r, 8));
        break;
      case 1: /* random header byte */
        p[rnd_below(&r, 40)] = (uint8_t)rnd(&r);
        break;
      case 2: /* random table byte */
        if (len > 40) p[40 + rnd_below(&r, len - 40)] = (uint8_t)rnd(&r);
        break;
      case 3: /* truncate */ len = (size_t)rnd_below(&r, len + 1); break;
      case 4: /* extend */
        len += 1 + (size_t)rnd_below(&r, 16);
        if (len > f.blob_size + 32) len = f.blob_size + 32;
        break;
      default: /* a count out of step with the table */
        cf_put_u64(p + 24, rnd_below(&r, m * b + 1));
        break;
      }
    }
    if (open_copy(p, len, &zWhy) == CF_OK) {
      nAccepted++;
      nBad += exercise(p, len, &r);
    } else if (zWhy == 0) {
      nBad++;
    }
    free(p);
    free(buf);
  }
  printf("mutated buffers: %d of %d accepted\n", nAccepted, nIter);
  CHECK(nBad == 0);
  CHECK(nAccepted > nIter / 10 && nAccepted < nIter);
}

/* ---------------------------------------------------------------------
** (g) Value hashing identities.
*/
static void test_hashing(void) {
  uint64_t seeds[] = {0, 1, 0xffffffffffffffffULL, 123456789};
  size_t i;
  for (i = 0; i < 4; i++) {
    uint64_t s = seeds[i];
    CHECK(cf_hash_real(s, 42.0) == cf_hash_int(s, 42));
    CHECK(cf_hash_real(s, -42.0) == cf_hash_int(s, -42));
    CHECK(cf_hash_real(s, -0.0) == cf_hash_int(s, 0));
    CHECK(cf_hash_real(s, 0.0) == cf_hash_real(s, -0.0));
    CHECK(cf_hash_real(s, 42.5) != cf_hash_int(s, 42));
    CHECK(cf_hash_real(s, 42.5) != cf_hash_int(s, 43));
    CHECK(cf_hash_real(s, 42.5) != cf_hash_real(s, -42.5));
    CHECK(cf_hash_real(s, 1e15) == cf_hash_int(s, 1000000000000000LL));
    /* -2^63 is an int64 value; 2^63 is not (and is not INT64_MAX) */
    CHECK(cf_hash_real(s, -9223372036854775808.0) == cf_hash_int(s, INT64_MIN));
    CHECK(cf_hash_real(s, 9223372036854775808.0) != cf_hash_int(s, INT64_MIN));
    CHECK(cf_hash_real(s, 9223372036854775808.0) != cf_hash_int(s, INT64_MAX));
    CHECK(cf_hash_real(s, 1e300) != cf_hash_real(s, -1e300));
    CHECK(cf_hash_real(s, INFINITY) != cf_hash_real(s, -INFINITY));
    (void)cf_hash_real(s, NAN); /* must not crash (UBSan: no bad cast) */
    (void)cf_hash_real(s, -NAN);
    CHECK(cf_hash_real(s, 4.9e-324) != cf_hash_int(s, 0));
    CHECK(cf_hash_text(s, "abc", 3) != cf_hash_blob(s, "abc", 3));
    CHECK(cf_hash_text(s, "", 0) != cf_hash_blob(s, "", 0));
    CHECK(cf_hash_text(s, "42", 2) != cf_hash_int(s, 42));
    CHECK(cf_hash_text(s, "abc", 3) == cf_hash_text(s, "abcd", 3));
    CHECK(cf_hash_text(s, "abc", 3) != cf_hash_text(s, "abcd", 4));
    CHECK(cf_hash_int(s, 1) != cf_hash_int(s, 2));
    CHECK(cf_hash_int(s, 0) != cf_hash_blob(s, "\0\0\0\0\0\0\0\0", 8));
  }
  CHECK(cf_hash_int(0, 42) != cf_hash_int(1, 42));
  CHECK(cf_hash_text(0, "a", 1) != cf_hash_text(1, "a", 1));
  {
    /* keys: fingerprints never 0, buckets in range, alt an involution */
    rng r = {77};
    int bad = 0, j;
    uint64_t aM[] = {1, 2, 3, 1000, 4294967294ULL};
    unsigned aF[] = {4, 5, 16, 31, 32};
    for (j = 0; j < 200000 / scale; j++) {
      cf_params p;
      cf_key k;
      uint32_t i2;
      memset(&p, 0, sizeof(p));
      p.nbuckets = aM[j % 5];
      p.bucket_size = 4;
      p.fp_bits = aF[(j / 5) % 5];
      k = cf_key_from(&p, rnd(&r));
      i2 = cf_alt_bucket(p.nbuckets, k.i1, k.fp);
      if (k.fp == 0 || (p.fp_bits < 32 && k.fp >> p.fp_bits) ||
          k.i1 >= p.nbuckets || i2 >= p.nbuckets ||
          cf_alt_bucket(p.nbuckets, i2, k.fp) != k.i1)
        bad++;
    }
    CHECK(bad == 0);
  }
}

/* ---------------------------------------------------------------------
** (h) Merge.
*/
static void test_merge(void) {
  unsigned b;
  for (b = 2; b <= 8; b *= 2) {
    cf_filter fa, fb, fc;
    uint64_t m = 997, na = 0, nb = 0, id, lost = 0;
    uint8_t *a = make_filter(&fa, m, b, 14, 3);
    uint8_t *bb = make_filter(&fb, m, b, 14, 3);
    uint8_t *copy;
    for (id = 0; id < m * b * 2 / 5; id++)
      na += cf_insert(&fa, key_of_id(&fa, id)) == CF_OK;
    for (id = 500000; id < 500000 + m * b * 2 / 5; id++)
      nb += cf_insert(&fb, key_of_id(&fb, id)) == CF_OK;
    /* duplicates of one item in both */
    CHECK(cf_insert(&fa, key_of_id(&fa, 7)) == CF_OK);
    CHECK(cf_insert(&fb, key_of_id(&fb, 7)) == CF_OK);
    {
      /* merging a filter into itself changes nothing (multiset union) */
      uint8_t *self = xmalloc(fa.blob_size);
      cf_filter fs;
      memcpy(self, a, fa.blob_size);
      CHECK(cf_open(&fs, self, fa.blob_size, 0) == CF_OK);
      CHECK(cf_merge(&fa, &fs) == CF_OK);
      CHECK(memcmp(self, a, fa.blob_size) == 0);
      free(self);
    }
    CHECK(cf_merge(&fa, &fb) == CF_OK);
    /* item 7 is in both: one copy, not two (unless a fingerprint pair of
    ** fb collides with one of fa, which max() also folds) */
    CHECKF(fa.count <= na + nb + 1 && fa.count + 8 >= na + nb + 1,
           "b=%u count %llu vs %llu", b, (unsigned long long)fa.count,
           (unsigned long long)(na + nb + 1));
    CHECK(cf_count_slots(&fa) == fa.count);
    {
      /* merging fb again adds nothing */
      uint64_t before = fa.count;
      CHECK(cf_merge(&fa, &fb) == CF_OK && fa.count == before);
    }
    for (id = 0; id < m * b * 2 / 5; id++)
      lost += !cf_contains(&fa, key_of_id(&fa, id));
    for (id = 500000; id < 500000 + m * b * 2 / 5; id++)
      lost += !cf_contains(&fa, key_of_id(&fa, id));
    CHECKF(lost == 0, "b=%u: %llu lost in merge", b, (unsigned long long)lost);
    CHECK(cf_copies(&fa, key_of_id(&fa, 7)) >= 1);
    /* a second copy of 7 in fb: the union holds max(1, 2) = 2 copies */
    CHECK(cf_insert(&fb, key_of_id(&fb, 7)) == CF_OK);
    {
      unsigned c0 = cf_copies(&fa, key_of_id(&fa, 7));
      CHECK(cf_merge(&fa, &fb) == CF_OK);
      CHECK(cf_copies(&fa, key_of_id(&fa, 7)) == (c0 > 2 ? c0 : 2));
      nb++;
    }
    /* src unchanged by the merge */
    CHECK(fb.count == nb + 1 && cf_count_slots(&fb) == nb + 1);

    /* mismatches: nothing changes */
    copy = xmalloc(fa.blob_size);
    memcpy(copy, a, fa.blob_size);
    {
      uint8_t *c;
      c = make_filter(&fc, m, b, 14, 4); /* seed */
      CHECK(cf_merge(&fa, &fc) == CF_MISMATCH);
      free(c);
      c = make_filter(&fc, m + 1, b, 14, 3); /* buckets */
      CHECK(cf_merge(&fa, &fc) == CF_MISMATCH);
      free(c);
      c = make_filter(&fc, m, b, 15, 3); /* fingerprint bits */
      CHECK(cf_merge(&fa, &fc) == CF_MISMATCH);
      free(c);
      c = make_filter(&fc, m, b == 8 ? 4 : b * 2, 14, 3); /* bucket size */
      CHECK(cf_merge(&fa, &fc) == CF_MISMATCH);
      free(c);
    }
    CHECK(memcmp(copy, a, fa.blob_size) == 0);
    free(copy);

    /* merging into a nearly full filter fails with CF_FULL, and the
    ** items that were in dst before are all still there */
    {
      cf_filter fd;
      uint8_t *d = make_filter(&fd, m, b, 14, 3);
      int rc;
      for (id = 900000; id < 900000 + m * b * 3 / 4; id++)
        (void)cf_insert(&fd, key_of_id(&fd, id));
      rc = cf_merge(&fd, &fa);
      CHECK(rc == CF_FULL || rc == CF_TOO_MANY);
      lost = 0;
      for (id = 900000; id < 900000 + m * b * 3 / 4; id++)
        lost += !cf_contains(&fd, key_of_id(&fd, id));
      CHECK(lost == 0);
      CHECK(cf_count_slots(&fd) == fd.count);
      free(d);
    }
    /* empty into empty */
    {
      cf_filter fe, ff;
      uint8_t *e = make_filter(&fe, 5, b, 8, 0);
      uint8_t *g = make_filter(&ff, 5, b, 8, 0);
      CHECK(cf_merge(&fe, &ff) == CF_OK && fe.count == 0);
      free(e);
      free(g);
    }
    free(a);
    free(bb);
  }
}

/* ---------------------------------------------------------------------
** (i) Callback stores: buckets kept in a separate byte region through
** cf_region_get/cf_region_set, with accessors that can be made to fail.
** The region must stay byte-identical to the in-memory table.
*/
typedef struct region_store {
  const cf_params *p;
  uint8_t *t;
  size_t n;
  uint64_t nRead, nWrite;
  uint64_t failReadAt, failWriteAt; /* 1-based call to fail; 0: never */
} region_store;

static int rs_read(void *ctx, uint32_t bucket, uint32_t *fps) {
  region_store *s = (region_store *)ctx;
  if (++s->nRead == s->failReadAt) return 1;
  cf_region_get(s->p, s->t, s->n, bucket, fps);
  return 0;
}
static int rs_write(void *ctx, uint32_t bucket, const uint32_t *fps) {
  region_store *s = (region_store *)ctx;
  if (++s->nWrite == s->failWriteAt) return 1;
  cf_region_set(s->p, s->t, s->n, bucket, fps);
  return 0;
}

/* Lookup and removal through the accessors (the core's store form has
** only the insertion walk; these mirror cf_contains() and cf_remove()
** so that the region follows the table): CF_OK / CF_NOTFOUND /
** CF_IOERR, and *pFound. */
static int rs_find(const cf_store *st, unsigned b, uint32_t i, uint32_t fp,
                   uint32_t *a, int *pSlot) {
  if (st->read(st->ctx, i, a)) return CF_IOERR;
  *pSlot = cf_slot_of_test(a, b, fp);
  return CF_OK;
}

static int rs_contains(const cf_params *p, const cf_store *st, cf_key k,
                       int *pFound) {
  uint32_t a[CF_MAX_BUCKET_SIZE], i2 = cf_alt_bucket(p->nbuckets, k.i1, k.fp);
  int s, rc = rs_find(st, p->bucket_size, k.i1, k.fp, a, &s);
  *pFound = 0;
  if (rc == CF_OK && s < 0 && i2 != k.i1)
    rc = rs_find(st, p->bucket_size, i2, k.fp, a, &s);
  if (rc == CF_OK) *pFound = s >= 0;
  return rc;
}

static int rs_remove(const cf_params *p, const cf_store *st, cf_key k) {
  uint32_t a[CF_MAX_BUCKET_SIZE], i = k.i1;
  int s, rc = rs_find(st, p->bucket_size, i, k.fp, a, &s);
  if (rc == CF_OK && s < 0) {
    i = cf_alt_bucket(p->nbuckets, k.i1, k.fp);
    if (i == k.i1) return CF_NOTFOUND;
    rc = rs_find(st, p->bucket_size, i, k.fp, a, &s);
  }
  if (rc != CF_OK) return rc;
  if (s < 0) return CF_NOTFOUND;
  a[s] = 0;
  return st->write(st->ctx, i, a) ? CF_IOERR : CF_OK;
}

static void run_store(unsigned b, uint32_t flags) {
  cf_filter f;
  uint64_t m = 211, id, nDiff = 0, nRcDiff = 0;
  uint8_t *buf, *a, *snap;
  region_store rs;
  cf_store st;
  rng r = {b + flags};
  int nKickCases = 0, nUndoBad = 0, nIoerr = 0;
  g_flags = flags;
  buf = make_filter(&f, m, b, 11, 8);
  g_flags = 0;
  a = calloc(f.table_size, 1);
  snap = xmalloc(f.table_size);
  memset(&rs, 0, sizeof(rs));
  rs.p = &f.p;
  rs.t = a;
  rs.n = f.table_size;
  st.ctx = &rs;
  st.read = rs_read;
  st.write = rs_write;
  /* identical operations, identical results, identical bytes */
  for (id = 0; id < m * b + 20; id++) {
    cf_key k = key_of_id(&f, id);
    int r1 = cf_insert(&f, k), r2 = cf_store_insert(&f.p, &st, k), found;
    nRcDiff += r1 != r2;
    CHECK(rs_contains(&f.p, &st, k, &found) == CF_OK);
    if (found != cf_contains(&f, k)) nRcDiff++;
    if (id % 16 == 0 && memcmp(f.table, a, f.table_size) != 0) nDiff++;
    if (id % 5 == 0) {
      cf_key kr = key_of_id(&f, rnd_below(&r, id + 1));
      r1 = cf_remove(&f, kr);
      r2 = rs_remove(&f.p, &st, kr);
      nRcDiff += r1 != r2;
    }
  }
  CHECK(memcmp(f.table, a, f.table_size) == 0);
  CHECKF(nDiff == 0 && nRcDiff == 0, "b=%u flags=%u: %llu %llu", b, flags,
         (unsigned long long)nDiff, (unsigned long long)nRcDiff);

  /* Failing accessors: for inserts that need kicks, fail the Nth read or
  ** write for every N; the store must be unchanged afterwards. */
  for (id = 10000; id < 10000 + 400 && nKickCases < 40; id++) {
    cf_key k = key_of_id(&f, id);
    uint64_t nRead, nWrite, n;
    int rc;
    memcpy(snap, a, f.table_size);
    rs.nRead = rs.nWrite = 0;
    rs.failReadAt = rs.failWriteAt = 0;
    rc = cf_store_insert(&f.p, &st, k);
    nRead = rs.nRead;
    nWrite = rs.nWrite;
    memcpy(a, snap, f.table_size);           /* back to the snapshot */
    if (nWrite < 3 && rc == CF_OK) continue; /* no kicks: less interesting */
    nKickCases++;
    /* An insert that ends CF_FULL writes CF_MAX_KICKS displacements, then
    ** undoes them; a write failing while undoing cannot be repaired (the
    ** contract: undone as far as the store lets it write), so failures
    ** are injected into every read and every forward write. */
    if (rc == CF_FULL) nWrite = CF_MAX_KICKS;
    for (n = 1; n <= nRead + nWrite; n++) {
      rs.nRead = rs.nWrite = 0;
      rs.failReadAt = n <= nRead ? n : 0;
      rs.failWriteAt = n <= nRead ? 0 : n - nRead;
      rc = cf_store_insert(&f.p, &st, k);
      if (rc == CF_IOERR) {
        nIoerr++;
        if (memcmp(snap, a, f.table_size) != 0) nUndoBad++;
      }
      memcpy(a, snap, f.table_size);
    }
    /* remove through a failing write */
    rs.nRead = rs.nWrite = 0;
    rs.failReadAt = 0;
    rs.failWriteAt = 1;
    rc = rs_remove(&f.p, &st, key_of_id(&f, 0));
    CHECK(rc == CF_IOERR || rc == CF_NOTFOUND);
    if (memcmp(snap, a, f.table_size) != 0) nUndoBad++;
    rs.failWriteAt = 0;
  }
  rs.failReadAt = rs.failWriteAt = 0;
  CHECKF(nKickCases > 0, "b=%u flags=%u: no insert needed kicks", b, flags);
  CHECKF(nIoerr > 0, "b=%u flags=%u", b, flags);
  CHECKF(nUndoBad == 0, "b=%u flags=%u: %d failing-store runs left changes", b,
         flags, nUndoBad);
  {
    int found = 0;
    rs.nRead = 0;
    rs.failReadAt = 1;
    CHECK(rs_contains(&f.p, &st, key_of_id(&f, 1), &found) == CF_IOERR);
    rs.failReadAt = 0;
  }
  free(a);
  free(snap);
  free(buf);
}

static void test_store(void) {
  run_store(2, 0);
  run_store(4, 0);
  run_store(8, 0);
  run_store(4, CF_FLAG_SEMISORT);
}

/* ---------------------------------------------------------------------
** (j) Semi-sorted buckets.
*/

/* Fill to ~96% load, then rounds of: delete a random half, refill,
** delete and insert at random; no false negative at any check. */
static void churn(uint64_t m, unsigned b, unsigned fp, uint64_t seed) {
  cf_filter f;
  uint8_t *buf = make_filter(&f, m, b, fp, seed);
  uint64_t n = m * b, nIds = 0, nextId = 0, i, lost = 0, bad = 0;
  uint64_t *ids = xmalloc(n * sizeof(uint64_t));
  rng r = {seed * 13 + fp};
  int round;
  for (round = 0; round < 4; round++) {
    /* fill until the first failure or 96% */
    while (nIds < n * 96 / 100) {
      int rc = cf_insert(&f, key_of_id(&f, nextId));
      if (rc != CF_OK) {
        bad += rc != CF_FULL && rc != CF_TOO_MANY;
        nextId++;
        break;
      }
      ids[nIds++] = nextId++;
    }
    for (i = 0; i < nIds; i++)
      lost += !cf_contains(&f, key_of_id(&f, ids[i]));
    /* delete a random half */
    for (i = 0; i < nIds / 2; i++) {
      uint64_t j = rnd_below(&r, nIds);
      bad += cf_remove(&f, key_of_id(&f, ids[j])) != CF_OK;
      ids[j] = ids[--nIds];
    }
    for (i = 0; i < nIds; i++)
      lost += !cf_contains(&f, key_of_id(&f, ids[i]));
    /* random churn at about half load */
    for (i = 0; i < n; i++) {
      if (nIds > 0 && (rnd(&r) & 1)) {
        uint64_t j = rnd_below(&r, nIds);
        bad += cf_remove(&f, key_of_id(&f, ids[j])) != CF_OK;
        ids[j] = ids[--nIds];
      } else if (cf_insert(&f, key_of_id(&f, nextId)) == CF_OK) {
        ids[nIds++] = nextId++;
      } else {
        nextId++;
      }
    }
    for (i = 0; i < nIds; i++)
      lost += !cf_contains(&f, key_of_id(&f, ids[i]));
    bad += f.count != nIds || cf_count_slots(&f) != nIds;
  }
  CHECKF(lost == 0, "churn m=%llu b=%u f=%u flags=%u: %llu false negatives",
         (unsigned long long)m, b, fp, g_flags, (unsigned long long)lost);
  CHECKF(bad == 0, "churn m=%llu b=%u f=%u flags=%u: %llu bad results",
         (unsigned long long)m, b, fp, g_flags, (unsigned long long)bad);
  free(ids);
  free(buf);
}

/* w <= 32 bits at bit offset `bit` of t, read one bit at a time. */
static uint64_t test_bits(const uint8_t *t, uint64_t bit, unsigned w) {
  uint64_t v = 0;
  unsigned i;
  for (i = 0; i < w; i++)
    v |= (uint64_t)((t[(bit + i) / 8] >> ((bit + i) % 8)) & 1) << i;
  return v;
}

static void test_semisort(void) {
  unsigned a0, a1, a2, a3, fp;
  unsigned nCodes = 0, nBad = 0;
  cf_params p;
  uint8_t t[32];
  rng r = {77};
  double minLoad = 1.0;

  /* Every nibble tuple, with random low bits, at widths 5, 9, 17 and 32,
  ** in bucket 1 of a region: reads back as the sorted fingerprints, and
  ** the code field is the tuple's rank (all 3876 codes used once). */
  memset(&p, 0, sizeof(p));
  p.bucket_size = 4;
  p.flags = CF_FLAG_SEMISORT;
  for (a0 = 0; a0 < 16; a0++)
    for (a1 = a0; a1 < 16; a1++)
      for (a2 = a1; a2 < 16; a2++)
        for (a3 = a2; a3 < 16; a3++) {
          static const unsigned aF[] = {5, 9, 17, 32};
          unsigned nib[4], i, s;
          nib[0] = a0, nib[1] = a1, nib[2] = a2, nib[3] = a3;
          nCodes++;
          for (i = 0; i < 4; i++) {
            uint32_t in[4], out[4], sorted[4], lm;
            uint64_t code;
            p.fp_bits = aF[i];
            lm = (uint32_t)((((uint64_t)1) << (aF[i] - 4)) - 1);
            for (s = 0; s < 4; s++) {
              in[(s + 3 * nCodes) % 4] =
                  (nib[s] << (aF[i] - 4)) | ((uint32_t)rnd(&r) & lm);
            }
            memcpy(sorted, in, sizeof(in));
            for (s = 1; s < 4; s++) { /* insertion sort, the slow way */
              uint32_t v = sorted[s];
              int j = (int)s - 1;
              while (j >= 0 && sorted[j] > v) {
                sorted[j + 1] = sorted[j];
                j--;
              }
              sorted[j + 1] = v;
            }
            memset(t, 0xa5, sizeof(t));
            cf_region_set(&p, t, sizeof(t), 1, in);
            cf_region_get(&p, t, sizeof(t), 1, out);
            nBad += memcmp(out, sorted, sizeof(out)) != 0;
            /* the code field holds the tuple's rank; bucket 0 (bits
            ** 0 .. 4f-5) and the bits after bucket 1 are untouched */
            code = test_bits(t, 4 * aF[i] - 4, 12);
            nBad +=
                code != (a0 + (a1 + 1) * a1 / 2 + (a2 + 2) * (a2 + 1) * a2 / 6 +
                         (a3 + 3) * (a3 + 2) * (a3 + 1) * a3 / 24);
            for (s = 0; s < 4 * aF[i] - 4; s++) {
              nBad += test_bits(t, s, 1) != ((0xa5u >> (s % 8)) & 1);
            }
            for (s = 8 * aF[i] - 8; s < 8 * sizeof(t); s++) {
              nBad += test_bits(t, s, 1) != ((0xa5u >> (s % 8)) & 1);
            }
          }
        }
  CHECK(nCodes == 3876);
  CHECKF(nBad == 0, "%u codec mismatches", nBad);

  /* Crafted codes past the last one (3876..4095) read as four zero
  ** nibbles, through the region codec and through a filter's buckets
  ** (word path at f = 12, field path at f = 20), without crashing. */
  {
    uint32_t out[4], code, nOdd = 0;
    p.fp_bits = 12;
    memset(t, 0xff, sizeof(t));
    cf_region_get(&p, t, sizeof(t), 0, out);
    CHECK(out[0] == 0xff && out[3] == 0xff);
    for (code = 3876; code < 4096; code++) {
      static const unsigned aF[] = {12, 20};
      unsigned i;
      for (i = 0; i < 2; i++) {
        cf_filter f;
        uint8_t *buf;
        g_flags = CF_FLAG_SEMISORT;
        buf = make_filter(&f, 3, 4, aF[i], 1);
        g_flags = 0;
        memset(f.table, 0, f.table_size);
        f.table[0] = (uint8_t)code;
        f.table[1] = (uint8_t)(code >> 8);
        cf_bucket_get(&f, 0, out);
        nOdd += out[0] | out[1] | out[2] | out[3];
        nOdd += cf_contains(&f, cf_key_of(&f, 12345)) != 0;
        free(buf);
      }
    }
    CHECK(nOdd == 0);
  }

  /* Every width 5..32: randomized model, fill to failure, churn. */
  g_flags = CF_FLAG_SEMISORT;
  for (fp = CF_SS_MIN_FP_BITS; fp <= 32; fp++) {
    double load;
    unsigned s;
    uint64_t m = 997 + 10 * fp;
    run_model(m, 4, fp, 0.90, scale > 1 ? 20000 : 60000, 500 + fp);
    for (s = 0; s < (scale > 1 ? 1u : 2u); s++) {
      fill_to_failure(m + s * 1000, 4, fp, 900 + fp + s, &load);
      if (load < minLoad) minLoad = load;
    }
    churn(m, 4, fp, 300 + fp);
  }
  g_flags = 0;
  printf("semisort: min load at failure over f=5..32 %.4f\n", minLoad);
  CHECKF(minLoad >= 0.94, "semisort load %.4f", minLoad);

  /* Same items, plain and semi-sorted: same answers for present items,
  ** and the semi-sorted table is one bit per slot smaller. */
  {
    cf_filter fa, fb;
    uint8_t *ba = make_filter(&fa, 5000, 4, 13, 1), *bb;
    uint64_t id, lost = 0;
    g_flags = CF_FLAG_SEMISORT;
    bb = make_filter(&fb, 5000, 4, 13, 1);
    g_flags = 0;
    for (id = 0; id < 18000; id++) {
      CHECK(cf_insert(&fa, key_of_id(&fa, id)) == CF_OK);
      CHECK(cf_insert(&fb, key_of_id(&fb, id)) == CF_OK);
    }
    for (id = 0; id < 18000; id++)
      lost += !cf_contains(&fb, key_of_id(&fb, id));
    CHECK(lost == 0);
    CHECK(fa.table_size - fb.table_size == 5000 * 4 / 8);
    free(ba);
    free(bb);
  }
  churn(3001, 2, 10, 5);
  churn(3001, 4, 12, 6);
  churn(3001, 8, 17, 7);
}

/* ---------------------------------------------------------------------
** (k) Hashing in closed form, and batches.
*/

/* The item hash is frozen by the format: cf_hash_int() and
** cf_hash_real() compute XXH3-64 of 8 little-endian bytes in closed form;
** they must equal the library's XXH3_64bits_withSeed() with the seed
** folded with the type ("Integer" / "Real" as ASCII), and the batch
** hash must equal the single one for every length (vector bodies and
** scalar tails). */
static void test_hash_forms(void) {
  rng r = {4242};
  uint64_t nBad = 0, nBatchBad = 0, i;
  static const uint64_t kInt = 0x496e7465676572ULL, kReal = 0x5265616cULL;
  int64_t aV[301];
  uint64_t aH[301];
  size_t n, j;
  for (i = 0; i < 200000 / (uint64_t)scale; i++) {
    uint64_t seed = i % 7 == 0 ? i : rnd(&r), v = rnd(&r);
    uint8_t b[8];
    double d;
    if (i % 5 == 0) v = i; /* small integers too */
    for (j = 0; j < 8; j++)
      b[j] = (uint8_t)(v >> (8 * j));
    nBad += cf_hash_int(seed, (int64_t)v) !=
            XXH3_64bits_withSeed(b, 8, seed ^ kInt);
    /* a non-integral REAL: its IEEE bits, little-endian */
    d = (double)(v >> 11) * 0x1p-53 + (double)(i % 1000);
    if (d != floor(d)) {
      uint64_t bits;
      memcpy(&bits, &d, 8);
      for (j = 0; j < 8; j++)
        b[j] = (uint8_t)(bits >> (8 * j));
      nBad += cf_hash_real(seed, d) != XXH3_64bits_withSeed(b, 8, seed ^ kReal);
    }
  }
  CHECKF(nBad == 0, "%llu hashes differ from XXH3", (unsigned long long)nBad);
  /* the alternate bucket's shortened mixer and its table (filled when the
  ** program starts, where the compiler has CF_CONSTRUCTOR, else unused)
  ** against the format's cf_mix64() */
#ifdef CF_CONSTRUCTOR
  CHECK(cf_alt_tab_usable(CF_ALT_TAB_BITS));
#else
  CHECK(!cf_alt_tab_usable(1));
#endif
  for (nBad = 0, j = 0; j < (1u << CF_ALT_TAB_BITS); j++) {
    nBad += cf_alt_mix((uint32_t)j) != (uint32_t)(cf_mix64(j) >> 32);
    if (cf_alt_tab_usable(CF_ALT_TAB_BITS))
      nBad += cf_alt_tab[j] != (uint32_t)(cf_mix64(j) >> 32);
  }
  for (i = 0; i < 100000; i++) {
    uint32_t fp = (uint32_t)rnd(&r);
    nBad += cf_alt_mix(fp) != (uint32_t)(cf_mix64(fp) >> 32);
  }
  CHECKF(nBad == 0, "%llu alternate-bucket mixes differ",
         (unsigned long long)nBad);
  for (n = 0; n <= 301; n += (n < 40 ? 1 : 37)) {
    uint64_t seed = rnd(&r);
    for (j = 0; j < n; j++)
      aV[j] = (int64_t)rnd(&r);
    cf_hash_int_batch(seed, aV, n, aH);
    for (j = 0; j < n; j++)
      nBatchBad += aH[j] != cf_hash_int(seed, aV[j]);
  }
  CHECK(nBatchBad == 0);
}

/* Hashes of ids, as key_of_id() hashes them. */
static uint64_t hash_of_id(const cf_filter *f, uint64_t id) {
  return cf_hash_int(f->p.seed, (int64_t)(id * 0x2545f4914f6cdd1dULL));
}

/* Run ids[0..n) through cf_insert_batch in chunks of random sizes,
** stopping at the first failure; returns the number inserted. */
static uint64_t batch_insert(cf_filter *f, const uint64_t *aHash, uint64_t n,
                             rng *r, int *pRc) {
  uint64_t done = 0;
  *pRc = CF_OK;
  while (done < n && *pRc == CF_OK) {
    uint64_t k = rnd_below(r, 4) == 0 ? rnd_below(r, 9) : rnd_below(r, 300);
    if (k > n - done) k = n - done;
    done += cf_insert_batch(f, aHash + done, (size_t)k, pRc);
  }
  return done;
}

/*
** Batches against single items, in one geometry: fill to failure (one
** filter item by item, a twin by batches), then lookups of present and
** absent items, then removal of a random half plus absent items, then
** churn.  After every phase: the same results, the same bytes, no false
** negative.  The batches take their vector and prefetching paths when
** this machine and the table size allow (the single-item functions are
** always scalar), so this also checks those against the scalar code.
*/
static void batch_vs_single(uint64_t m, unsigned b, unsigned fp, uint32_t flags,
                            uint64_t seed) {
  cf_filter fa, fb;
  uint8_t *ba, *bb, *aFound, *aGot;
  uint64_t *aHash, n, nMax = m * b + 64, i, nA = 0, nB, lost = 0, diff = 0;
  rng r = {seed * 31 + fp + flags};
  int rcA = CF_OK, rcB;
  g_flags = flags;
  ba = make_filter(&fa, m, b, fp, seed);
  bb = make_filter(&fb, m, b, fp, seed);
  g_flags = 0;
  aHash = xmalloc((size_t)(2 * nMax) * sizeof(uint64_t));
  aFound = xmalloc((size_t)(2 * nMax));
  aGot = xmalloc((size_t)(2 * nMax));
  for (i = 0; i < 2 * nMax; i++)
    aHash[i] = hash_of_id(&fa, i);

  /* fill to failure */
  for (nA = 0; nA < nMax; nA++) {
    rcA = cf_insert(&fa, cf_key_of(&fa, aHash[nA]));
    if (rcA != CF_OK) break;
  }
  nB = batch_insert(&fb, aHash, nMax, &r, &rcB);
  CHECKF(nA == nB && rcA == rcB && fb.count == nB &&
             cf_get_u64(fb.blob + 24) == nB &&
             memcmp(ba, bb, fa.blob_size) == 0,
         "fill m=%llu b=%u f=%u flags=%u: %llu/%llu items, rc %d/%d",
         (unsigned long long)m, b, fp, flags, (unsigned long long)nA,
         (unsigned long long)nB, rcA, rcB);
  n = nA;

  /* lookups: present ids 0..n-1 and as many absent ones */
  {
    uint64_t *aQ = xmalloc((size_t)(2 * n + 1) * sizeof(uint64_t));
    size_t nFound, nSum = 0;
    uint64_t nInline = 0;
    for (i = 0; i < 2 * n; i++) {
      uint64_t id = i < n ? i : nMax + (i - n);
      aQ[i] = aHash[id];
      aFound[i] = (uint8_t)cf_contains(&fa, cf_key_of(&fa, aQ[i]));
      /* the inline single-item path gives the same answers */
      nInline += cf_contains_hash(&fa, aQ[i]) != aFound[i];
      nInline += cf_contains_int(&fa, (int64_t)(id * 0x2545f4914f6cdd1dULL)) !=
                 aFound[i];
    }
    CHECKF(nInline == 0,
           "inline lookups m=%llu b=%u f=%u flags=%u: %llu differ",
           (unsigned long long)m, b, fp, flags, (unsigned long long)nInline);
    nFound = cf_contains_batch(&fb, aQ, (size_t)(2 * n), aGot);
    for (i = 0; i < 2 * n; i++) {
      diff += aGot[i] != aFound[i];
      nSum += aGot[i];
    }
    for (i = 0; i < n; i++)
      lost += !aGot[i];
    CHECK(nFound == nSum);
    CHECK(cf_contains_batch(&fb, aQ, (size_t)(2 * n), 0) == nFound);
    free(aQ);
  }
  CHECKF(diff == 0 && lost == 0,
         "lookups m=%llu b=%u f=%u flags=%u: %llu differ, %llu lost",
         (unsigned long long)m, b, fp, flags, (unsigned long long)diff,
         (unsigned long long)lost);

  /* remove a random half of the present ids, with absent ids mixed in */
  {
    uint64_t *aQ = xmalloc((size_t)(n + 1) * sizeof(uint64_t));
    uint8_t *aKeep = xmalloc((size_t)(n + 1));
    size_t nQ = 0, nRemA = 0, nRemB = 0, done = 0;
    memset(aKeep, 1, (size_t)(n + 1));
    for (i = 0; i < n; i++) {
      if (rnd(&r) & 1) {
        aKeep[i] = 0;
        aQ[nQ++] = aHash[i];
      } else if (rnd_below(&r, 8) == 0 &&
                 !cf_contains(&fa, cf_key_of(&fa, aHash[nMax + i]))) {
        /* an absent item (removing a false positive would delete
        ** another item's fingerprint: delete only what was added) */
        aQ[nQ++] = aHash[nMax + i];
      }
    }
    for (i = 0; i < nQ; i++) {
      aFound[i] = cf_remove(&fa, cf_key_of(&fa, aQ[i])) == CF_OK;
      nRemA += aFound[i];
    }
    while (done < nQ) {
      size_t k = (size_t)rnd_below(&r, 200);
      if (k > nQ - done) k = nQ - done;
      nRemB += cf_remove_batch(&fb, aQ + done, k, aGot + done);
      done += k;
    }
    for (i = 0, diff = 0; i < nQ; i++)
      diff += aGot[i] != aFound[i];
    CHECKF(diff == 0 && nRemA == nRemB && fa.count == fb.count &&
               cf_get_u64(fb.blob + 24) == fb.count &&
               memcmp(ba, bb, fa.blob_size) == 0,
           "remove m=%llu b=%u f=%u flags=%u: %llu differ",
           (unsigned long long)m, b, fp, flags, (unsigned long long)diff);
    for (i = 0, lost = 0; i < n; i++) {
      if (aKeep[i]) lost += !cf_contains(&fb, cf_key_of(&fb, aHash[i]));
    }
    CHECKF(lost == 0, "after remove m=%llu b=%u f=%u flags=%u: %llu lost",
           (unsigned long long)m, b, fp, flags, (unsigned long long)lost);

    /* churn: batches of inserts (new ids) and removals (kept ids) */
    {
      uint64_t next = 2 * nMax, round, nBad = 0;
      uint64_t *aLive = xmalloc((size_t)(nMax + 1) * sizeof(uint64_t));
      uint64_t nLive = 0;
      for (i = 0; i < n; i++)
        if (aKeep[i]) aLive[nLive++] = aHash[i];
      for (round = 0; round < 6; round++) {
        uint64_t aIns[150];
        uint8_t aCopy[150], aRef[150];
        size_t k = (size_t)rnd_below(&r, 150), got, j;
        int rcI;
        for (j = 0; j < k; j++) {
          /* odd rounds repeat some items: copies above 1 */
          aIns[j] = (round & 1) && j > 0 && rnd_below(&r, 4) == 0
                        ? aIns[rnd_below(&r, j)]
                        : cf_hash_int(seed, (int64_t)next++);
        }
        for (j = 0, nA = 0; j < k; j++) {
          cf_key kk = cf_key_of(&fa, aIns[j]);
          if (cf_insert(&fa, kk) != CF_OK) break;
          aRef[j] = (uint8_t)cf_copies(&fa, kk);
          nA++;
        }
        if (round & 1) {
          /* cf_insert_batch_copies: the bytes of cf_insert_batch, and
          ** each item's copies just after its own insert */
          got = cf_insert_batch_copies(&fb, aIns, k, &rcI, aCopy);
          nBad += got == nA && got > 0 && memcmp(aCopy, aRef, got) != 0;
        } else {
          got = cf_insert_batch(&fb, aIns, k, &rcI);
        }
        nBad += got != nA || memcmp(ba, bb, fa.blob_size) != 0;
        for (j = 0; j < got && nLive < nMax; j++)
          aLive[nLive++] = aIns[j];
        k = (size_t)rnd_below(&r, nLive / 4 + 1);
        for (j = 0; j < k; j++) { /* remove k random live items */
          uint64_t x = rnd_below(&r, nLive), h = aLive[x];
          aLive[x] = aLive[--nLive];
          aQ[j] = h;
          nBad += cf_remove(&fa, cf_key_of(&fa, h)) != CF_OK;
        }
        nBad += cf_remove_batch(&fb, aQ, k, 0) != k;
        nBad += memcmp(ba, bb, fa.blob_size) != 0;
      }
      CHECKF(nBad == 0, "churn m=%llu b=%u f=%u flags=%u: %llu mismatches",
             (unsigned long long)m, b, fp, flags, (unsigned long long)nBad);
      for (i = 0, lost = 0; i < nLive; i++) {
        lost += !cf_contains(&fb, cf_key_of(&fb, aLive[i]));
      }
      lost += cf_contains_batch(&fb, aLive, (size_t)nLive, 0) != nLive;
      CHECKF(lost == 0, "churn m=%llu b=%u f=%u flags=%u: %llu lost",
             (unsigned long long)m, b, fp, flags, (unsigned long long)lost);
      free(aLive);
    }
    free(aQ);
    free(aKeep);
  }
  free(aHash);
  free(aFound);
  free(aGot);
  free(ba);
  free(bb);
}

/*
** (l) Crafted semi-sorted buckets.  A bucket this code writes is sorted,
** with its free slots first; a crafted BLOB can hold any bits: unsorted
** fingerprints, free slots anywhere, codes past the last one.  Inserts
** and removes on such a filter must still never lose an item they
** reported added (blob_fuzz found an insert that did, in the word-level
** path).  Every width, word-level (f <= 15) and field by field.
*/
static void set_bits(uint8_t *t, uint64_t bit, unsigned w, uint64_t v) {
  unsigned k;
  for (k = 0; k < w; k++, bit++) {
    uint8_t m = (uint8_t)(1u << (bit & 7));
    if ((v >> k) & 1)
      t[bit >> 3] |= m;
    else
      t[bit >> 3] &= (uint8_t)~m;
  }
}

static void test_ss_crafted(void) {
  static const uint64_t aM[] = {1, 2, 3, 5, 8, 61};
  unsigned fp, im, round, nRound = scale > 1 ? 1 : 3;
  for (round = 0; round < nRound; round++)
    for (fp = CF_SS_MIN_FP_BITS; fp <= CF_MAX_FP_BITS; fp++)
      for (im = 0; im < sizeof(aM) / sizeof(aM[0]); im++) {
        rng r = {977 + round * 1000 + fp * 8 + im};
        uint64_t m = aM[im], j, bb = 4 * fp - 4, lost = 0, wrong = 0, nOk = 0;
        uint64_t aId[400], nId = 0, op;
        cf_filter f, g;
        uint8_t *buf;
        const char *zWhy = 0;
        g_flags = CF_FLAG_SEMISORT;
        buf = make_filter(&f, m, 4, fp, 5 + fp);
        g_flags = 0;
        for (j = 0; j < m; j++) {
          unsigned s, code;
          switch (rnd_below(&r, 4)) {
          case 0: code = 0; break; /* nibbles 0 */
          case 1:
            code = 3876 + (unsigned)rnd_below(&r, 220);
            break; /* past the last */
          default: code = (unsigned)rnd_below(&r, 4096); break;
          }
          set_bits(f.table, j * bb, 12, code);
          for (s = 0; s < 4; s++) {
            uint64_t v =
                rnd_below(&r, 3) == 0 ? 0 : rnd(&r); /* free slots anywhere */
            set_bits(f.table, j * bb + 12 + s * (fp - 4), fp - 4, v);
          }
        }
        cf_put_u64(buf + 24, cf_count_slots(&f));
        CHECKF(cf_open(&g, buf, (size_t)cf_blob_size(&f.p), &zWhy) == CF_OK,
               "f=%u: %s", fp, zWhy ? zWhy : "");
        for (op = 0; op < 3000; op++) {
          uint64_t i;
          if (nId > 0 && (nId == 400 || rnd_below(&r, 3) == 0)) {
            uint64_t x = rnd_below(&r, nId);
            if (cf_remove(&g, key_of_id(&g, aId[x])) != CF_OK) wrong++;
            aId[x] = aId[--nId];
          } else {
            uint64_t id = rnd(&r);
            if (cf_insert(&g, key_of_id(&g, id)) == CF_OK) {
              aId[nId++] = id;
              nOk++;
            }
          }
          for (i = 0; i < nId; i++) {
            if (!cf_contains(&g, key_of_id(&g, aId[i]))) lost++;
          }
        }
        CHECKF(lost == 0 && wrong == 0 && (m < 8 || nOk > 100),
               "f=%u m=%llu: %llu lost, %llu failed removes, %llu inserts", fp,
               (unsigned long long)m, (unsigned long long)lost,
               (unsigned long long)wrong, (unsigned long long)nOk);
        free(buf);
      }
}

static void test_batch(void) {
  unsigned fp, b;
  /* every width, plain b = 4 and semi-sorted */
  for (fp = CF_MIN_FP_BITS; fp <= CF_MAX_FP_BITS; fp++) {
    batch_vs_single(1009 + fp, 4, fp, 0, 10 + fp);
    if (fp >= CF_SS_MIN_FP_BITS) {
      batch_vs_single(1013 + fp, 4, fp, CF_FLAG_SEMISORT, 20 + fp);
    }
  }
  /* other bucket sizes, whole-word (b*f <= 57) and field by field */
  for (b = 2; b <= 8; b *= 4) {
    static const unsigned aF[] = {4, 7, 9, 14, 17, 28, 29, 32};
    size_t i;
    for (i = 0; i < sizeof(aF) / sizeof(aF[0]); i++) {
      batch_vs_single(777, b, aF[i], 0, 30 + i);
    }
  }
  /* plain buckets of whole bytes (the inline lookup reads the 8 bytes
  ** that end with the bucket), also in tables shorter than 8 bytes, where
  ** that window reaches back into the header */
  {
    static const unsigned aW[][2] = {{2, 8},  {2, 12}, {2, 16}, {2, 24},
                                     {8, 5},  {8, 6},  {8, 7},  {8, 8},
                                     {4, 16}, {2, 32}};
    size_t i;
    for (i = 0; i < sizeof(aW) / sizeof(aW[0]); i++) {
      batch_vs_single(333, aW[i][0], aW[i][1], 0, 50 + i);
      batch_vs_single(1, aW[i][0], aW[i][1], 0, 70 + i);
      batch_vs_single(3, aW[i][0], aW[i][1], 0, 90 + i);
    }
  }
  /* tables of fewer than 8 bytes (no bucket words) */
  batch_vs_single(1, 4, 12, 0, 41);
  batch_vs_single(1, 4, 13, CF_FLAG_SEMISORT, 42);
  batch_vs_single(2, 2, 9, 0, 43);
  /* tables of more than 1 MB: the prefetching loops */
  if (scale == 1) {
    batch_vs_single(200003, 4, 12, 0, 44);
    batch_vs_single(200003, 4, 13, CF_FLAG_SEMISORT, 45);
    batch_vs_single(160001, 4, 16, 0, 46);
  }
}

/*
** The whole-bucket paths (64-bit words, 128-bit windows for wider plain
** buckets) against the field-by-field codec (cf_region_get/set), and the
** block views against the callback store: for every geometry, a filter
** filled to failure decodes the same either way and re-encodes to the
** same bytes; block views of every 8-bucket region answer lookups like
** the filter, and put/del write what the codec writes.
*/
static void words_vs_fields(uint64_t m, unsigned b, unsigned fp,
                            uint32_t flags) {
  cf_filter f, v;
  uint8_t *buf, *copy;
  uint32_t a[CF_MAX_BUCKET_SIZE], c[CF_MAX_BUCKET_SIZE];
  uint64_t i, id, bad = 0;
  unsigned s;
  g_flags = flags;
  buf = make_filter(&f, m, b, fp, 77 + fp);
  g_flags = 0;
  for (id = 0; id < m * b; id++) {
    if (cf_insert(&f, key_of_id(&f, id)) != CF_OK) break;
  }
  copy = xmalloc(f.table_size);
  memset(copy, 0, f.table_size);
  for (i = 0; i < m; i++) {
    cf_bucket_get(&f, (uint32_t)i, a);
    cf_region_get(&f.p, f.table, f.table_size, i, c);
    bad += memcmp(a, c, b * sizeof(uint32_t)) != 0;
    cf_region_set(&f.p, copy, f.table_size, i, c);
  }
  bad += memcmp(copy, f.table, f.table_size) != 0;
  /* block views of regions of 8 buckets (m a multiple of 8) */
  CHECK(cf_view_init(&v, &f.p, 8) == CF_OK);
  for (i = 0; i < m; i++) {
    uint32_t j = (uint32_t)(i % 8), fp0;
    uint8_t *r = f.table + (i / 8) * (8 * f.bucket_bits / 8);
    v.table = r;
    cf_region_get(&f.p, f.table, f.table_size, i, a);
    for (s = 0; s < b; s++) {
      if (a[s]) bad += !cf_view_has(&v, j, a[s]);
    }
    bad += cf_view_free(&v, j) != (cf_slot_of_test(a, b, 0) >= 0);
    fp0 = a[0] ? a[0] : 1;
    if (cf_view_del(&v, j, fp0)) {
      /* the codec's removal: first slot holding fp0 cleared */
      int k = cf_slot_of_test(a, b, fp0);
      a[k] = 0;
      cf_region_get(&f.p, f.table, f.table_size, i, c);
      cf_region_set(&f.p, copy, f.table_size, i, a);
      cf_region_get(&f.p, copy, f.table_size, i, a);
      bad += memcmp(a, c, b * sizeof(uint32_t)) != 0;
      bad += !cf_view_put(&v, j, fp0);
      cf_region_get(&f.p, f.table, f.table_size, i, c);
      a[cf_slot_of_test(a, b, 0)] = fp0;
      cf_region_set(&f.p, copy, f.table_size, i, a);
      cf_region_get(&f.p, copy, f.table_size, i, a);
      bad += memcmp(a, c, b * sizeof(uint32_t)) != 0;
    }
  }
  bad += memcmp(copy, f.table, f.table_size) != 0;
  CHECKF(bad == 0, "words vs fields m=%llu b=%u f=%u flags=%u: %llu bad",
         (unsigned long long)m, b, fp, flags, (unsigned long long)bad);
  free(copy);
  free(buf);
}

static void test_words(void) {
  unsigned fp, b;
  for (b = 2; b <= 8; b *= 2) {
    for (fp = CF_MIN_FP_BITS; fp <= CF_MAX_FP_BITS; fp++) {
      words_vs_fields(96, b, fp, 0);
      words_vs_fields(8, b, fp, 0); /* tiny: windows moved back */
    }
  }
  for (fp = CF_SS_MIN_FP_BITS; fp <= CF_MAX_FP_BITS; fp++) {
    words_vs_fields(96, 4, fp, CF_FLAG_SEMISORT);
  }
}

/* l. slot counts skip all-zero runs of buckets: cf_count_slots() and
** cf_region_slots() equal a count over every bucket, for filters empty,
** sparse (a few buckets set, anywhere, with fingerprints of one bit at
** either end) and dense, at every width, plain and semi-sorted; cf_zero()
** equals a byte loop for every length and position of one set bit. */
static void test_slots(void) {
  static const uint64_t aM[] = {1, 7, 63, 64, 65, 129, 1000, 4099};
  uint8_t z[300];
  unsigned iM, b, fp, k, ss;
  size_t n, at, bit;
  rng r = {0x5107c0};
  for (n = 0; n <= 80; n++) {
    memset(z, 0, sizeof(z));
    CHECK(cf_zero(z + 3, n));
    for (at = 0; at < n; at++) {
      for (bit = 0; bit < 8; bit += 7) {
        z[3 + at] = (uint8_t)(1u << bit);
        CHECK(!cf_zero(z + 3, n));
        z[3 + at] = 0;
      }
    }
    z[3 + n] = 1; /* just past the end */
    z[2] = 1;     /* just before */
    CHECK(cf_zero(z + 3, n));
  }
  for (ss = 0; ss < 2; ss++) {
    for (b = ss ? 4 : 2; b <= (ss ? 4u : 8u); b *= 2) {
      for (fp = ss ? CF_SS_MIN_FP_BITS : CF_MIN_FP_BITS; fp <= CF_MAX_FP_BITS;
           fp += 1 + (unsigned)rnd_below(&r, 3)) {
        for (iM = 0; iM < sizeof(aM) / sizeof(aM[0]); iM++) {
          uint64_t m = aM[iM], i, nSet, want = 0, nReg;
          uint32_t a[CF_MAX_BUCKET_SIZE];
          cf_filter f;
          uint8_t *buf;
          g_flags = ss ? CF_FLAG_SEMISORT : 0;
          buf = make_filter(&f, m, b, fp, 1);
          nSet = rnd_below(&r, 4) == 0 ? m : rnd_below(&r, 4);
          for (i = 0; i < nSet; i++) {
            uint64_t j = nSet == m ? i : rnd_below(&r, m);
            for (k = 0; k < b; k++) {
              uint64_t v = rnd_below(&r, 4);
              a[k] = v == 0   ? 0
                     : v == 1 ? 1
                     : v == 2 ? (uint32_t)f.fp_mask
                              : 1 + (uint32_t)rnd_below(&r, f.fp_mask);
            }
            cf_region_set(&f.p, f.table, f.table_size, j, a);
          }
          nReg = rnd_below(&r, m + 1);
          for (i = 0; i < m; i++) {
            cf_region_get(&f.p, f.table, f.table_size, i, a);
            for (k = 0; k < b; k++)
              want += a[k] != 0;
            if (i + 1 == nReg) {
              CHECK(cf_region_slots(&f.p, f.table, f.table_size, nReg) ==
                    want);
            }
          }
          CHECK(cf_count_slots(&f) == want);
          CHECK(cf_region_slots(&f.p, f.table, f.table_size, m) == want);
          free(buf);
        }
      }
    }
  }
  g_flags = 0;
}

int main(void) {
  const char *z = getenv("CUCKOO_SANITIZED");
  clock_t t0 = clock();
  tl_zProgram = "core_test";
  if (z && z[0] && strcmp(z, "0") != 0 && scale < 5) scale = 5;
  /* an explicit divisor: make cross runs under qemu with fewer operations */
  z = getenv("CUCKOO_TEST_SCALE");
  if (z && atoi(z) > 1) scale = atoi(z);
  test_hashing();
  test_too_many();
  test_determinism();
  test_open();
  test_merge();
  test_store();
  test_semisort();
  test_hash_forms();
  test_batch();
  test_words();
  test_ss_crafted();
  test_slots();
  test_fill();
  test_capacity();
  test_model();
  printf("core_test: %.1f s cpu\n", (double)(clock() - t0) / CLOCKS_PER_SEC);
  return tl_report("core_test");
}
