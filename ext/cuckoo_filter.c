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
** Sections, in order: parameters; header; hashing (XXH3 in closed form
** for 8-byte keys); bit fields and the bucket codecs over any region;
** bucket words (one 64-bit load per bucket); decoded buckets and the
** operations (one insertion algorithm, cf_place_x, plus its word-level
** twin for plain buckets, cf_kick_swar); callback stores; merge; batches
** (a grouped key pipeline with prefetch); AVX-512 batches.
*/
#include "cuckoo_filter.h"

#include <math.h>
#include <string.h>

#define XXH_INLINE_ALL
#include <xxhash.h>

#include "cuckoo_sstable.h"

/* Small hot helpers are forced inline (CF_INLINE, cuckoo_filter.h) so
** batches compile to one loop. */

static uint64_t cf_int_key(uint64_t seed);

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

CF_INLINE void cf_st64(uint8_t *p, uint64_t v) {
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
  v = __builtin_bswap64(v);
#endif
  memcpy(p, &v, 8);
}

static inline uint64_t cf_width_mask(unsigned w) {
  return w >= 64 ? ~(uint64_t)0 : (((uint64_t)1 << w) - 1);
}

uint64_t cf_get_u64(const uint8_t *p) { return cf_ld64(p); }

void cf_put_u64(uint8_t *p, uint64_t v) { cf_st64(p, v); }

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

uint64_t cf_buckets_for(uint64_t capacity, unsigned bucket_size,
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
  f->x.lo = f->x.hi = f->x.ss_lo = f->x.ss_hi = f->x.ss_m7 = f->x.ss_gmul = 0;
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
#ifdef __SIZEOF_INT128__
  /* Wider plain buckets: one 128-bit window (see "Wide bucket words"). */
  if (!f->semisort && f->bucket_bits > 57 && f->bucket_bits <= 121 &&
      f->table_size >= 16) {
    f->x.wide = 1;
  }
#endif
#endif
}

static void cf_write_count(cf_filter *f) { cf_put_u64(f->blob + 24, f->count); }

int cf_init(cf_filter *f, const cf_params *p, void *buf) {
  uint8_t *b = (uint8_t *)buf;
  if (cf_params_check(p) != CF_OK) return CF_RANGE;
  memset(f, 0, sizeof(*f));
  f->p = *p;
  cf_setup(f, b);
  memcpy(b, CF_MAGIC, 4);
  b[4] = CF_VERSION;
  b[5] = (uint8_t)p->flags;
  b[6] = (uint8_t)p->bucket_size;
  b[7] = (uint8_t)p->fp_bits;
  cf_put_u64(b + 8, p->nbuckets);
  cf_put_u64(b + 16, p->capacity);
  cf_put_u64(b + 24, 0);
  cf_put_u64(b + 32, p->seed);
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
  if (memcmp(b, CF_MAGIC, 4) != 0)
    CF_FAIL("not a cuckoo filter (bad magic; expected \"CKOO\")");
  if (b[4] != CF_VERSION)
    CF_FAIL("unsupported format version (this build reads version 1)");
  p.flags = b[5];
  p.bucket_size = b[6];
  p.fp_bits = b[7];
  p.nbuckets = cf_get_u64(b + 8);
  p.capacity = cf_get_u64(b + 16);
  p.seed = cf_get_u64(b + 32);
  zBad = cf_params_why(&p);
  if (zBad) CF_FAIL(zBad);
  if ((uint64_t)(n - CF_HEADER_SIZE) != cf_table_size(&p))
    CF_FAIL("length does not match the header's geometry");
  f->p = p;
  f->count = cf_get_u64(b + 24);
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
  return CF_OK;
}

void cf_rebase(cf_filter *f, void *buf) { cf_setup(f, (uint8_t *)buf); }

/* ---------------------------------------------------------------------
** Hashing
*/

#define CF_KIND_INT 0x496e7465676572ULL /* "Integer" */
#define CF_KIND_REAL 0x5265616cULL      /* "Real" */
#define CF_KIND_TEXT 0x54657874ULL      /* "Text" */
#define CF_KIND_BLOB 0x426c6f62ULL      /* "Blob" */

/*
** XXH3-64 of an 8-byte little-endian input, in closed form.  For inputs
** of 4..8 bytes XXH3 reads the input as one 64-bit word (for 8 bytes:
** the value rotated by 32 bits), XORs it with a key that depends only on
** the seed and the secret, and finalizes with its rrmxmx mixer.  The key
** is computed once per seed (and once per batch), so an integer costs
** two multiplications and no byte shuffling.  tests/core_test.c checks
** this against XXH3_64bits_withSeed() over many seeds and values: the
** hash of an item is part of the BLOB format and must never change.
** cf_xxh3_8() itself is in cuckoo_filter.h (the inline lookups use it).
*/
CF_INLINE uint64_t cf_xxh3_key8(uint64_t seed) {
  seed ^= (uint64_t)XXH_swap32((uint32_t)seed) << 32;
  return (XXH_readLE64(XXH3_kSecret + 8) ^ XXH_readLE64(XXH3_kSecret + 16)) -
         seed;
}

/* The key of INTEGER items under seed (kept in cf_filter for the inline
** cf_contains_int()). */
static uint64_t cf_int_key(uint64_t seed) {
  return cf_xxh3_key8(seed ^ CF_KIND_INT);
}

uint64_t cf_hash_int(uint64_t seed, int64_t v) {
  return cf_xxh3_8((uint64_t)v, cf_int_key(seed));
}

uint64_t cf_hash_real(uint64_t seed, double v) {
  uint64_t bits;
  /* An integral value in int64 range equals that INTEGER in SQL. */
  if (v >= -9223372036854775808.0 && v < 9223372036854775808.0 &&
      v == floor(v)) {
    return cf_hash_int(seed, (int64_t)v);
  }
  memcpy(&bits, &v, 8);
  return cf_xxh3_8(bits, cf_xxh3_key8(seed ^ CF_KIND_REAL));
}

uint64_t cf_hash_text(uint64_t seed, const void *z, size_t n) {
  return XXH3_64bits_withSeed(z, n, seed ^ CF_KIND_TEXT);
}

uint64_t cf_hash_blob(uint64_t seed, const void *z, size_t n) {
  return XXH3_64bits_withSeed(z, n, seed ^ CF_KIND_BLOB);
}

cf_key cf_key_from(const cf_params *p, uint64_t hash) {
  uint64_t nfp =
      (p->fp_bits == 32) ? 0xffffffffu : (((uint64_t)1 << p->fp_bits) - 1);
  return cf_split(p->nbuckets, nfp, hash);
}

cf_key cf_key_of(const cf_filter *f, uint64_t hash) {
  return cf_split(f->p.nbuckets, f->fp_mask, hash);
}

uint32_t cf_alt_bucket(uint64_t nbuckets, uint32_t i, uint32_t fp) {
  return cf_alt(nbuckets, i, fp);
}

/* ---------------------------------------------------------------------
** Bit fields.  A field of w <= 32 bits at bit offset `bit` spans at most
** 5 bytes (shift <= 7), so a 64-bit little-endian window read at its
** first byte covers it; near the end of the region the window is
** assembled byte by byte.
*/

static inline uint64_t cf_load_window(const uint8_t *t, size_t size,
                                      size_t byte) {
  uint64_t v = 0;
  if (byte + 8 <= size) {
    v = cf_ld64(t + byte);
  } else {
    size_t i;
    for (i = size; i > byte; i--)
      v = (v << 8) | t[i - 1];
  }
  return v;
}

static inline void cf_store_window(uint8_t *t, size_t size, size_t byte,
                                   uint64_t v) {
  if (byte + 8 <= size) {
    cf_st64(t + byte, v);
  } else {
    size_t i;
    for (i = byte; i < size; i++) {
      t[i] = (uint8_t)v;
      v >>= 8;
    }
  }
}

static inline uint32_t cf_bits_get(const uint8_t *t, size_t size, uint64_t bit,
                                   unsigned w) {
  uint64_t win = cf_load_window(t, size, (size_t)(bit >> 3));
  return (uint32_t)((win >> (bit & 7)) & cf_width_mask(w));
}

static inline void cf_bits_set(uint8_t *t, size_t size, uint64_t bit,
                               unsigned w, uint32_t v) {
  size_t byte = (size_t)(bit >> 3);
  unsigned shift = (unsigned)(bit & 7);
  uint64_t mask = cf_width_mask(w);
  uint64_t win = cf_load_window(t, size, byte);
  win &= ~(mask << shift);
  win |= ((uint64_t)v & mask) << shift;
  cf_store_window(t, size, byte, win);
}

/* ---------------------------------------------------------------------
** Bucket codecs.  A region is any byte range laid out like the bucket
** array; j is a bucket index within it.
**
** Semi-sorted: code = C(n0,1) + C(n1+1,2) + C(n2+2,3) + C(n3+3,4) for the
** sorted nibbles n0 <= n1 <= n2 <= n3 (cuckoo_sstable.h), encoded with
** the three 16-entry tables below (n0 is its own term) and decoded with
** one load from cf_ss_decode, whose entries past the last code are 0.
*/
static const uint16_t cf_ss_c2[16] = {0,  1,  3,  6,  10, 15, 21,  28,
                                      36, 45, 55, 66, 78, 91, 105, 120};
static const uint16_t cf_ss_c3[16] = {0,   1,   4,   10,  20,  35,  56,  84,
                                      120, 165, 220, 286, 364, 455, 560, 680};
static const uint16_t cf_ss_c4[16] = {
    0, 1, 5, 15, 35, 70, 126, 210, 330, 495, 715, 1001, 1365, 1820, 2380, 3060};

/* The code of four sorted fingerprints of lb + 4 bits. */
static inline uint32_t cf_ss_code(const uint32_t *a, unsigned lb) {
  return (a[0] >> lb) + cf_ss_c2[a[1] >> lb] + cf_ss_c3[a[2] >> lb] +
         cf_ss_c4[a[3] >> lb];
}

static inline void cf_ss_read(const uint8_t *t, size_t size, unsigned f,
                              uint64_t j, uint32_t *fps) {
  unsigned lb = f - 4, s;
  uint64_t base = j * (4 * f - 4);
  /* Codes past the last one (a crafted BLOB) read as four zero nibbles. */
  uint32_t nib = cf_ss_decode[cf_bits_get(t, size, base, 12)];
  for (s = 0; s < 4; s++) {
    fps[s] = (((nib >> (4 * s)) & 15u) << lb) |
             cf_bits_get(t, size, base + 12 + (uint64_t)s * lb, lb);
  }
}

static inline void cf_sort4(uint32_t *a) {
  uint32_t x;
#define CF_CSWAP(i, j)                                                         \
  if (a[i] > a[j]) {                                                           \
    x = a[i];                                                                  \
    a[i] = a[j];                                                               \
    a[j] = x;                                                                  \
  }
  CF_CSWAP(0, 1);
  CF_CSWAP(2, 3);
  CF_CSWAP(0, 2);
  CF_CSWAP(1, 3);
  CF_CSWAP(1, 2);
#undef CF_CSWAP
}

static inline void cf_ss_write(uint8_t *t, size_t size, unsigned f, uint64_t j,
                               const uint32_t *fps) {
  unsigned lb = f - 4, s;
  uint64_t base = j * (4 * f - 4);
  uint32_t a[4];
  memcpy(a, fps, sizeof(a));
  cf_sort4(a);
  cf_bits_set(t, size, base, 12, cf_ss_code(a, lb));
  for (s = 0; s < 4; s++) {
    cf_bits_set(t, size, base + 12 + (uint64_t)s * lb, lb, a[s]);
  }
}

static inline void cf_plain_read(const uint8_t *t, size_t size, unsigned b,
                                 unsigned f, uint64_t j, uint32_t *fps) {
  unsigned s;
  for (s = 0; s < b; s++)
    fps[s] = cf_bits_get(t, size, (j * b + s) * f, f);
}

static inline void cf_plain_write(uint8_t *t, size_t size, unsigned b,
                                  unsigned f, uint64_t j, const uint32_t *fps) {
  unsigned s;
  for (s = 0; s < b; s++)
    cf_bits_set(t, size, (j * b + s) * f, f, fps[s]);
}

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

/* ---------------------------------------------------------------------
** Bucket words.  A bucket of at most 57 bits (plain b*f, or semi-sorted
** 4f-4) lies inside the 8 bytes that start at its first byte.  Near the
** end of the array that window is moved back to the array's last 8
** bytes, so every bucket is one unaligned 64-bit load (and store), with
** no byte-by-byte tail and no branch.  cf_setup() enables this (f->x.swar
** for plain buckets, f->x.ssword for semi-sorted ones) when the geometry
** fits and the array has at least 8 bytes.  cf_win() and cf_word_raw()
** are in cuckoo_filter.h.
*/

CF_INLINE uint64_t cf_word(const cf_filter *f, uint32_t i) {
  return cf_word_raw(f, i) & f->x.bucket_mask;
}

CF_INLINE void cf_word_put(cf_filter *f, uint32_t i, uint64_t w) {
  unsigned sh;
  size_t at = cf_win(f, i, &sh);
  uint64_t v = cf_ld64(f->table + at);
  cf_st64(f->table + at, (v & ~(f->x.bucket_mask << sh)) | (w << sh));
}

CF_INLINE void cf_prefetch(const cf_filter *f, uint32_t i, int rw) {
  const uint8_t *p = f->table + (((uint64_t)i * f->bucket_bits) >> 3);
  if (rw) {
    __builtin_prefetch(p, 1);
  } else {
    __builtin_prefetch(p, 0);
  }
}

/*
** Plain bucket words.  x = bucket XOR (fp repeated in every field) has a
** zero field exactly where fp is stored; (x - lo) & ~x & hi is nonzero
** iff some field of x is zero, and its lowest set bit lies in the lowest
** zero field (a borrow only travels upward from a zero field), so it also
** gives the slot.  Bits above the bucket do not matter: hi masks them
** off and borrows never travel downward.  cf_zero_fields() and
** cf_slot_at() are in cuckoo_filter.h.
*/

/*
** Semi-sorted bucket words: bits 0..11 the nibble code, then four low
** parts of k = f - 4 bits.  cf_ss_match() returns the set of slots (bit s
** for slot s of the sorted bucket) holding fp, without a branch: an
** exact zero test of every low part at once (t = (x & m7) + m7 sets a
** field's top bit iff its lower bits are nonzero, with no carry out of
** the field), the same test on the four nibbles decoded with one table
** load, and both masks gathered to four bits by a multiplication.
**
** The gather: the low parts' flags sit at bits s*k (after a shift by
** k-1); multiplying by sum_t 2^(P - t(k-1)) puts flag s at bit P + s.
** Two partial products land on the same bit only if k(s-s') =
** (k-1)(t-t'), impossible for k >= 5 and s, t < 4, so the products are
** distinct single bits (no carries) and P = 3(k-1) keeps them in 64 bits
** for k <= 11 (f <= 15, which ssword requires).  cf_setup() stores the
** multiplier in ss_gmul for k >= 5; shorter fingerprints loop.
*/
CF_INLINE unsigned cf_ss_match(const cf_filter *f, uint64_t w, uint32_t fp) {
  unsigned k = f->p.fp_bits - 4, mLow;
  uint64_t x = (w >> 12) ^ ((uint64_t)(fp & ((1u << k) - 1)) * f->x.ss_lo);
  uint64_t zl = ~(((x & f->x.ss_m7) + f->x.ss_m7) | x) & f->x.ss_hi;
  uint32_t y = cf_ss_decode[w & 0xfff] ^ ((fp >> k) * 0x1111u);
  uint32_t zn = ~(((y & 0x7777u) + 0x7777u) | y) & 0x8888u;
  if (f->x.ss_gmul) {
    mLow = (unsigned)(((zl >> (k - 1)) * f->x.ss_gmul) >> (3 * (k - 1)));
  } else {
    unsigned s;
    for (mLow = 0, s = 0; s < 4; s++) {
      mLow |= (unsigned)((zl >> (s * k + k - 1)) & 1) << s;
    }
  }
  /* bits 3, 7, 11, 15 of zn -> bits 0..3 (the same gather with k = 4) */
  return mLow & (((zn >> 3) * 0x1248u) >> 12) & 15u;
}

CF_INLINE void cf_ss_unpack(const cf_filter *f, uint64_t w, uint32_t *fps) {
  unsigned k = f->p.fp_bits - 4;
  uint32_t nib = cf_ss_decode[w & 0xfff], lm = (1u << k) - 1;
  uint64_t lows = w >> 12;
  fps[0] = ((nib & 15u) << k) | ((uint32_t)lows & lm);
  fps[1] = (((nib >> 4) & 15u) << k) | ((uint32_t)(lows >> k) & lm);
  fps[2] = (((nib >> 8) & 15u) << k) | ((uint32_t)(lows >> 2 * k) & lm);
  fps[3] = ((nib >> 12) << k) | ((uint32_t)(lows >> 3 * k) & lm);
}

/* a[0..3] sorted -> bucket word. */
CF_INLINE uint64_t cf_ss_pack(const cf_filter *f, const uint32_t *a) {
  unsigned k = f->p.fp_bits - 4;
  uint64_t lm = ((uint64_t)1 << k) - 1;
  return cf_ss_code(a, k) | (((a[0] & lm) | (a[1] & lm) << k |
                              (a[2] & lm) << 2 * k | (a[3] & lm) << 3 * k)
                             << 12);
}

/* ---------------------------------------------------------------------
** Wide bucket words.  A plain bucket of 58..121 bits lies inside the 16
** bytes that start at its first byte (moved back to the array's last 16
** bytes at its end, as for bucket words), so it is read with two 64-bit
** loads and written with two stores instead of field by field.  cf_setup()
** sets f->x.wide when the compiler has 128-bit integers and the array has
** at least 16 bytes.
*/
#ifdef __SIZEOF_INT128__
typedef unsigned __int128 cf_u128;

CF_INLINE size_t cf_win16(const cf_filter *f, uint32_t i, unsigned *pShift) {
  uint64_t bit = (uint64_t)i * f->bucket_bits;
  size_t byte = (size_t)(bit >> 3);
  size_t last = f->table_size - 16;
  size_t at = byte < last ? byte : last;
  *pShift = (unsigned)(bit - (uint64_t)at * 8);
  return at;
}

CF_INLINE cf_u128 cf_ld128(const uint8_t *p) {
  return (cf_u128)cf_ld64(p) | ((cf_u128)cf_ld64(p + 8) << 64);
}

CF_INLINE void cf_wide_read(const cf_filter *f, uint32_t i, uint32_t *fps) {
  unsigned sh, s, fb = f->p.fp_bits;
  size_t at = cf_win16(f, i, &sh);
  cf_u128 w = cf_ld128(f->table + at) >> sh;
  for (s = 0; s < f->p.bucket_size; s++) {
    fps[s] = (uint32_t)(w >> (s * fb)) & (uint32_t)f->fp_mask;
  }
}

CF_INLINE void cf_wide_write(cf_filter *f, uint32_t i, const uint32_t *fps) {
  unsigned sh, s, fb = f->p.fp_bits;
  size_t at = cf_win16(f, i, &sh);
  cf_u128 v = cf_ld128(f->table + at), w = 0;
  cf_u128 mask = (((cf_u128)1 << f->bucket_bits) - 1) << sh;
  for (s = 0; s < f->p.bucket_size; s++) {
    w |= (cf_u128)(fps[s] & f->fp_mask) << (s * fb);
  }
  v = (v & ~mask) | (w << sh);
  cf_st64(f->table + at, (uint64_t)v);
  cf_st64(f->table + at + 8, (uint64_t)(v >> 64));
}
#define CF_WIDE(f) ((f)->x.wide)
#else
#define CF_WIDE(f) 0
#define cf_wide_read(f, i, fps) ((void)0)
#define cf_wide_write(f, i, fps) ((void)0)
#endif

/* ---------------------------------------------------------------------
** Decoded buckets: the form every algorithm works on.
*/

CF_INLINE void cf_read(const cf_filter *f, uint32_t i, uint32_t *fps) {
  if (f->x.swar) {
    uint64_t w = cf_word(f, i);
    unsigned s;
    for (s = 0; s < f->p.bucket_size; s++) {
      fps[s] = (uint32_t)((w >> (s * f->p.fp_bits)) & f->fp_mask);
    }
  } else if (f->x.ssword) {
    cf_ss_unpack(f, cf_word_raw(f, i), fps);
  } else if (CF_WIDE(f)) {
    cf_wide_read(f, i, fps);
  } else if (f->semisort) {
    cf_ss_read(f->table, f->table_size, f->p.fp_bits, i, fps);
  } else {
    cf_plain_read(f->table, f->table_size, f->p.bucket_size, f->p.fp_bits, i,
                  fps);
  }
}

CF_INLINE void cf_write(cf_filter *f, uint32_t i, const uint32_t *fps) {
  if (f->x.swar) {
    uint64_t w = 0;
    unsigned s;
    for (s = 0; s < f->p.bucket_size; s++) {
      w |= (uint64_t)fps[s] << (s * f->p.fp_bits);
    }
    cf_word_put(f, i, w);
  } else if (f->x.ssword) {
    uint32_t a[4];
    memcpy(a, fps, sizeof(a));
    cf_sort4(a);
    cf_word_put(f, i, cf_ss_pack(f, a));
  } else if (CF_WIDE(f)) {
    cf_wide_write(f, i, fps);
  } else if (f->semisort) {
    cf_ss_write(f->table, f->table_size, f->p.fp_bits, i, fps);
  } else {
    cf_plain_write(f->table, f->table_size, f->p.bucket_size, f->p.fp_bits, i,
                   fps);
  }
}

void cf_bucket_get(const cf_filter *f, uint32_t i, uint32_t *fps) {
  cf_read(f, i, fps);
}

/* Index of the first slot of a decoded bucket holding fp, or -1. */
static inline int cf_slot_of(const uint32_t *fps, unsigned b, uint32_t fp) {
  unsigned s;
  for (s = 0; s < b; s++) {
    if (fps[s] == fp) return (int)s;
  }
  return -1;
}

static inline unsigned cf_count_of(const uint32_t *fps, unsigned b,
                                   uint32_t fp) {
  unsigned s, n = 0;
  for (s = 0; s < b; s++)
    n += (fps[s] == fp);
  return n;
}

/* Index of the first slot of bucket i (decoded order) holding fp, or -1. */
CF_INLINE int cf_find(const cf_filter *f, uint32_t i, uint32_t fp) {
  uint32_t a[CF_MAX_BUCKET_SIZE];
  if (f->x.swar) {
    uint64_t z = cf_zero_fields(f, cf_word_raw(f, i) ^ (fp * f->x.lo));
    return z ? (int)cf_slot_at(f, (unsigned)__builtin_ctzll(z)) : -1;
  }
  if (f->x.ssword) {
    unsigned m = cf_ss_match(f, cf_word_raw(f, i), fp);
    return m ? __builtin_ctz(m) : -1;
  }
  cf_read(f, i, a);
  return cf_slot_of(a, f->p.bucket_size, fp);
}

static inline unsigned cf_count_in(const cf_filter *f, uint32_t i,
                                   uint32_t fp) {
  uint32_t a[CF_MAX_BUCKET_SIZE];
  cf_read(f, i, a);
  return cf_count_of(a, f->p.bucket_size, fp);
}

/* ---------------------------------------------------------------------
** Operations
*/

/* Bucket access modes, for code specialized on one of them. */
#define CF_MODE_ANY 0  /* decided per call from f->x.swar / f->x.ssword */
#define CF_MODE_SWAR 1 /* plain bucket words */
#define CF_MODE_SS 2   /* semi-sorted bucket words */
#define CF_MODE_BITS 3 /* field by field */

/* Is fp in bucket i1 or i2?  (No need to skip i2 == i1 here.) */
CF_INLINE int cf_has_m(const cf_filter *f, int mode, uint32_t i1, uint32_t i2,
                       uint32_t fp) {
  if (mode == CF_MODE_ANY) {
    mode = f->x.swar ? CF_MODE_SWAR : f->x.ssword ? CF_MODE_SS : CF_MODE_BITS;
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
  return cf_find(f, i1, fp) >= 0 || (i2 != i1 && cf_find(f, i2, fp) >= 0);
}

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
        pos = sh2 + cf_slot_at(f, (unsigned)__builtin_ctzll(z)) * fb;
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

/* The free slots of a semi-sorted bucket word, as a mask of slots.  In a
** bucket this code wrote, the fingerprints are sorted and a free slot is
** slot 0; a crafted BLOB can hold unsorted buckets (the lookups match any
** slot), so every slot is tested, never slot 0 alone. */
CF_INLINE unsigned cf_ss_free(const cf_filter *f, uint64_t w) {
  return cf_ss_match(f, w, 0);
}

/* Unpacked bucket a with free-slot mask mFree (not 0), plus fp, sorted:
** for a sorted bucket the same as shifting fp into place. */
CF_INLINE void cf_ss_add(uint32_t *a, unsigned mFree, uint32_t fp) {
  a[__builtin_ctz(mFree)] = fp;
  cf_sort4(a);
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

/* The slow path of an insert, kept out of line. */
static __attribute__((noinline)) int cf_kick(cf_filter *f, uint32_t i1,
                                             uint32_t i2, uint32_t fp) {
  if (f->x.swar) return cf_kick_swar(f, i1, i2, fp);
  if (f->x.ssword) return cf_kick_ss(f, i1, i2, fp);
  return cf_place_x(cf_mem_read, cf_mem_write, f, f->p.nbuckets,
                    f->p.bucket_size, i1, i2, fp);
}

/*
** A free slot in bucket i takes fp: 1 if it did.  The same slot as
** cf_place_x() would choose: the lowest free slot of a plain bucket; a
** semi-sorted bucket has a free slot iff its smallest fingerprint is 0.
*/
CF_INLINE int cf_put_free(cf_filter *f, uint32_t i, uint32_t fp) {
  if (f->x.swar) {
    unsigned sh;
    size_t at = cf_win(f, i, &sh);
    uint64_t v = cf_ld64(f->table + at);
    uint64_t z = cf_zero_fields(f, v >> sh);
    if (z == 0) return 0;
    /* the field is zero: OR the fingerprint in */
    cf_st64(
        f->table + at,
        v | ((uint64_t)fp << (sh + cf_slot_at(f, (unsigned)__builtin_ctzll(z)) *
                                       f->p.fp_bits)));
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
  if (f->count >= f->p.nbuckets * f->p.bucket_size) return CF_FULL;
  if (cf_put_free(f, i1, fp) || (i2 != i1 && cf_put_free(f, i2, fp))) {
    f->count++;
    return CF_OK;
  }
  rc = cf_kick(f, i1, i2, fp);
  if (rc == CF_OK) f->count++;
  return rc;
}

/* Clear one copy of fp from bucket i1, else from i2: CF_OK, CF_NOTFOUND
** or CF_CORRUPT (a copy found while the count is 0).  The header's count
** is left to the caller. */
CF_INLINE int cf_unplace(cf_filter *f, uint32_t i1, uint32_t i2, uint32_t fp) {
  uint32_t i = i1;
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
    sh += cf_slot_at(f, (unsigned)__builtin_ctzll(z)) * f->p.fp_bits;
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
    a[__builtin_ctz(mm)] = 0;
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

int cf_insert(cf_filter *f, cf_key k) {
  int rc = cf_place(f, k.i1, cf_alt(f->p.nbuckets, k.i1, k.fp), k.fp);
  if (rc == CF_OK) cf_write_count(f);
  return rc;
}

int cf_remove(cf_filter *f, cf_key k) {
  int rc = cf_unplace(f, k.i1, cf_alt(f->p.nbuckets, k.i1, k.fp), k.fp);
  if (rc == CF_OK) cf_write_count(f);
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
    sh += cf_slot_at(f, (unsigned)__builtin_ctzll(z)) * f->p.fp_bits;
    cf_st64(f->table + at, v & ~(f->fp_mask << sh));
    return 1;
  }
  if (f->x.ssword) {
    uint64_t w = cf_word_raw(f, j);
    unsigned mm = cf_ss_match(f, w, fp);
    if (mm == 0) return 0;
    cf_ss_unpack(f, w, a);
    a[__builtin_ctz(mm)] = 0;
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

/* Slot of fp in bucket i of a store (-1: absent); *prc set on error. */
static int cf_store_find(const cf_params *p, const cf_store *st, uint32_t i,
                         uint32_t fp, uint32_t *a, int *prc) {
  if (st->read(st->ctx, i, a)) {
    *prc = CF_IOERR;
    return -1;
  }
  return cf_slot_of(a, p->bucket_size, fp);
}

int cf_store_contains(const cf_params *p, const cf_store *st, cf_key k,
                      int *pFound) {
  uint32_t a[CF_MAX_BUCKET_SIZE];
  int rc = CF_OK;
  uint32_t i2;
  *pFound = 0;
  if (cf_store_find(p, st, k.i1, k.fp, a, &rc) >= 0) {
    *pFound = 1;
    return CF_OK;
  }
  if (rc) return rc;
  i2 = cf_alt(p->nbuckets, k.i1, k.fp);
  if (i2 != k.i1 && cf_store_find(p, st, i2, k.fp, a, &rc) >= 0) *pFound = 1;
  return rc;
}

int cf_store_remove(const cf_params *p, const cf_store *st, cf_key k) {
  uint32_t a[CF_MAX_BUCKET_SIZE];
  int rc = CF_OK, s;
  uint32_t i = k.i1;
  s = cf_store_find(p, st, i, k.fp, a, &rc);
  if (rc) return rc;
  if (s < 0) {
    i = cf_alt(p->nbuckets, k.i1, k.fp);
    if (i == k.i1) return CF_NOTFOUND;
    s = cf_store_find(p, st, i, k.fp, a, &rc);
    if (rc) return rc;
    if (s < 0) return CF_NOTFOUND;
  }
  a[s] = 0;
  return st->write(st->ctx, i, a) ? CF_IOERR : CF_OK;
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

uint64_t cf_count_slots(const cf_filter *f) {
  uint32_t a[CF_MAX_BUCKET_SIZE];
  uint64_t i, n = 0;
  unsigned s;
  for (i = 0; i < f->p.nbuckets; i++) {
    cf_read(f, (uint32_t)i, a);
    for (s = 0; s < f->p.bucket_size; s++)
      n += (a[s] != 0);
  }
  return n;
}

double cf_expected_fpr(const cf_filter *f) {
  /* Each of the 2b slots probed matches a random fingerprint with
  ** probability 1/(2^f - 1) when occupied. */
  double slots = (double)f->p.nbuckets * f->p.bucket_size;
  double load = slots > 0 ? (double)f->count / slots : 0.0;
  double per = 1.0 / (double)f->fp_mask;
  return 1.0 - pow(1.0 - per * load, 2.0 * f->p.bucket_size);
}

/* ---------------------------------------------------------------------
** Batches.  Items go in groups of CF_GROUP.  The keys of group g + 1
** (both buckets and the fingerprint of every item) are computed, and on
** a large array their buckets prefetched, before group g is handled.
** The long multiply chains of the keys then overlap the probes instead
** of stalling them, and the 2 * CF_GROUP buckets of the next group are
** in flight while the current one is handled, instead of the two of one
** item (prefetching only pays off for arrays larger than the caches close
** to the core; groups larger than 8 were slower on 96 MB tables, as more
** prefetches than the core can track queue up).  Items are handled strictly
** in order, so the results and the bytes are those of the single-item
** functions.  The handling works on a local copy of the filter view (a
** store through the uint8_t output array could otherwise alias it and
** force every field to be reloaded) and writes the count back once.
*/
#define CF_GROUP 8 /* items per group (a multiple of 8; 8 measured best) */
#define CF_PREFETCH_MIN (1u << 20) /* smaller arrays are not prefetched */

#define CF_OP_HAS 0
#define CF_OP_PUT 1
#define CF_OP_DEL 2

typedef struct cf_keygroup {
  uint32_t i1[CF_GROUP], i2[CF_GROUP], fp[CF_GROUP];
} cf_keygroup;

/* Keys of n <= CF_GROUP hashes, for m buckets and fingerprint mask fpm. */
typedef void (*cf_keys_fn)(uint64_t m, uint64_t fpm, const uint64_t *aHash,
                           size_t n, cf_keygroup *g);

static void cf_keys(uint64_t m, uint64_t fpm, const uint64_t *aHash, size_t n,
                    cf_keygroup *g) {
  size_t r;
  for (r = 0; r < n; r++) {
    cf_key k = cf_split(m, fpm, aHash[r]);
    g->i1[r] = k.i1;
    g->fp[r] = k.fp;
    g->i2[r] = cf_alt(m, k.i1, k.fp);
  }
}

CF_INLINE size_t cf_batch(cf_filter *pF, const uint64_t *aHash, size_t n,
                          uint8_t *aOut, int *pRc, int op, int mode, int pf,
                          cf_keys_fn keys) {
  cf_filter F = *pF;
  cf_keygroup kg[2];
  size_t g, r, nGroup = (n + CF_GROUP - 1) / CF_GROUP, nDone = 0;
  int rc = CF_OK;
  for (g = 0; g <= nGroup; g++) {
    if (g < nGroup) {
      size_t k = n - g * CF_GROUP < CF_GROUP ? n - g * CF_GROUP : CF_GROUP;
      cf_keygroup *q = &kg[g & 1];
      keys(F.p.nbuckets, F.fp_mask, aHash + g * CF_GROUP, k, q);
      for (r = 0; pf && r < k; r++) {
        cf_prefetch(&F, q->i1[r], op != CF_OP_HAS);
        cf_prefetch(&F, q->i2[r], op != CF_OP_HAS);
      }
    }
    if (g > 0) {
      size_t base = (g - 1) * CF_GROUP;
      size_t k = n - base < CF_GROUP ? n - base : CF_GROUP;
      const cf_keygroup *q = &kg[(g - 1) & 1];
      for (r = 0; r < k; r++) {
        int x;
        if (op == CF_OP_HAS) {
          x = cf_has_m(&F, mode, q->i1[r], q->i2[r], q->fp[r]);
        } else if (op == CF_OP_PUT) {
          rc = cf_place(&F, q->i1[r], q->i2[r], q->fp[r]);
          if (rc != CF_OK) goto done;
          x = 1;
        } else {
          x = cf_unplace(&F, q->i1[r], q->i2[r], q->fp[r]) == CF_OK;
        }
        if (aOut) aOut[base + r] = (uint8_t)x;
        nDone += (size_t)x;
      }
    }
  }
done:
  if (op != CF_OP_HAS && F.count != pF->count) {
    pF->count = F.count;
    cf_write_count(pF);
  }
  if (pRc) *pRc = rc;
  return nDone;
}

/* The instances (each its own loop, so each keeps its locals in
** registers). */
#define CF_BATCH_FN(name, op, mode, pf)                                        \
  static __attribute__((noinline)) size_t name(                                \
      cf_filter *f, const uint64_t *aHash, size_t n, uint8_t *aOut, int *pRc,  \
      cf_keys_fn keys) {                                                       \
    return cf_batch(f, aHash, n, aOut, pRc, op, mode, pf, keys);               \
  }
CF_BATCH_FN(cf_has_swar_n, CF_OP_HAS, CF_MODE_SWAR, 0)
CF_BATCH_FN(cf_has_swar_pf, CF_OP_HAS, CF_MODE_SWAR, 1)
CF_BATCH_FN(cf_has_ss_n, CF_OP_HAS, CF_MODE_SS, 0)
CF_BATCH_FN(cf_has_ss_pf, CF_OP_HAS, CF_MODE_SS, 1)
CF_BATCH_FN(cf_has_bits_n, CF_OP_HAS, CF_MODE_BITS, 0)
CF_BATCH_FN(cf_put_n, CF_OP_PUT, CF_MODE_ANY, 0)
CF_BATCH_FN(cf_put_pf, CF_OP_PUT, CF_MODE_ANY, 1)
CF_BATCH_FN(cf_del_n, CF_OP_DEL, CF_MODE_ANY, 0)
CF_BATCH_FN(cf_del_pf, CF_OP_DEL, CF_MODE_ANY, 1)
#undef CF_BATCH_FN

/* ---------------------------------------------------------------------
** AVX-512 batches (x86-64 with GCC or Clang; chosen at run time when the
** CPU and the OS support AVX-512 F/DQ/BW/VL, else the scalar loops
** run).  Eight items per vector: the same arithmetic as the scalar code,
** lane by lane (32x32-bit multiplications for the multiply-shift
** reductions, 64-bit ones for XXH3 and the mixer), one gather per
** candidate bucket, and the same zero-field test, so the results are
** exactly the scalar ones (tests/core_test.c compares them).  Building
** with -DCF_NO_SIMD leaves this section out.
*/
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__)) &&        \
    !defined(CF_NO_SIMD)
#define CF_AVX512 1
#include <immintrin.h>

#define CF_TARGET_AVX512                                                       \
  __attribute__((target("avx512f,avx512dq,avx512bw,avx512vl")))

static int cf_have_avx512(void) {
  return __builtin_cpu_supports("avx512f") &&
         __builtin_cpu_supports("avx512dq") &&
         __builtin_cpu_supports("avx512bw") &&
         __builtin_cpu_supports("avx512vl");
}

CF_TARGET_AVX512 static void cf_hash8_avx512(uint64_t key, const int64_t *aV,
                                             size_t n, uint64_t *aHash) {
  const __m512i vKey = _mm512_set1_epi64((long long)key);
  const __m512i vMul = _mm512_set1_epi64((long long)0x9fb21c651e98df25ULL);
  const __m512i vEight = _mm512_set1_epi64(8);
  size_t i;
  for (i = 0; i + 8 <= n; i += 8) {
    __m512i h = _mm512_loadu_si512((const void *)(aV + i));
    h = _mm512_xor_si512(_mm512_rol_epi64(h, 32), vKey);
    h = _mm512_xor_si512(
        h, _mm512_xor_si512(_mm512_rol_epi64(h, 49), _mm512_rol_epi64(h, 24)));
    h = _mm512_mullo_epi64(h, vMul);
    h = _mm512_xor_si512(h, _mm512_add_epi64(_mm512_srli_epi64(h, 35), vEight));
    h = _mm512_mullo_epi64(h, vMul);
    h = _mm512_xor_si512(h, _mm512_srli_epi64(h, 28));
    _mm512_storeu_si512((void *)(aHash + i), h);
  }
  for (; i < n; i++)
    aHash[i] = cf_xxh3_8((uint64_t)aV[i], key);
}

/* The lanes' keys: i1, i2 and fp, as cf_split() and cf_alt() make them. */
typedef struct cf_keys8 {
  __m512i i1, i2, fp;
} cf_keys8;

CF_TARGET_AVX512 static inline __attribute__((always_inline)) cf_keys8
cf_keys8_of(__m512i h, __m512i vM, __m512i vFpm) {
  const __m512i vC1 = _mm512_set1_epi64((long long)0xff51afd7ed558ccdULL);
  const __m512i vC2 = _mm512_set1_epi64((long long)0xc4ceb9fe1a85ec53ULL);
  cf_keys8 k;
  __m512i x, h2, d;
  __mmask8 wrap;
  k.i1 = _mm512_srli_epi64(_mm512_mul_epu32(_mm512_srli_epi64(h, 32), vM), 32);
  k.fp = _mm512_add_epi64(_mm512_srli_epi64(_mm512_mul_epu32(h, vFpm), 32),
                          _mm512_set1_epi64(1));
  /* cf_mix64(fp): fp < 2^32, so its first xorshift is a no-op */
  x = _mm512_mullo_epi64(k.fp, vC1);
  x = _mm512_xor_si512(x, _mm512_srli_epi64(x, 33));
  x = _mm512_mullo_epi64(x, vC2);
  x = _mm512_xor_si512(x, _mm512_srli_epi64(x, 33));
  h2 = _mm512_srli_epi64(_mm512_mul_epu32(_mm512_srli_epi64(x, 32), vM), 32);
  d = _mm512_sub_epi64(h2, k.i1);
  wrap = _mm512_cmplt_epu64_mask(h2, k.i1);
  k.i2 = _mm512_mask_add_epi64(d, wrap, d, vM);
  return k;
}

/* cf_keys(), eight lanes at a time. */
CF_TARGET_AVX512 static void cf_keys_avx512(uint64_t m, uint64_t fpm,
                                            const uint64_t *aHash, size_t n,
                                            cf_keygroup *g) {
  const __m512i vM = _mm512_set1_epi64((long long)m);
  const __m512i vFpm = _mm512_set1_epi64((long long)fpm);
  size_t r;
  for (r = 0; r + 8 <= n; r += 8) {
    cf_keys8 k =
        cf_keys8_of(_mm512_loadu_si512((const void *)(aHash + r)), vM, vFpm);
    _mm256_storeu_si256((__m256i *)(g->i1 + r), _mm512_cvtepi64_epi32(k.i1));
    _mm256_storeu_si256((__m256i *)(g->i2 + r), _mm512_cvtepi64_epi32(k.i2));
    _mm256_storeu_si256((__m256i *)(g->fp + r), _mm512_cvtepi64_epi32(k.fp));
  }
  if (r < n) {
    cf_keygroup tail;
    cf_keys(m, fpm, aHash + r, n - r, &tail);
    memcpy(g->i1 + r, tail.i1, (n - r) * sizeof(uint32_t));
    memcpy(g->i2 + r, tail.i2, (n - r) * sizeof(uint32_t));
    memcpy(g->fp + r, tail.fp, (n - r) * sizeof(uint32_t));
  }
}

/* Window offsets of buckets i (cf_win()) and the bucket's shift in it. */
CF_TARGET_AVX512 static inline __attribute__((always_inline)) __m512i
cf_at8(__m512i i, __m512i vBits, __m512i vLast, __m512i *pSh) {
  __m512i bit = _mm512_mul_epu32(i, vBits);
  __m512i byte = _mm512_srli_epi64(bit, 3);
  __m512i at = _mm512_min_epu64(byte, vLast);
  *pSh = _mm512_add_epi64(_mm512_slli_epi64(_mm512_sub_epi64(byte, at), 3),
                          _mm512_and_si512(bit, _mm512_set1_epi64(7)));
  return at;
}

/* The filter's constants, broadcast. */
typedef struct cf_vconst {
  __m512i lo, hi;                       /* plain words */
  __m512i ssLo, ssHi, ssM7, ssGmul, lm; /* semi-sorted words */
  __m128i k, km1, p3;                   /* shift counts k, k-1, 3(k-1) */
} cf_vconst;

/* Lanes of plain bucket words w1, w2 (shifted down) that hold fp. */
CF_TARGET_AVX512 static inline __attribute__((always_inline)) __mmask8
cf_has8_swar(__m512i w1, __m512i w2, __m512i fp, const cf_vconst *c) {
  __m512i pat = _mm512_mullo_epi64(fp, c->lo);
  __m512i x1 = _mm512_xor_si512(w1, pat), x2 = _mm512_xor_si512(w2, pat);
  __m512i z1 = _mm512_andnot_si512(x1, _mm512_sub_epi64(x1, c->lo));
  __m512i z2 = _mm512_andnot_si512(x2, _mm512_sub_epi64(x2, c->lo));
  return _mm512_test_epi64_mask(_mm512_or_si512(z1, z2), c->hi);
}

/* cf_ss_match(), eight lanes: lanes of semi-sorted word w holding fp
** (for k = f - 4 >= 5, where the multiply gather applies). */
CF_TARGET_AVX512 static inline __attribute__((always_inline)) __mmask8
cf_ss8(__m512i w, __m512i fp, const cf_vconst *c) {
  const __m512i v7777 = _mm512_set1_epi64(0x7777);
  __m512i x = _mm512_xor_si512(
      _mm512_srli_epi64(w, 12),
      _mm512_mullo_epi64(_mm512_and_si512(fp, c->lm), c->ssLo));
  __m512i zl = _mm512_andnot_si512(
      _mm512_or_si512(_mm512_add_epi64(_mm512_and_si512(x, c->ssM7), c->ssM7),
                      x),
      c->ssHi);
  __m256i nib16 =
      _mm512_i64gather_epi32(_mm512_and_si512(w, _mm512_set1_epi64(0xfff)),
                             (const void *)cf_ss_decode, 2);
  __m512i y = _mm512_xor_si512(
      _mm512_cvtepu16_epi64(_mm256_cvtepi32_epi16(nib16)),
      _mm512_mul_epu32(_mm512_srl_epi64(fp, c->k), _mm512_set1_epi64(0x1111)));
  __m512i zn = _mm512_andnot_si512(
      _mm512_or_si512(_mm512_add_epi64(_mm512_and_si512(y, v7777), v7777), y),
      _mm512_set1_epi64(0x8888));
  __m512i mLow = _mm512_srl_epi64(
      _mm512_mullo_epi64(_mm512_srl_epi64(zl, c->km1), c->ssGmul), c->p3);
  __m512i mNib = _mm512_srli_epi64(
      _mm512_mul_epu32(_mm512_srli_epi64(zn, 3), _mm512_set1_epi64(0x1248)),
      12);
  return _mm512_test_epi64_mask(_mm512_and_si512(mLow, mNib),
                                _mm512_set1_epi64(15));
}

CF_TARGET_AVX512 static inline __attribute__((always_inline)) __mmask8
cf_has8(__m512i w1, __m512i w2, __m512i fp, const cf_vconst *c, int ss) {
  if (ss) return cf_ss8(w1, fp, c) | cf_ss8(w2, fp, c);
  return cf_has8_swar(w1, w2, fp, c);
}

/*
** Lookups in bucket words (plain, or semi-sorted with ss), eight at a
** time.  With pf, items are handled in groups of CF_GROUP: the keys of
** group g + 1 are computed and their buckets prefetched before group g
** is probed.
*/
CF_TARGET_AVX512 static inline __attribute__((always_inline)) size_t
cf_has_avx512_x(const cf_filter *f, const uint64_t *aHash, size_t n,
                uint8_t *aFound, int ss, int pf) {
  const uint8_t *t = f->table;
  const __m512i vM = _mm512_set1_epi64((long long)f->p.nbuckets);
  const __m512i vFpm = _mm512_set1_epi64((long long)f->fp_mask);
  const __m512i vBits = _mm512_set1_epi64(f->bucket_bits);
  const __m512i vLast = _mm512_set1_epi64((long long)f->x.win_last);
  const __m128i vOne8 = _mm_set1_epi8(1);
  unsigned k = f->p.fp_bits - 4;
  cf_vconst c;
  /* pf: per group, the window offsets, shifts and fingerprints */
  uint64_t aAt[2][2][CF_GROUP], aSh[2][2][CF_GROUP], aFp[2][CF_GROUP];
  size_t i, g, nFound = 0, nVec = n & ~(size_t)7;

  c.lo = _mm512_set1_epi64((long long)f->x.lo);
  c.hi = _mm512_set1_epi64((long long)f->x.hi);
  c.ssLo = _mm512_set1_epi64((long long)f->x.ss_lo);
  c.ssHi = _mm512_set1_epi64((long long)f->x.ss_hi);
  c.ssM7 = _mm512_set1_epi64((long long)f->x.ss_m7);
  c.ssGmul = _mm512_set1_epi64((long long)f->x.ss_gmul);
  c.lm = _mm512_set1_epi64((long long)(((uint64_t)1 << (k & 31)) - 1));
  c.k = _mm_cvtsi32_si128((int)k);
  c.km1 = _mm_cvtsi32_si128((int)k - 1);
  c.p3 = _mm_cvtsi32_si128(3 * ((int)k - 1));
  if (!pf) {
    for (i = 0; i < nVec; i += 8) {
      __m512i h = _mm512_loadu_si512((const void *)(aHash + i));
      cf_keys8 kk = cf_keys8_of(h, vM, vFpm);
      __m512i sh1, sh2, at1, at2, w1, w2;
      __mmask8 hit;
      at1 = cf_at8(kk.i1, vBits, vLast, &sh1);
      at2 = cf_at8(kk.i2, vBits, vLast, &sh2);
      w1 = _mm512_srlv_epi64(_mm512_i64gather_epi64(at1, (const void *)t, 1),
                             sh1);
      w2 = _mm512_srlv_epi64(_mm512_i64gather_epi64(at2, (const void *)t, 1),
                             sh2);
      hit = cf_has8(w1, w2, kk.fp, &c, ss);
      nFound += (size_t)__builtin_popcount(hit);
      if (aFound) {
        _mm_storel_epi64((__m128i *)(aFound + i),
                         _mm_maskz_mov_epi8((__mmask16)hit, vOne8));
      }
    }
  } else {
    size_t nGroup = nVec / CF_GROUP, r;
    nVec = nGroup * CF_GROUP;
    for (g = 0; g <= nGroup; g++) {
      if (g < nGroup) {
        uint64_t(*at)[CF_GROUP] = aAt[g & 1], (*sh)[CF_GROUP] = aSh[g & 1];
        for (r = 0; r < CF_GROUP; r += 8) {
          __m512i h =
              _mm512_loadu_si512((const void *)(aHash + g * CF_GROUP + r));
          cf_keys8 kk = cf_keys8_of(h, vM, vFpm);
          __m512i sh1, sh2;
          _mm512_storeu_si512((void *)(at[0] + r),
                              cf_at8(kk.i1, vBits, vLast, &sh1));
          _mm512_storeu_si512((void *)(at[1] + r),
                              cf_at8(kk.i2, vBits, vLast, &sh2));
          _mm512_storeu_si512((void *)(sh[0] + r), sh1);
          _mm512_storeu_si512((void *)(sh[1] + r), sh2);
          _mm512_storeu_si512((void *)(aFp[g & 1] + r), kk.fp);
        }
        for (r = 0; r < CF_GROUP; r++) {
          __builtin_prefetch(t + at[0][r]);
          __builtin_prefetch(t + at[1][r]);
        }
      }
      if (g > 0) {
        size_t b = (g - 1) & 1, base = (g - 1) * CF_GROUP;
        for (r = 0; r < CF_GROUP; r += 8) {
          __m512i at1 = _mm512_loadu_si512((const void *)(aAt[b][0] + r));
          __m512i at2 = _mm512_loadu_si512((const void *)(aAt[b][1] + r));
          __m512i w1 = _mm512_srlv_epi64(
              _mm512_i64gather_epi64(at1, (const void *)t, 1),
              _mm512_loadu_si512((const void *)(aSh[b][0] + r)));
          __m512i w2 = _mm512_srlv_epi64(
              _mm512_i64gather_epi64(at2, (const void *)t, 1),
              _mm512_loadu_si512((const void *)(aSh[b][1] + r)));
          __mmask8 hit = cf_has8(
              w1, w2, _mm512_loadu_si512((const void *)(aFp[b] + r)), &c, ss);
          nFound += (size_t)__builtin_popcount(hit);
          if (aFound) {
            _mm_storel_epi64((__m128i *)(aFound + base + r),
                             _mm_maskz_mov_epi8((__mmask16)hit, vOne8));
          }
        }
      }
    }
  }
  /* the last n mod 8 (or mod CF_GROUP) items */
  aHash += nVec;
  n -= nVec;
  if (aFound) aFound += nVec;
  return nFound +
         (ss ? cf_has_ss_n((cf_filter *)f, aHash, n, aFound, 0, cf_keys)
             : cf_has_swar_n((cf_filter *)f, aHash, n, aFound, 0, cf_keys));
}

#define CF_AVX512_HAS_FN(name, ss, pf)                                         \
  CF_TARGET_AVX512 static __attribute__((noinline)) size_t name(               \
      const cf_filter *f, const uint64_t *aHash, size_t n, uint8_t *aFound) {  \
    return cf_has_avx512_x(f, aHash, n, aFound, ss, pf);                       \
  }
CF_AVX512_HAS_FN(cf_has_avx512, 0, 0)
CF_AVX512_HAS_FN(cf_has_avx512_pf, 0, 1)
CF_AVX512_HAS_FN(cf_has_ss_avx512, 1, 0)
CF_AVX512_HAS_FN(cf_has_ss_avx512_pf, 1, 1)
#undef CF_AVX512_HAS_FN
#endif /* CF_AVX512 */

/* The key function of this machine: vectorized when it can be. */
static cf_keys_fn cf_keys_best(void) {
#ifdef CF_AVX512
  if (cf_have_avx512()) return cf_keys_avx512;
#endif
  return cf_keys;
}

void cf_hash_int_batch(uint64_t seed, const int64_t *aV, size_t n,
                       uint64_t *aHash) {
  uint64_t key = cf_xxh3_key8(seed ^ CF_KIND_INT);
  size_t i;
#ifdef CF_AVX512
  if (cf_have_avx512()) {
    cf_hash8_avx512(key, aV, n, aHash);
    return;
  }
#endif
  for (i = 0; i < n; i++)
    aHash[i] = cf_xxh3_8((uint64_t)aV[i], key);
}

size_t cf_contains_batch(const cf_filter *f, const uint64_t *aHash, size_t n,
                         uint8_t *aFound) {
  cf_filter *pF = (cf_filter *)f; /* CF_OP_HAS never writes through it */
  int pf = f->table_size >= CF_PREFETCH_MIN;
  cf_keys_fn keys = cf_keys_best();
#ifdef CF_AVX512
  if (f->x.swar && keys == cf_keys_avx512) {
    return pf ? cf_has_avx512_pf(f, aHash, n, aFound)
              : cf_has_avx512(f, aHash, n, aFound);
  }
  if (f->x.ssword && f->x.ss_gmul && keys == cf_keys_avx512) {
    return pf ? cf_has_ss_avx512_pf(f, aHash, n, aFound)
              : cf_has_ss_avx512(f, aHash, n, aFound);
  }
#endif
  if (f->x.swar) {
    return pf ? cf_has_swar_pf(pF, aHash, n, aFound, 0, keys)
              : cf_has_swar_n(pF, aHash, n, aFound, 0, keys);
  }
  if (f->x.ssword) {
    return pf ? cf_has_ss_pf(pF, aHash, n, aFound, 0, keys)
              : cf_has_ss_n(pF, aHash, n, aFound, 0, keys);
  }
  return cf_has_bits_n(pF, aHash, n, aFound, 0, keys);
}

size_t cf_insert_batch(cf_filter *f, const uint64_t *aHash, size_t n,
                       int *pRc) {
  if (f->table_size >= CF_PREFETCH_MIN) {
    return cf_put_pf(f, aHash, n, 0, pRc, cf_keys_best());
  }
  return cf_put_n(f, aHash, n, 0, pRc, cf_keys_best());
}

size_t cf_remove_batch(cf_filter *f, const uint64_t *aHash, size_t n,
                       uint8_t *aRemoved) {
  if (f->table_size >= CF_PREFETCH_MIN) {
    return cf_del_pf(f, aHash, n, aRemoved, 0, cf_keys_best());
  }
  return cf_del_n(f, aHash, n, aRemoved, 0, cf_keys_best());
}
