/*
** Copyright (c) 2026 the cuckoo authors.  MIT License: see LICENSE.
**
** cuckoo_core_int.h: the core's internal declarations, shared by its
** files and by no one else (private: the SQL layer includes only
** cuckoo_filter.h).  No SQLite.
**
** The core's headers include each other in one line, never back
** (dist/amalgamate.sh pastes each where it is first included):
**
**   cuckoo_port.h       each compiler builtin and attribute, one name
**         |             each (GCC/Clang, MSVC, plain C)
**         v
**   cuckoo_lookup.h     linkage, cf_key, the private part of a filter
**         |             (cf_fast), the format's arithmetic (XXH3 of 8
**         |             bytes, key split, alternate bucket), bucket
**         |             words over cf_fast
**         v
**   cuckoo_filter.h     the API: what the SQL layer includes (through
**         |             cuckoo_sql.h) and calls, the BLOB header's layout
**         v
**   cuckoo_bucket.h     bit fields, bucket codecs, bucket words, decoded
**         |             buckets (inline)
**         v
**   cuckoo_core_int.h   this header: what the core's files share
**         |
**         +--> cuckoo_codec.c    the codecs out of line: regions
**         |                      (cf_region_get/set) and, from
**         |                      cuckoo_sstable.h, the semi-sorted decode
**         |                      table
**         +--> cuckoo_hash.c     hashing items (XXH3) and the key split
**         +--> cuckoo_filter.c   the filter: parameters, header, the
**         |                      single-item operations and the insertion
**         |                      walk, block views, callback stores, merge
**         +--> cuckoo_batch.c    batches of items: the grouped key
**                                pipeline with prefetch, and the AVX-512
**                                loops
**
** This header holds what two of them share: the single-item steps that
** both the filter's operations and the batch loops compile inline (a
** lookup in two buckets, placing into a free slot, removing), the
** out-of-line functions one file defines for another, and the wrappers
** only the tests call (cf_key_from(), cf_alt_bucket(); tests/core_test.c
** includes this header).
**
** The rules of cuckoo_filter.h and the invariants stated here are
** checked with assert() where they hold: compiled into the test builds
** (make check, make asan) and out of the release ones (-DNDEBUG; the
** amalgamation defines NDEBUG unless CUCKOO_DEBUG is defined).
*/
#ifndef CUCKOO_CORE_INT_H
#define CUCKOO_CORE_INT_H

/* After the core's headers: in the amalgamation, cuckoo_lookup.h decides
** NDEBUG before the first <assert.h>. */
#include "cuckoo_bucket.h"

#include <assert.h>

/* 1 if cf_alt_tab (cuckoo_lookup.h) is filled and holds every
** fingerprint of fp_bits bits (cuckoo_hash.c). */
CUCKOO_PRIVATE int cf_alt_tab_usable(unsigned fp_bits);

/* A strong 64-bit mixer (a variant of the murmur3 finalizer): the
** format's H(fp) is cf_reduce(cf_mix64(fp) >> 32, m), which cf_alt_mix()
** computes in fewer steps; the walk's choices hash with it too. */
CF_INLINE uint64_t cf_mix64(uint64_t x) {
  x ^= x >> 33;
  x *= 0xff51afd7ed558ccdULL;
  x ^= x >> 33;
  x *= 0xc4ceb9fe1a85ec53ULL;
  x ^= x >> 33;
  return x;
}

/* The alternate bucket of fp stored in bucket i, in a filter of nbuckets
** buckets (cf_alt_in() of cuckoo_filter.h, from the bucket count). */
CF_INLINE uint32_t cf_alt(uint64_t nbuckets, uint32_t i, uint32_t fp) {
  return cf_alt_from(nbuckets, i, cf_alt_mix(fp));
}

/* Out-of-line forms of cf_key_in() and cf_alt() (cuckoo_hash.c), for the
** tests. */
CUCKOO_PRIVATE cf_key cf_key_from(const cf_params *p, uint64_t hash);
CUCKOO_PRIVATE uint32_t cf_alt_bucket(uint64_t nbuckets, uint32_t i,
                                      uint32_t fp);

/* The key of hash in filter f: fp in 1 .. fp_mask (rule 1), i1 < m. */
CF_INLINE cf_key cf_key_at(const cf_filter *f, uint64_t hash) {
  cf_key k = cf_split(f->p.nbuckets, f->fp_mask, hash);
  assert(k.fp >= 1 && k.fp <= f->fp_mask && k.i1 < f->p.nbuckets);
  return k;
}

/* The slow path of an insert (cuckoo_filter.c), kept out of line: the
** insertion walk for fp when both its buckets i1 and i2 are full.
** CF_OK, CF_FULL or CF_TOO_MANY; on failure nothing changed. */
CUCKOO_PRIVATE int cf_kick(cf_filter *f, uint32_t i1, uint32_t i2, uint32_t fp);

/* The header's item count, written from f->count. */
CF_INLINE void cf_write_count(cf_filter *f) {
  assert(f->count <= f->p.nbuckets * f->p.bucket_size);
  cf_st64(f->blob + CF_HDR_COUNT, f->count);
}

/* ---------------------------------------------------------------------
** Single-item steps shared by the operations and the batches
*/

/* Bucket access modes, for code specialized on one of them. */
#define CF_MODE_ANY 0  /* decided per call from f->x.swar / f->x.ssword */
#define CF_MODE_SWAR 1 /* plain bucket words */
#define CF_MODE_SS 2   /* semi-sorted bucket words */
#define CF_MODE_BITS 3 /* field by field */
#define CF_MODE_WIDE 4 /* wide plain bucket words (f->x.wide) */

#ifndef NDEBUG
/* For the asserts of rule 7: does bucket i hold fp, read field by field
** through the region codecs (cuckoo_codec.c)? */
CUCKOO_PRIVATE int cf_has_slow(const cf_filter *f, uint32_t i, uint32_t fp);
#endif

/* cf_has_m() without its asserts. */
CF_INLINE int cf_has_w(const cf_filter *f, int mode, uint32_t i1, uint32_t i2,
                       uint32_t fp) {
  if (mode == CF_MODE_ANY) {
    mode = f->x.swar     ? CF_MODE_SWAR
           : f->x.ssword ? CF_MODE_SS
           : CF_WIDE(f)  ? CF_MODE_WIDE
                         : CF_MODE_BITS;
  }
  if (mode == CF_MODE_SWAR) {
    uint64_t pat = fp * f->x.lo;
    return (cf_zero_fields(f, cf_word_raw(f, i1) ^ pat) |
            cf_zero_fields(f, cf_word_raw(f, i2) ^ pat)) != 0;
  }
  if (mode == CF_MODE_SS) {
    return (cf_ss_match(f, cf_word_raw(f, i1), fp) |
            cf_ss_match(f, cf_word_raw(f, i2), fp)) != 0;
  }
  if (mode == CF_MODE_WIDE) {
    return cf_wide_has(f, i1, fp) | cf_wide_has(f, i2, fp);
  }
  return cf_find(f, i1, fp) >= 0 || (i2 != i1 && cf_find(f, i2, fp) >= 0);
}

/* Is fp in bucket i1 or i2?  (No need to skip i2 == i1 here.) */
CF_INLINE int cf_has_m(const cf_filter *f, int mode, uint32_t i1, uint32_t i2,
                       uint32_t fp) {
  assert(fp >= 1 && fp <= f->fp_mask);
  assert(i1 < f->p.nbuckets && i2 < f->p.nbuckets);
  /* rule 7: the word-level tests answer as the field-by-field one */
  assert(cf_has_w(f, mode, i1, i2, fp) ==
         (cf_has_slow(f, i1, fp) || cf_has_slow(f, i2, fp)));
  return cf_has_w(f, mode, i1, i2, fp);
}

/*
** A free slot in bucket i takes fp: 1 if it did.  The same slot as
** cf_place_x() would choose: the lowest free slot of a plain bucket; a
** semi-sorted bucket has a free slot iff its smallest fingerprint is 0.
*/
CF_INLINE int cf_put_free(cf_filter *f, uint32_t i, uint32_t fp) {
  assert(fp >= 1 && fp <= f->fp_mask && i < f->p.nbuckets);
  if (f->x.swar) {
    unsigned sh;
    size_t at = cf_win(f, i, &sh);
    uint64_t v = cf_ld64(f->table + at);
    uint64_t z = cf_zero_fields(f, v >> sh);
    if (z == 0) return 0;
    /* the field is zero: OR the fingerprint in */
    cf_st64(
        f->table + at,
        v | ((uint64_t)fp << (sh + cf_slot_at(f, CF_CTZ64(z)) * f->p.fp_bits)));
    return 1;
  }
  if (f->x.ssword) {
    uint64_t w = cf_word_raw(f, i);
    uint32_t a[4];
    unsigned mFree = cf_ss_free(f, w);
    if (!mFree) return 0;
    cf_ss_unpack(f, w, a);
    cf_ss_add(a, mFree, fp);
    cf_word_put(f, i, cf_ss_pack(f, a));
    return 1;
  }
  {
    uint32_t a[CF_MAX_BUCKET_SIZE];
    int s;
    cf_read(f, i, a);
    if ((s = cf_slot_of(a, f->p.bucket_size, 0)) < 0) return 0;
    a[s] = fp;
    cf_write(f, i, a);
    return 1;
  }
}

/* Insert without updating the header's count (batches write it once). */
CF_INLINE int cf_place(cf_filter *f, uint32_t i1, uint32_t i2, uint32_t fp) {
  int rc;
  /* rule 2: i2 is fp's other bucket, and i1 is i2's */
  assert(i2 == cf_alt_from(f->p.nbuckets, i1, cf_alt_mix(fp)));
  if (f->count >= f->p.nbuckets * f->p.bucket_size) return CF_FULL;
  if (cf_put_free(f, i1, fp) || (i2 != i1 && cf_put_free(f, i2, fp))) {
    f->count++;
    assert(cf_has_m(f, CF_MODE_ANY, i1, i2, fp));
    return CF_OK;
  }
  rc = cf_kick(f, i1, i2, fp);
  if (rc == CF_OK) f->count++;
  assert(rc != CF_OK || cf_has_m(f, CF_MODE_ANY, i1, i2, fp));
  assert(rc == CF_OK || rc == CF_FULL || rc == CF_TOO_MANY);
  return rc;
}

/* Clear one copy of fp from bucket i1, else from i2: CF_OK, CF_NOTFOUND
** or CF_CORRUPT (a copy found while the count is 0).  The header's count
** is left to the caller. */
CF_INLINE int cf_unplace(cf_filter *f, uint32_t i1, uint32_t i2, uint32_t fp) {
  uint32_t i = i1;
  assert(i2 == cf_alt_from(f->p.nbuckets, i1, cf_alt_mix(fp)));
  assert(fp >= 1 && fp <= f->fp_mask);
  if (f->x.swar) {
    uint64_t pat = fp * f->x.lo, v, z;
    unsigned sh;
    size_t at = cf_win(f, i, &sh);
    v = cf_ld64(f->table + at);
    z = cf_zero_fields(f, (v >> sh) ^ pat);
    if (z == 0 && i2 != i1) {
      at = cf_win(f, i = i2, &sh);
      v = cf_ld64(f->table + at);
      z = cf_zero_fields(f, (v >> sh) ^ pat);
    }
    if (z == 0) return CF_NOTFOUND;
    if (f->count == 0) return CF_CORRUPT;
    sh += cf_slot_at(f, CF_CTZ64(z)) * f->p.fp_bits;
    cf_st64(f->table + at, v & ~(f->fp_mask << sh));
  } else if (f->x.ssword) {
    /* the bucket without slot s, sorted again (for a sorted bucket: 0,
    ** then the others in order; a crafted bucket may be unsorted) */
    uint32_t a[4];
    uint64_t w = cf_word_raw(f, i);
    unsigned mm = cf_ss_match(f, w, fp);
    if (mm == 0 && i2 != i1)
      mm = cf_ss_match(f, w = cf_word_raw(f, i = i2), fp);
    if (mm == 0) return CF_NOTFOUND;
    if (f->count == 0) return CF_CORRUPT;
    cf_ss_unpack(f, w, a);
    a[CF_CTZ32(mm)] = 0;
    cf_sort4(a);
    cf_word_put(f, i, cf_ss_pack(f, a));
  } else {
    uint32_t a[CF_MAX_BUCKET_SIZE];
    int s = cf_find(f, i, fp);
    if (s < 0) {
      if (i2 == i1 || (s = cf_find(f, i = i2, fp)) < 0) return CF_NOTFOUND;
    }
    if (f->count == 0) return CF_CORRUPT;
    cf_read(f, i, a);
    a[s] = 0;
    cf_write(f, i, a);
  }
  f->count--;
  return CF_OK;
}

#endif /* CUCKOO_CORE_INT_H */
