/*
** Copyright (c) 2026 the cuckoo authors.  MIT License: see LICENSE.
**
** cuckoo_codec.c: the bucket codecs out of line (see cuckoo_bucket.h
** for them inline): buckets of any region laid out like the bucket array,
** the word-level decoder behind cf_bucket_get(), the little-endian
** helpers, and the one copy of the semi-sorted decode table.  No SQLite,
** no allocation.
*/
#include "cuckoo_core_int.h"

#include "cuckoo_sstable.h"

uint64_t cf_get_u64(const uint8_t *p) { return cf_ld64(p); }

void cf_put_u64(uint8_t *p, uint64_t v) { cf_st64(p, v); }

void cf_region_get(const cf_params *p, const uint8_t *t, size_t size,
                   uint64_t j, uint32_t *fps) {
  if (p->flags & CF_FLAG_SEMISORT) {
    cf_ss_read(t, size, p->fp_bits, j, fps);
  } else {
    cf_plain_read(t, size, p->bucket_size, p->fp_bits, j, fps);
  }
}

void cf_region_set(const cf_params *p, uint8_t *t, size_t size, uint64_t j,
                   const uint32_t *fps) {
  if (p->flags & CF_FLAG_SEMISORT) {
    cf_ss_write(t, size, p->fp_bits, j, fps);
  } else {
    cf_plain_write(t, size, p->bucket_size, p->fp_bits, j, fps);
  }
}

void cf_bucket_get(const cf_filter *f, uint32_t i, uint32_t *fps) {
  cf_read(f, i, fps);
}

int cf_zero(const uint8_t *a, size_t n) {
  /* every byte zero: the first, and each equal to the next (memcmp() is
  ** the C library's vector code: an import or an export of a large,
  ** mostly empty level checks every byte of it) */
  return n == 0 || (a[0] == 0 && memcmp(a, a + 1, n - 1) == 0);
}

uint64_t cf_region_slots(const cf_params *p, const uint8_t *t, size_t size,
                         uint64_t nBuckets) {
  uint32_t fps[CF_MAX_BUCKET_SIZE];
  uint64_t bb = cf_bucket_bits(p), i = 0, n = 0;
  unsigned s;
  while (i < nBuckets) {
    /* Buckets i..e-1 lie in bytes lo..hi-1; all-zero bits are empty
    ** buckets in both encodings. */
    uint64_t e = nBuckets - i > CF_COUNT_RUN ? i + CF_COUNT_RUN : nBuckets;
    uint64_t lo = i * bb / 8, hi = (e * bb + 7) / 8;
    if (hi > size) hi = size;
    if (cf_zero(t + lo, (size_t)(hi - lo))) {
      i = e;
      continue;
    }
    for (; i < e; i++) {
      cf_region_get(p, t, size, i, fps);
      for (s = 0; s < p->bucket_size; s++)
        n += fps[s] != 0;
    }
  }
  return n;
}

#ifndef NDEBUG
int cf_has_slow(const cf_filter *f, uint32_t i, uint32_t fp) {
  uint32_t a[CF_MAX_BUCKET_SIZE];
  cf_region_get(&f->p, f->table, f->table_size, i, a);
  return cf_count_of(a, f->p.bucket_size, fp) > 0;
}
#endif
