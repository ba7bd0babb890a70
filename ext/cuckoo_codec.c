/*
** Copyright (c) 2026 the cuckoo authors.  MIT License: see LICENSE.
**
** cuckoo_codec.c: the bucket codecs out of line (see cuckoo_bucket.h
** for them inline): buckets of any region laid out like the bucket array,
** the word-level decoder behind cf_bucket_get(), the slot counts (of a
** filter and of a region) and the zero test they share, the
** little-endian helpers, and the one copy of the semi-sorted decode
** table.  No SQLite, no allocation.
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

/* The slot counts skip runs of CF_COUNT_RUN buckets from bucket i on (of
** n, bucket_bits bb each, in a region of size bytes) whose bytes are all
** zero (all-zero bits are empty buckets in both encodings): 1 if buckets
** i..*pe-1 are such a run, else 0 (decode them). */
static int cf_empty_run(const uint8_t *t, size_t size, uint64_t bb, uint64_t i,
                        uint64_t n, uint64_t *pe) {
  uint64_t e = n - i > CF_COUNT_RUN ? i + CF_COUNT_RUN : n;
  uint64_t lo = i * bb / 8, hi = (e * bb + 7) / 8;
  *pe = e;
  if (hi > size) hi = size;
  return cf_zero(t + lo, (size_t)(hi - lo));
}

uint64_t cf_region_slots(const cf_params *p, const uint8_t *t, size_t size,
                         uint64_t nBuckets) {
  uint32_t fps[CF_MAX_BUCKET_SIZE];
  uint64_t bb = cf_bucket_bits(p), i = 0, e, n = 0;
  unsigned s;
  while (i < nBuckets) {
    if (cf_empty_run(t, size, bb, i, nBuckets, &e)) {
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

/* The same over a whole filter, with the word-level decoder (an import
** counts a whole filter: 20% faster on a dense one). */
uint64_t cf_count_slots(const cf_filter *f) {
  uint32_t a[CF_MAX_BUCKET_SIZE];
  uint64_t i = 0, e, n = 0;
  unsigned s;
  while (i < f->p.nbuckets) {
    if (cf_empty_run(f->table, f->table_size, f->bucket_bits, i,
                     f->p.nbuckets, &e)) {
      i = e;
      continue;
    }
    for (; i < e; i++) {
      cf_read(f, (uint32_t)i, a);
      for (s = 0; s < f->p.bucket_size; s++)
        n += a[s] != 0;
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
