/*
** Copyright (c) 2026 the cuckoo authors.  MIT License: see LICENSE.
**
** filter.c: the core cuckoo filter (ext/, no SQLite) as WebAssembly, for
** filter.js.  A thin shim over the core's API (ext/cuckoo_filter.h): it
** owns the filter's buffer (the core never allocates) and gives
** JavaScript one call per operation.  Item identity and hashing are the
** core's own (docs/format.md, "Item identity"): filter.js only picks the
** kind of a JavaScript value.  Parameters are chosen exactly as the SQL
** function cuckoo_new() chooses them (ext/cuckoo_sqlutil.c, cksql_params),
** so the same arguments give byte-identical BLOBs.
**
** Built by mk/wasm.mk with emcc -sSTANDALONE_WASM: no JavaScript glue, the
** exports below are called directly.  No export takes or returns a 64-bit
** integer: 64-bit values (seeds, INTEGER items) pass through memory, so
** the module needs no BigInt integration from the JavaScript engine.
*/
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cuckoo_filter.h"

#define EXPORT __attribute__((used, visibility("default")))

/* A filter and the buffer it lives in (BLOB layout, cf_blob_size bytes). */
typedef struct ckf {
  cf_filter f;
  uint8_t *buf;
} ckf;

/* Result codes of ckf_create (filter.js turns them into messages). */
#define CKF_OK 0
#define CKF_BAD_BUCKET 1   /* bucket size not 2, 4 or 8 */
#define CKF_BAD_RATE 2     /* error rate not in (0, 1) */
#define CKF_RATE_BITS 3    /* error rate needs more than 32-bit fps */
#define CKF_SEMISORT_B 4   /* semisort needs bucket size 4 */
#define CKF_TOO_LARGE 5    /* capacity too large */
#define CKF_NOMEM 6        /* out of memory */

/* A buffer of n bytes for JavaScript to fill (items, BLOBs). */
EXPORT void *ckf_malloc(size_t n) { return malloc(n ? n : 1); }
EXPORT void ckf_free_mem(void *p) { free(p); }

static ckf *ckf_alloc(size_t n) {
  ckf *h = malloc(sizeof(*h));
  if (h == 0) return 0;
  h->buf = malloc(n);
  if (h->buf == 0) {
    free(h);
    return 0;
  }
  return h;
}

/*
** A new empty filter, sized as cuckoo_new(capacity, error_rate, options)
** sizes it, with the 64-bit seed at pSeed.  capacity >= 1 (filter.js
** checks that it is an integer).
** Returns the filter, or 0 with *pRc set to a CKF_ code.
*/
EXPORT ckf *ckf_create(double capacity, double error_rate, unsigned bucket_size,
                       const uint8_t *pSeed, int semisort, int *pRc) {
  cf_params p;
  ckf *h;
  uint64_t n, seed;
  memcpy(&seed, pSeed, 8); /* little-endian, as wasm memory is */
  if (!cf_bucket_size_ok(bucket_size)) {
    *pRc = CKF_BAD_BUCKET;
    return 0;
  }
  if (!(error_rate > 0.0 && error_rate < 1.0)) {
    *pRc = CKF_BAD_RATE;
    return 0;
  }
  if (cf_fp_bits_for(error_rate, bucket_size) == 0) {
    *pRc = CKF_RATE_BITS;
    return 0;
  }
  if (semisort && bucket_size != 4) {
    *pRc = CKF_SEMISORT_B;
    return 0;
  }
  if (!(capacity >= 1.0 && capacity < 18446744073709551616.0) ||
      cf_params_for(&p, (uint64_t)capacity, error_rate, bucket_size, seed) !=
          CF_OK) {
    *pRc = CKF_TOO_LARGE;
    return 0;
  }
  if (semisort) {
    /* As cksql_params: semi-sorted buckets keep 4 high bits apart. */
    p.flags = CF_FLAG_SEMISORT;
    if (p.fp_bits < CF_SS_MIN_FP_BITS) p.fp_bits = CF_SS_MIN_FP_BITS;
  }
  if (cf_params_check(&p) != CF_OK) {
    *pRc = CKF_TOO_LARGE;
    return 0;
  }
  n = cf_blob_size(&p);
  if (n > SIZE_MAX / 2 || (h = ckf_alloc((size_t)n)) == 0) {
    *pRc = CKF_NOMEM;
    return 0;
  }
  cf_init(&h->f, &p, h->buf);
  *pRc = CKF_OK;
  return h;
}

/*
** A filter from a BLOB of n bytes at p (copied).  The core validates
** every header field against the length before anything is read
** (cf_open).  Returns 0 with *pzWhy the core's static message when the
** bytes are not a filter, or with *pzWhy 0 when out of memory.
*/
EXPORT ckf *ckf_open(const uint8_t *p, size_t n, const char **pzWhy) {
  cf_filter probe;
  ckf *h;
  *pzWhy = 0;
  if (cf_open(&probe, p, n, pzWhy) != CF_OK) return 0;
  if ((h = ckf_alloc(n)) == 0) return 0;
  memcpy(h->buf, p, n);
  if (cf_open(&h->f, h->buf, n, pzWhy) != CF_OK) { /* cannot happen */
    free(h->buf);
    free(h);
    return 0;
  }
  return h;
}

EXPORT void ckf_close(ckf *h) {
  if (h) {
    free(h->buf);
    free(h);
  }
}

/* The filter's BLOB (kept up to date, header count included). */
EXPORT const uint8_t *ckf_blob(const ckf *h) { return h->f.blob; }
EXPORT size_t ckf_blob_size(const ckf *h) { return h->f.blob_size; }
EXPORT double ckf_expected_fpr(const ckf *h) { return cf_expected_fpr(&h->f); }
EXPORT unsigned ckf_min_fp_bits(unsigned bucket_size) {
  return cf_min_fp_bits(bucket_size);
}

/* Item kinds (filter.js picks one per JavaScript value). */
#define CKF_INT 1  /* p[0..8): a BigInt, as int64 */
#define CKF_REAL 2 /* d: a Number */
#define CKF_TEXT 3 /* p[0..n): UTF-8 */
#define CKF_BLOB 4 /* p[0..n) */

/* Operations. */
#define CKF_CONTAINS 1 /* 1 or 0 */
#define CKF_ADD 2      /* CF_OK, CF_FULL or CF_TOO_MANY */
#define CKF_REMOVE 3   /* 1 removed, 0 not present, -CF_CORRUPT */
#define CKF_COUNT 4    /* copies of the fingerprint in its buckets */

static uint64_t ckf_hash(const ckf *h, int kind, const void *p, size_t n,
                         double d) {
  uint64_t seed = h->f.p.seed;
  int64_t i;
  switch (kind) {
  case CKF_INT:
    memcpy(&i, p, 8);
    return cf_hash_int(seed, i);
  case CKF_REAL: return cf_hash_real(seed, d);
  case CKF_TEXT: return cf_hash_text(seed, p, n);
  default: return cf_hash_blob(seed, p, n);
  }
}

/* One operation on one item; see CKF_CONTAINS.. for the results. */
EXPORT int ckf_op(ckf *h, int op, int kind, const void *p, size_t n, double d) {
  cf_key k = cf_key_of(&h->f, ckf_hash(h, kind, p, n, d));
  int rc;
  switch (op) {
  case CKF_CONTAINS: return cf_contains(&h->f, k);
  case CKF_ADD: return cf_insert(&h->f, k);
  case CKF_REMOVE:
    rc = cf_remove(&h->f, k);
    return rc == CF_OK ? 1 : rc == CF_NOTFOUND ? 0 : -rc;
  default: return (int)cf_copies(&h->f, k);
  }
}

/*
** Lookups of the integers first, first+1, .., first+n-1, all in C: the
** number found.  For `make bench-wasm`, which times the same loop built
** natively (tests/wasm/bench_native.c), so the ratio is the code's, not
** the JavaScript call's.
*/
EXPORT uint32_t ckf_bench_ints(const ckf *h, double first, uint32_t n) {
  uint32_t i, found = 0;
  int64_t v = (int64_t)first;
  for (i = 0; i < n; i++)
    found += (uint32_t)cf_contains_int(&h->f, v + (int64_t)i);
  return found;
}
