/*
** Copyright (c) 2026 the cuckoo authors.  MIT License: see LICENSE.
**
** cuckoo_filter.c: the core cuckoo filter (see cuckoo_filter.h for the
** rules it keeps).  No SQLite, no allocation.
**
** BLOB layout, version 1 (all integers little-endian):
**
**   offset size field
**   0      4    magic "CKOO"
**   4      1    format version (1)
**   5      1    flags: bit 0 = semi-sorted buckets; other bits must be 0
**   6      1    bucket size b: 2, 4 or 8 (4 if semi-sorted)
**   7      1    fingerprint bits f: 4..32 (5..32 if semi-sorted)
**   8      8    number of buckets m: 1 .. 2^32-2
**   16     8    capacity the filter was sized for: 1 .. m*b
**   24     8    item count: 0 .. m*b
**   32     8    hash seed
**   40     T    bucket array, T = ceil(m*B/8) bytes, B = bits per bucket;
**               bucket i is the B-bit field at bit i*B; bit k of the array
**               is bit k%8 of byte k/8; bits past the last bucket are 0.
**
** Plain bucket (B = b*f): slot s is the f-bit field at bit s*f of it.
** Semi-sorted bucket (B = 4f-4): its four fingerprints sorted ascending
** (empty slots, 0, first) as v0 <= v1 <= v2 <= v3; bits 0..11 hold the
** code of their high nibbles (v >> (f-4); see cuckoo_sstable.h), then
** the low f-4 bits of v0, v1, v2, v3 in that order.
**
** This file: the filter as a whole.  Sections, in order: parameters;
** header (cf_init, cf_open: every field validated against the length);
** operations (one insertion algorithm, cf_place_x, with its word-level
** twins for plain and semi-sorted buckets, cf_kick_swar and cf_kick_ss);
** block views; callback stores; merge.  The other parts of the core:
** cuckoo_bucket.h (bit fields, bucket codecs and bucket words),
** cuckoo_codec.c (codecs over regions), cuckoo_hash.c (hashing),
** cuckoo_batch.c (batches, AVX-512); cuckoo_core_int.h lists them.
*/
#include "cuckoo_core_int.h"

#include <math.h>
#include <string.h>

/*
** Load factor each geometry fills to reliably before the first failed
** insert, below the worst case measured over many seeds and bucket counts
** (tests/bench: "load at failure"): b=4 never failed below 94.4%, b=8
** below 98.4%, b=2 below 85.6% with f >= 6; with b=2 very short
** fingerprints leave few alternate buckets.
*/
double cf_load_target(unsigned bucket_size, unsigned fp_bits) {
  switch (bucket_size) {
  case 2: return fp_bits == 4 ? 0.28 : fp_bits == 5 ? 0.60 : 0.84;
  case 8: return 0.97;
  default: return 0.93;
  }
}

/* ---------------------------------------------------------------------
** Parameters
*/

unsigned cf_fp_bits_for(double error_rate, unsigned bucket_size) {
  unsigned f;
  if (!(error_rate > 0.0 && error_rate < 1.0)) return 0;
  for (f = CF_MIN_FP_BITS; f <= CF_MAX_FP_BITS; f++) {
    /* smallest f with 2^f >= 2b/eps */
    if (ldexp(1.0, (int)f) * error_rate >= 2.0 * bucket_size) return f;
  }
  return 0;
}

#define CF_SMALL_MARGIN 0.6

static uint64_t cf_buckets_for(uint64_t capacity, unsigned bucket_size,
                               unsigned fp_bits) {
  /* Small tables vary more around the mean load: leave a margin that
  ** shrinks as 1/sqrt(capacity) (no failures in 300 seeds per size). */
  double load =
      cf_load_target(bucket_size, fp_bits) -
      (bucket_size == 2 ? 2.5 : 1.0) * CF_SMALL_MARGIN / sqrt((double)capacity);
  double want;
  if (load < 0.25) load = 0.25;
  want = (double)capacity / ((double)bucket_size * load);
  uint64_t m;
  if (want >= (double)CF_MAX_BUCKETS) return CF_MAX_BUCKETS;
  m = (uint64_t)ceil(want);
  if (m < 1) m = 1;
  /* Every capacity must fit into the slots, even for tiny filters. */
  /* Tiny tables: a few buckets give few distinct alternates; use at
  ** least half the slots free (a few bytes). */
  if (capacity < 128 && m < (2 * capacity + bucket_size - 1) / bucket_size + 1)
    m = (2 * capacity + bucket_size - 1) / bucket_size + 1;
  while (m * bucket_size < capacity)
    m++;
  return m;
}

/* The one validation of a geometry, shared by cf_params_check() and
** cf_open(): NULL if *p is valid, else what is wrong with it. */
static const char *cf_params_why(const cf_params *p) {
  if (p->flags & ~CF_FLAG_KNOWN)
    return "unknown flag bits in header (only bit 0, semi-sorted, is defined)";
  if (!cf_bucket_size_ok(p->bucket_size))
    return "bucket size must be 2, 4 or 8";
  if (p->fp_bits < CF_MIN_FP_BITS || p->fp_bits > CF_MAX_FP_BITS)
    return "fingerprint bits must be 4..32";
  if ((p->flags & CF_FLAG_SEMISORT) && p->bucket_size != 4)
    return "semi-sorted buckets need bucket size 4";
  if ((p->flags & CF_FLAG_SEMISORT) && p->fp_bits < CF_SS_MIN_FP_BITS)
    return "semi-sorted buckets need fingerprint bits 5..32";
  if (p->nbuckets < 1 || p->nbuckets >= CF_MAX_BUCKETS)
    return "bucket count must be 1..4294967294";
  if (p->capacity < 1 || p->capacity > p->nbuckets * p->bucket_size)
    return "capacity must be 1..buckets*bucket_size";
  return 0;
}

int cf_params_check(const cf_params *p) {
  return cf_params_why(p) ? CF_RANGE : CF_OK;
}

/*
** The narrowest fingerprint that reaches cf_load_target() in tables of
** every size.  A fingerprint of f bits has at most 2^f - 1 alternate
** bucket offsets, too few for large tables when f is small (the paper's
** section 4; its Table 2 has 68% load for b = 4, f = 4 at 2^25 buckets).
** Measured at 10^6 buckets: b = 4, f = 4 failed at 85% load (f = 5: 95%
** up to 2^25 buckets); b = 2, f = 6 at 72% (f = 7: 85%).  b = 8 never
** gets fewer than 5 bits from the error rate.
*/
unsigned cf_min_fp_bits(unsigned bucket_size) {
  return bucket_size == 2 ? 7 : 5;
}

int cf_params_for(cf_params *p, uint64_t capacity, double error_rate,
                  unsigned bucket_size, uint64_t seed) {
  memset(p, 0, sizeof(*p));
  if (!cf_bucket_size_ok(bucket_size)) return CF_RANGE;
  p->bucket_size = bucket_size;
  p->fp_bits = cf_fp_bits_for(error_rate, bucket_size);
  if (p->fp_bits == 0) return CF_RANGE;
  if (p->fp_bits < cf_min_fp_bits(bucket_size))
    p->fp_bits = cf_min_fp_bits(bucket_size);
  if (capacity < 1) return CF_RANGE;
  p->nbuckets = cf_buckets_for(capacity, bucket_size, p->fp_bits);
  p->capacity = capacity;
  p->seed = seed;
  return cf_params_check(p);
}

unsigned cf_bucket_bits(const cf_params *p) {
  if (p->flags & CF_FLAG_SEMISORT) return 4 * p->fp_bits - 4;
  return p->bucket_size * p->fp_bits;
}

uint64_t cf_table_size(const cf_params *p) {
  /* nbuckets < 2^32 and B <= 256: the product fits in 64 bits. */
  return (p->nbuckets * cf_bucket_bits(p) + 7) / 8;
}

uint64_t cf_blob_size(const cf_params *p) {
  return CF_HEADER_SIZE + cf_table_size(p);
}

/* ---------------------------------------------------------------------
** Header
*/

/*
** What cf_setup() derives, checked (asserts only): the geometry is valid
** (rule 5: callers validated it), the bucket array has room for every
** bucket and less than one byte more, the word-level access modes exclude
** each other and hold only for the geometries they serve (rule 7), and
** semi-sorted means b = 4 with f >= 5 (rule 6).
*/
static void cf_setup_check(const cf_filter *f) {
  assert(cf_params_check(&f->p) == CF_OK);
  assert(f->bucket_bits == cf_bucket_bits(&f->p));
  assert(f->bucket_bits >= 8 && f->bucket_bits <= CF_MAX_BUCKET_SIZE * 32);
  assert((uint64_t)f->table_size * 8 >= f->p.nbuckets * f->bucket_bits &&
         (uint64_t)f->table_size * 8 < f->p.nbuckets * f->bucket_bits + 8);
  assert(f->blob_size == CF_HEADER_SIZE + f->table_size);
  assert(f->fp_mask == (((uint64_t)2 << (f->p.fp_bits - 1)) - 1));
  assert(!f->semisort ||
         (f->p.bucket_size == 4 && f->p.fp_bits >= CF_SS_MIN_FP_BITS));
  assert(f->x.swar + f->x.ssword + f->x.wide <= 1);
  assert(!f->x.swar || (!f->semisort && f->bucket_bits <= 57));
  assert(!f->x.ssword || (f->semisort && f->bucket_bits <= 57));
  assert(!f->x.wide || (!f->semisort && f->bucket_bits > 57 &&
                        f->bucket_bits <= 121 && f->table_size >= 16));
  assert(!(f->x.swar || f->x.ssword) || f->table_size >= 8);
  assert(!f->x.top_bytes ||
         (!f->semisort && f->x.top_bytes * 8 == f->bucket_bits &&
          f->x.top_at == f->table + f->x.top_bytes - 8 &&
          f->x.top_span == f->p.nbuckets * f->x.top_bytes));
  assert(!f->x.alt_small || f->p.fp_bits <= CF_ALT_TAB_BITS);
  (void)f;
}

/* The named offsets of the header (cuckoo_filter.h) tile its 40 bytes in
** order: a compile-time check (the array size is -1 if they do not). */
typedef char
    cf_header_tiles[(CF_HDR_MAGIC == 0 && CF_HDR_VERSION == CF_HDR_MAGIC + 4 &&
                     CF_HDR_FLAGS == CF_HDR_VERSION + 1 &&
                     CF_HDR_BUCKET_SIZE == CF_HDR_FLAGS + 1 &&
                     CF_HDR_FP_BITS == CF_HDR_BUCKET_SIZE + 1 &&
                     CF_HDR_NBUCKETS == CF_HDR_FP_BITS + 1 &&
                     CF_HDR_CAPACITY == CF_HDR_NBUCKETS + 8 &&
                     CF_HDR_COUNT == CF_HDR_CAPACITY + 8 &&
                     CF_HDR_SEED == CF_HDR_COUNT + 8 &&
                     CF_HEADER_SIZE == CF_HDR_SEED + 8)
                        ? 1
                        : -1];

static void cf_setup(cf_filter *f, uint8_t *buf) {
  unsigned fb = f->p.fp_bits;
  f->blob = buf;
  f->table = buf + CF_HEADER_SIZE;
  f->table_size = (size_t)cf_table_size(&f->p);
  f->blob_size = CF_HEADER_SIZE + f->table_size;
  f->fp_mask = (fb == 32) ? 0xffffffffu : (((uint64_t)1 << fb) - 1);
  f->bucket_bits = cf_bucket_bits(&f->p);
  f->semisort = (f->p.flags & CF_FLAG_SEMISORT) != 0;
  f->x.swar = 0;
  f->x.ssword = 0;
  f->x.wide = 0;
  f->x.top_bytes = 0;
  f->x.top_lo = f->x.top_hi = 0;
  f->x.top_at = 0;
  f->x.top_span = 0;
  f->x.alt_small = cf_alt_tab_usable(fb);
  f->x.lo = f->x.hi = f->x.ss_lo = f->x.ss_hi = f->x.ss_m7 = f->x.ss_gmul = 0;
  f->x.wlo[0] = f->x.wlo[1] = f->x.whi[0] = f->x.whi[1] = 0;
  f->x.bucket_mask = cf_width_mask(f->bucket_bits);
  f->x.win_last = f->table_size >= 8 ? f->table_size - 8 : 0;
  f->x.slot_recip = (65536u + fb - 1) / fb;
  f->x.key_int = cf_int_key(f->p.seed);
#ifndef CF_NO_SWAR
  /* One 64-bit window per bucket (see "Bucket words"). */
  if (f->bucket_bits <= 57 && f->table_size >= 8) {
    unsigned s;
    if (!f->semisort) {
      f->x.swar = 1;
      for (s = 0; s < f->p.bucket_size; s++)
        f->x.lo |= (uint64_t)1 << (s * fb);
      f->x.hi = f->x.lo << (fb - 1);
    } else {
      f->x.ssword = 1;
      for (s = 0; s < 4; s++)
        f->x.ss_lo |= (uint64_t)1 << (s * (fb - 4));
      f->x.ss_hi = f->x.ss_lo << (fb - 5);
      f->x.ss_m7 = f->x.ss_hi - f->x.ss_lo;
      if (fb - 4 >= 5) { /* see cf_ss_match() */
        unsigned k = fb - 4, t;
        for (t = 0; t < 4; t++)
          f->x.ss_gmul |= (uint64_t)1 << (3 * (k - 1) - t * (k - 1));
      }
    }
  }
  /* Whole-byte plain buckets for the inline lookup (cuckoo_lookup.h). */
  if (!f->semisort && f->bucket_bits % 8 == 0 && f->bucket_bits <= 64) {
    unsigned s, up = 64 - f->bucket_bits;
    f->x.top_bytes = f->bucket_bits / 8;
    for (s = 0; s < f->p.bucket_size; s++)
      f->x.top_lo |= (uint64_t)1 << (s * fb + up);
    f->x.top_hi = f->x.top_lo << (fb - 1);
    /* the window of bucket 0 starts in the header (see cuckoo_lookup.h) */
    f->x.top_at = f->table + f->x.top_bytes - 8;
    f->x.top_span = f->p.nbuckets * f->x.top_bytes;
  }
#ifdef __SIZEOF_INT128__
  /* Wider plain buckets: one 128-bit window (see "Wide bucket words"). */
  if (!f->semisort && f->bucket_bits > 57 && f->bucket_bits <= 121 &&
      f->table_size >= 16) {
    unsigned s;
    f->x.wide = 1;
    for (s = 0; s < f->p.bucket_size; s++) {
      unsigned lo = s * fb, hi = s * fb + fb - 1;
      f->x.wlo[lo / 64] |= (uint64_t)1 << (lo % 64);
      f->x.whi[hi / 64] |= (uint64_t)1 << (hi % 64);
    }
  }
#endif
#endif
  cf_setup_check(f);
}

int cf_init(cf_filter *f, const cf_params *p, void *buf) {
  uint8_t *b = (uint8_t *)buf;
  if (cf_params_check(p) != CF_OK) return CF_RANGE;
  memset(f, 0, sizeof(*f));
  f->p = *p;
  cf_setup(f, b);
  memcpy(b + CF_HDR_MAGIC, CF_MAGIC, 4);
  b[CF_HDR_VERSION] = CF_VERSION;
  b[CF_HDR_FLAGS] = (uint8_t)p->flags;
  b[CF_HDR_BUCKET_SIZE] = (uint8_t)p->bucket_size;
  b[CF_HDR_FP_BITS] = (uint8_t)p->fp_bits;
  cf_st64(b + CF_HDR_NBUCKETS, p->nbuckets);
  cf_st64(b + CF_HDR_CAPACITY, p->capacity);
  cf_st64(b + CF_HDR_COUNT, 0);
  cf_st64(b + CF_HDR_SEED, p->seed);
  /* All-zero buckets are empty in both encodings (code 0 = four zero
  ** nibbles). */
  memset(f->table, 0, f->table_size);
  return CF_OK;
}

#define CF_FAIL(msg)                                                           \
  do {                                                                         \
    if (pzWhy) *pzWhy = msg;                                                   \
    return CF_CORRUPT;                                                         \
  } while (0)

int cf_open(cf_filter *f, const void *buf, size_t n, const char **pzWhy) {
  const uint8_t *b = (const uint8_t *)buf;
  cf_params p;
  const char *zBad;
  uint64_t table_bits, used_bits;
  if (pzWhy) *pzWhy = 0;
  memset(f, 0, sizeof(*f));
  if (b == 0 || n < CF_HEADER_SIZE)
    CF_FAIL("too short to be a cuckoo filter (needs a 40-byte header)");
  if (memcmp(b + CF_HDR_MAGIC, CF_MAGIC, 4) != 0)
    CF_FAIL("not a cuckoo filter (bad magic; expected \"CKOO\")");
  if (b[CF_HDR_VERSION] != CF_VERSION)
    CF_FAIL("unsupported format version (this build reads version 1)");
  p.flags = b[CF_HDR_FLAGS];
  p.bucket_size = b[CF_HDR_BUCKET_SIZE];
  p.fp_bits = b[CF_HDR_FP_BITS];
  p.nbuckets = cf_ld64(b + CF_HDR_NBUCKETS);
  p.capacity = cf_ld64(b + CF_HDR_CAPACITY);
  p.seed = cf_ld64(b + CF_HDR_SEED);
  zBad = cf_params_why(&p);
  if (zBad) CF_FAIL(zBad);
  if ((uint64_t)(n - CF_HEADER_SIZE) != cf_table_size(&p))
    CF_FAIL("length does not match the header's geometry");
  f->p = p;
  f->count = cf_ld64(b + CF_HDR_COUNT);
  if (f->count > p.nbuckets * p.bucket_size)
    CF_FAIL("item count exceeds the number of slots");
  cf_setup(f, (uint8_t *)b);
  /* Padding bits after the last bucket must be zero. */
  used_bits = p.nbuckets * f->bucket_bits;
  table_bits = (uint64_t)f->table_size * 8;
  if (table_bits > used_bits) {
    uint8_t last = f->table[f->table_size - 1];
    if (last >> (8 - (unsigned)(table_bits - used_bits)))
      CF_FAIL("nonzero padding after the last bucket");
  }
  /* rule 5: every header field checked against the length */
  assert(f->blob == b && f->blob_size == n);
  assert(f->count <= f->p.nbuckets * f->p.bucket_size);
  return CF_OK;
}

void cf_rebase(cf_filter *f, void *buf) { cf_setup(f, (uint8_t *)buf); }

/* ---------------------------------------------------------------------
** Operations (the steps they share with the batches are in
** cuckoo_core_int.h)
*/

int cf_contains(const cf_filter *f, cf_key k) {
  return cf_has_m(f, CF_MODE_ANY, k.i1, cf_alt(f->p.nbuckets, k.i1, k.fp),
                  k.fp);
}

unsigned cf_copies(const cf_filter *f, cf_key k) {
  uint32_t i2 = cf_alt(f->p.nbuckets, k.i1, k.fp);
  unsigned n = cf_count_in(f, k.i1, k.fp);
  if (i2 != k.i1) n += cf_count_in(f, i2, k.fp);
  return n;
}

/* One displacement of a plain bucket word (cf_kick_swar()), remembered
** so that a failed insert can be undone: in bucket `bucket`, `put`
** replaced `old` at `slot`. */
typedef struct cf_undo {
  uint32_t bucket;
  uint32_t slot;
  uint32_t old;
  uint32_t put;
} cf_undo;

typedef int (*cf_read_fn)(void *ctx, uint32_t bucket, uint32_t *fps);
typedef int (*cf_write_fn)(void *ctx, uint32_t bucket, const uint32_t *fps);

/*
** The insertion walk's two choices, shared by cf_place_x() and its
** word-level twins cf_kick_swar() and cf_kick_ss() (so all three make the
** same moves): the bucket the walk starts from, a hash of (fp, i1); and
** the victim slot at step n, a hash of (fingerprint in hand, bucket,
** step), b a power of two.  Frozen: they decide the bytes of a filter.
*/
CF_INLINE uint32_t cf_walk_start(uint32_t i1, uint32_t i2, uint32_t fp) {
  return (cf_mix64(((uint64_t)fp << 32) ^ i1) & 1) ? i2 : i1;
}

CF_INLINE unsigned cf_walk_victim(uint32_t hand, uint32_t cur, int n,
                                  unsigned b) {
  return (
      unsigned)(cf_mix64(((uint64_t)hand << 32) ^ cur ^ ((uint64_t)n << 56)) &
                (b - 1));
}

/*
** Place fp, whose candidate buckets are i1 and i2 = its alternate: the
** one insertion algorithm, instantiated inline for the in-memory table
** and for callback stores.  The paper's Algorithm 1 (a random walk of at
** most CF_MAX_KICKS displacements) with a one-step look-ahead: before
** each displacement from the full bucket `cur`, the alternate buckets of
** all b fingerprints in it are examined, and the first (in slot order)
** with a free slot takes its fingerprint, whose slot in `cur` then takes
** the one in hand.  Only when none has room does the walk displace a
** victim.  The b look-ahead reads are independent, so they cost about one
** memory latency together (the word-level twin prefetches them), while a
** walk step costs one latency each and reaches a free slot less often:
** on large tables this shortens the chains of dependent cache misses
** that dominate building a full filter (tests/bench/speed_bench.c).
**
** Deterministic: the first bucket to walk from is a hash of (fp, i1), the
** victim slot at each step a hash of (fingerprint in hand, bucket, step).
** On CF_FULL/CF_TOO_MANY every displacement is undone, last first, so the
** buckets are exactly what they were.  An accessor error returns CF_IOERR
** after undoing what it can.
*/
CF_INLINE int cf_place_x(cf_read_fn rd, cf_write_fn wr, void *ctx, uint64_t m,
                         unsigned b, uint32_t i1, uint32_t i2, uint32_t fp) {
  /* each displaced bucket's contents before the displacement */
  uint32_t aBefore[CF_MAX_KICKS][CF_MAX_BUCKET_SIZE], aBucket[CF_MAX_KICKS];
  uint32_t a[CF_MAX_BUCKET_SIZE], c[CF_MAX_BUCKET_SIZE], old;
  uint32_t cur, hand;
  unsigned same, t;
  int s, n, rc;

  if (rd(ctx, i1, a)) return CF_IOERR;
  if ((s = cf_slot_of(a, b, 0)) >= 0) {
    a[s] = fp;
    return wr(ctx, i1, a) ? CF_IOERR : CF_OK;
  }
  same = cf_count_of(a, b, fp);
  if (i2 != i1) {
    if (rd(ctx, i2, a)) return CF_IOERR;
    if ((s = cf_slot_of(a, b, 0)) >= 0) {
      a[s] = fp;
      return wr(ctx, i2, a) ? CF_IOERR : CF_OK;
    }
    same += cf_count_of(a, b, fp);
  }
  /* Both buckets full of this very fingerprint: kicking cannot help. */
  if (same == (i2 != i1 ? 2 * b : b)) return CF_TOO_MANY;

  hand = fp;
  cur = cf_walk_start(i1, i2, fp);
  rc = CF_FULL;
  for (n = 0; n < CF_MAX_KICKS; n++) {
    unsigned slot = cf_walk_victim(hand, cur, n, b);
    if (rd(ctx, cur, a)) {
      rc = CF_IOERR;
      break;
    }
    /* look-ahead: cur is full; can one of its fingerprints move over? */
    for (t = 0; t < b; t++) {
      uint32_t j = cf_alt(m, cur, a[t]);
      if (rd(ctx, j, c)) break;
      if ((s = cf_slot_of(c, b, 0)) >= 0) {
        c[s] = a[t];
        if (wr(ctx, j, c)) break;
        a[t] = hand;
        if (wr(ctx, cur, a) == 0) return CF_OK;
        c[s] = 0; /* take the copy back (a failed write changed nothing) */
        (void)wr(ctx, j, c);
        break;
      }
    }
    if (t < b) {
      rc = CF_IOERR;
      break;
    }
    aBucket[n] = cur;
    memcpy(aBefore[n], a, sizeof(a));
    old = a[slot];
    a[slot] = hand;
    hand = old;
    if (wr(ctx, cur, a)) {
      rc = CF_IOERR; /* a failed write changed nothing (store contract) */
      break;
    }
    /* the next bucket is full: the look-ahead found no room in it */
    cur = cf_alt(m, cur, hand);
  }
  /* No room (or an accessor failed): put every displaced fingerprint
  ** back, last displacement first, writing each bucket as it was before
  ** its displacement (so undoing reads nothing; a semi-sorted bucket
  ** re-encodes to the same bytes).  Only a failing write can leave a
  ** change behind. */
  while (n-- > 0) {
    if (wr(ctx, aBucket[n], aBefore[n])) rc = CF_IOERR;
  }
  return rc;
}

CF_INLINE int cf_mem_read(void *ctx, uint32_t bucket, uint32_t *fps) {
  cf_read((const cf_filter *)ctx, bucket, fps);
  return 0;
}

CF_INLINE int cf_mem_write(void *ctx, uint32_t bucket, const uint32_t *fps) {
  cf_write((cf_filter *)ctx, bucket, fps);
  return 0;
}

/*
** cf_place_x() for plain bucket words, without decoding: the same
** choices (first bucket, look-ahead order, victim slots, lowest free
** slot), so the same bytes, at a fraction of the instructions per step,
** with the b look-ahead buckets prefetched together.  Both buckets are
** full when it is called.  Undoing restores the displaced fingerprints
** in reverse order, so each field again holds what the displacement put
** there.
*/
static int cf_kick_swar(cf_filter *f, uint32_t i1, uint32_t i2, uint32_t fp) {
  cf_undo path[CF_MAX_KICKS];
  const uint64_t m = f->p.nbuckets, fpm = f->fp_mask, pat = fp * f->x.lo;
  const unsigned fb = f->p.fp_bits, b = f->p.bucket_size;
  uint32_t cur, hand = fp, aAlt[CF_MAX_BUCKET_SIZE];
  unsigned sh, t;
  size_t at;
  uint64_t v;
  int n;

  /* Both buckets full of this very fingerprint: kicking cannot help. */
  if (cf_word(f, i1) == pat && (i2 == i1 || cf_word(f, i2) == pat)) {
    return CF_TOO_MANY;
  }
  cur = cf_walk_start(i1, i2, fp);
  for (n = 0; n < CF_MAX_KICKS; n++) {
    unsigned slot = cf_walk_victim(hand, cur, n, b);
    unsigned pos;
    at = cf_win(f, cur, &sh);
    v = cf_ld64(f->table + at);
    for (t = 0; t < b; t++) {
      aAlt[t] = cf_alt(m, cur, (uint32_t)((v >> (sh + t * fb)) & fpm));
      cf_prefetch(f, aAlt[t], 1);
    }
    for (t = 0; t < b; t++) {
      unsigned sh2;
      size_t at2 = cf_win(f, aAlt[t], &sh2);
      uint64_t v2 = cf_ld64(f->table + at2);
      uint64_t z = cf_zero_fields(f, v2 >> sh2);
      if (z) {
        uint64_t moved = (v >> (sh + t * fb)) & fpm;
        pos = sh2 + cf_slot_at(f, CF_CTZ64(z)) * fb;
        cf_st64(f->table + at2, v2 | (moved << pos));
        /* the windows may overlap: reload before writing cur */
        v = cf_ld64(f->table + at);
        pos = sh + t * fb;
        cf_st64(f->table + at, v ^ ((moved ^ hand) << pos));
        return CF_OK;
      }
    }
    pos = sh + slot * fb;
    path[n].bucket = cur;
    path[n].slot = slot;
    path[n].old = (uint32_t)((v >> pos) & fpm);
    path[n].put = hand;
    cf_st64(f->table + at, v ^ ((uint64_t)(path[n].old ^ hand) << pos));
    hand = path[n].old;
    cur = aAlt[slot];
  }
  while (n-- > 0) {
    unsigned pos;
    at = cf_win(f, path[n].bucket, &sh);
    v = cf_ld64(f->table + at);
    pos = sh + path[n].slot * fb;
    cf_st64(f->table + at, v ^ ((uint64_t)(path[n].old ^ path[n].put) << pos));
  }
  return CF_FULL;
}

/*
** cf_place_x() for semi-sorted bucket words: the same choices (slots in
** sorted order), so the same bytes, with the look-ahead buckets
** prefetched together and tested for a free slot without decoding.  Both
** buckets are full when it is called.  Undoing writes back each
** displaced bucket's word as it was.
*/
static int cf_kick_ss(cf_filter *f, uint32_t i1, uint32_t i2, uint32_t fp) {
  uint64_t aBefore[CF_MAX_KICKS];
  uint32_t aBucket[CF_MAX_KICKS], aAlt[4], a[4], c[4], cur, hand = fp, old;
  const uint64_t m = f->p.nbuckets;
  unsigned t;
  int n;

  /* Both buckets full of this very fingerprint: kicking cannot help. */
  if (cf_ss_match(f, cf_word_raw(f, i1), fp) == 15u &&
      (i2 == i1 || cf_ss_match(f, cf_word_raw(f, i2), fp) == 15u)) {
    return CF_TOO_MANY;
  }
  cur = cf_walk_start(i1, i2, fp);
  for (n = 0; n < CF_MAX_KICKS; n++) {
    unsigned slot = cf_walk_victim(hand, cur, n, 4);
    uint64_t w = cf_word(f, cur);
    cf_ss_unpack(f, w, a);
    for (t = 0; t < 4; t++) {
      aAlt[t] = cf_alt(m, cur, a[t]);
      cf_prefetch(f, aAlt[t], 1);
    }
    for (t = 0; t < 4; t++) {
      uint64_t w2 = cf_word_raw(f, aAlt[t]);
      unsigned mFree = cf_ss_free(f, w2);
      if (mFree) {
        cf_ss_unpack(f, w2, c);
        cf_ss_add(c, mFree, a[t]);
        cf_word_put(f, aAlt[t], cf_ss_pack(f, c));
        a[t] = hand;
        cf_sort4(a);
        cf_word_put(f, cur, cf_ss_pack(f, a));
        return CF_OK;
      }
    }
    aBucket[n] = cur;
    aBefore[n] = w;
    old = a[slot];
    a[slot] = hand;
    hand = old;
    cf_sort4(a);
    cf_word_put(f, cur, cf_ss_pack(f, a));
    cur = aAlt[slot];
  }
  while (n-- > 0)
    cf_word_put(f, aBucket[n], aBefore[n]);
  return CF_FULL;
}

/* The slow path of an insert (cuckoo_core_int.h), kept out of line. */
CUCKOO_NOINLINE int cf_kick(cf_filter *f, uint32_t i1, uint32_t i2,
                            uint32_t fp) {
  if (f->x.swar) return cf_kick_swar(f, i1, i2, fp);
  if (f->x.ssword) return cf_kick_ss(f, i1, i2, fp);
  return cf_place_x(cf_mem_read, cf_mem_write, f, f->p.nbuckets,
                    f->p.bucket_size, i1, i2, fp);
}

int cf_insert(cf_filter *f, cf_key k) {
  uint64_t n0 = f->count;
  int rc = cf_place(f, k.i1, cf_alt(f->p.nbuckets, k.i1, k.fp), k.fp);
  if (rc == CF_OK) cf_write_count(f);
  /* rule 4 (its count part): a failed insert leaves the count as it was */
  assert(f->count == n0 + (rc == CF_OK));
  (void)n0;
  return rc;
}

int cf_remove(cf_filter *f, cf_key k) {
  uint64_t n0 = f->count;
  int rc = cf_unplace(f, k.i1, cf_alt(f->p.nbuckets, k.i1, k.fp), k.fp);
  if (rc == CF_OK) cf_write_count(f);
  assert(f->count == n0 - (rc == CF_OK));
  assert(rc == CF_OK || rc == CF_NOTFOUND || rc == CF_CORRUPT);
  (void)n0;
  return rc;
}

/* Block views (see cuckoo_filter.h): the in-memory bucket operations on
** a region, whose table pointer the caller sets. */
int cf_view_init(cf_filter *f, const cf_params *p, uint32_t nbuckets) {
  cf_params q = *p;
  uint8_t dummy[CF_HEADER_SIZE];
  q.nbuckets = nbuckets;
  q.capacity = (uint64_t)nbuckets * q.bucket_size;
  if (cf_params_check(&q) != CF_OK) return CF_RANGE;
  memset(f, 0, sizeof(*f));
  f->p = q;
  cf_setup(f, dummy);
  f->x.top_bytes = 0; /* a region has no header before it */
  f->x.top_at = 0;
  f->x.top_span = 0;
  f->blob = 0;
  f->table = 0;
  return CF_OK;
}

int cf_view_has(const cf_filter *f, uint32_t j, uint32_t fp) {
  return cf_find(f, j, fp) >= 0;
}

int cf_view_put(cf_filter *f, uint32_t j, uint32_t fp) {
  return cf_put_free(f, j, fp);
}

int cf_view_free(const cf_filter *f, uint32_t j) {
  return cf_find(f, j, 0) >= 0;
}

int cf_view_del(cf_filter *f, uint32_t j, uint32_t fp) {
  uint32_t a[CF_MAX_BUCKET_SIZE];
  if (f->x.swar) {
    unsigned sh;
    size_t at = cf_win(f, j, &sh);
    uint64_t v = cf_ld64(f->table + at);
    uint64_t z = cf_zero_fields(f, (v >> sh) ^ (fp * f->x.lo));
    if (z == 0) return 0;
    sh += cf_slot_at(f, CF_CTZ64(z)) * f->p.fp_bits;
    cf_st64(f->table + at, v & ~(f->fp_mask << sh));
    return 1;
  }
  if (f->x.ssword) {
    uint64_t w = cf_word_raw(f, j);
    unsigned mm = cf_ss_match(f, w, fp);
    if (mm == 0) return 0;
    cf_ss_unpack(f, w, a);
    a[CF_CTZ32(mm)] = 0;
    cf_sort4(a);
    cf_word_put(f, j, cf_ss_pack(f, a));
    return 1;
  }
  {
    int s = cf_find(f, j, fp);
    if (s < 0) return 0;
    cf_read(f, j, a);
    a[s] = 0;
    cf_write(f, j, a);
    return 1;
  }
}

/* Callback stores (e.g. the virtual table's block cache). */
int cf_store_insert(const cf_params *p, const cf_store *st, cf_key k) {
  return cf_place_x(st->read, st->write, st->ctx, p->nbuckets, p->bucket_size,
                    k.i1, cf_alt(p->nbuckets, k.i1, k.fp), k.fp);
}

/*
** Multiset union: for every (bucket pair, fingerprint) of src, dst ends
** up with max(copies in dst, copies in src) copies.  A pair is handled
** once, at the first slot where the scan meets it: the lower-numbered of
** its two buckets that holds a copy.
*/
int cf_merge(cf_filter *dst, const cf_filter *src) {
  uint32_t a[CF_MAX_BUCKET_SIZE];
  uint64_t i;
  unsigned s, b = src->p.bucket_size;
  int rc = CF_OK;
  if (dst->p.nbuckets != src->p.nbuckets ||
      dst->p.bucket_size != src->p.bucket_size ||
      dst->p.fp_bits != src->p.fp_bits || dst->p.flags != src->p.flags ||
      dst->p.seed != src->p.seed) {
    return CF_MISMATCH;
  }
  for (i = 0; i < src->p.nbuckets; i++) {
    cf_read(src, (uint32_t)i, a);
    for (s = 0; s < b; s++) {
      uint32_t fp = a[s], j;
      unsigned have, want;
      cf_key k;
      if (fp == 0 || cf_slot_of(a, s, fp) >= 0) continue; /* empty/seen */
      j = cf_alt(src->p.nbuckets, (uint32_t)i, fp);
      if (j < i && cf_count_in(src, j, fp) > 0) continue; /* seen at j */
      k.i1 = (uint32_t)i;
      k.fp = fp;
      want = cf_copies(src, k);
      for (have = cf_copies(dst, k); have < want; have++) {
        rc = cf_place(dst, (uint32_t)i, j, fp);
        if (rc != CF_OK) break;
      }
      if (rc != CF_OK) break;
    }
    if (rc != CF_OK) break;
  }
  cf_write_count(dst);
  return rc;
}

double cf_expected_fpr(const cf_filter *f) {
  /* Each of the 2b slots probed matches a random fingerprint with
  ** probability 1/(2^f - 1) when occupied. */
  double slots = (double)f->p.nbuckets * f->p.bucket_size;
  double load = slots > 0 ? (double)f->count / slots : 0.0;
  double per = 1.0 / (double)f->fp_mask;
  return 1.0 - pow(1.0 - per * load, 2.0 * f->p.bucket_size);
}
