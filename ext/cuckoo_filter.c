/*
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
*/
#include "cuckoo_filter.h"

#include <math.h>
#include <string.h>

#define XXH_INLINE_ALL
#include <xxhash.h>

#include "cuckoo_sstable.h"

/* Load factor each bucket size fills to reliably (see README: Limits). */
/*
** Load factor each geometry fills to reliably before the first failed
** insert, below the worst case measured over many seeds and bucket counts
** (tests/bench: "load at failure"): b=4 never failed below 94.4%, b=8
** below 98.4%, b=2 below 85.6% with f >= 6; with b=2 very short
** fingerprints leave few alternate buckets.
*/
static double cf_target_load(unsigned bucket_size, unsigned fp_bits) {
  switch (bucket_size) {
  case 2: return fp_bits == 4 ? 0.28 : fp_bits == 5 ? 0.60 : 0.84;
  case 8: return 0.97;
  default: return 0.93;
  }
}

uint64_t cf_get_u64(const uint8_t *p) {
  uint64_t v = 0;
  int i;
  for (i = 7; i >= 0; i--) v = (v << 8) | p[i];
  return v;
}

/* One 8-byte store: a byte loop here made cf_hash_int() reload the bytes
** it had just stored one by one (a store-forwarding stall on every hash). */
void cf_put_u64(uint8_t *p, uint64_t v) {
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
  v = __builtin_bswap64(v);
#endif
  memcpy(p, &v, 8);
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

uint64_t cf_buckets_for(uint64_t capacity, unsigned bucket_size,
                        unsigned fp_bits) {
  /* Small tables vary more around the mean load: leave a margin that
  ** shrinks as 1/sqrt(capacity) (no failures in 300 seeds per size). */
  double load = cf_target_load(bucket_size, fp_bits) -
                (bucket_size == 2 ? 2.5 : 1.0) * CF_SMALL_MARGIN /
                    sqrt((double)capacity);
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
  while (m * bucket_size < capacity) m++;
  return m;
}

int cf_params_check(const cf_params *p) {
  if (p->bucket_size != 2 && p->bucket_size != 4 && p->bucket_size != 8)
    return CF_RANGE;
  if (p->fp_bits < CF_MIN_FP_BITS || p->fp_bits > CF_MAX_FP_BITS)
    return CF_RANGE;
  if (p->nbuckets < 1 || p->nbuckets >= CF_MAX_BUCKETS) return CF_RANGE;
  if (p->flags & ~CF_FLAG_KNOWN) return CF_RANGE;
  if ((p->flags & CF_FLAG_SEMISORT) &&
      (p->bucket_size != 4 || p->fp_bits < CF_SS_MIN_FP_BITS))
    return CF_RANGE;
  if (p->capacity < 1 || p->capacity > p->nbuckets * p->bucket_size)
    return CF_RANGE;
  return CF_OK;
}

/*
** The narrowest fingerprint that reaches cf_target_load() in tables of
** every size.  A fingerprint of f bits has at most 2^f - 1 alternate
** bucket offsets, too few for large tables when f is small (the paper's
** section 4; its Table 2 has 68% load for b = 4, f = 4 at 2^25 buckets).
** Measured at 10^6 buckets: b = 4, f = 4 failed at 85% load (f = 5: 95%
** up to 2^25 buckets); b = 2, f = 6 at 72% (f = 7: 85%).  b = 8 never
** gets fewer than 5 bits from the error rate.
*/
static unsigned cf_min_fp_bits(unsigned bucket_size) {
  return bucket_size == 2 ? 7 : 5;
}

int cf_params_for(cf_params *p, uint64_t capacity, double error_rate,
                  unsigned bucket_size, uint64_t seed) {
  memset(p, 0, sizeof(*p));
  if (bucket_size != 2 && bucket_size != 4 && bucket_size != 8)
    return CF_RANGE;
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
  f->blob = buf;
  f->table = buf + CF_HEADER_SIZE;
  f->table_size = (size_t)cf_table_size(&f->p);
  f->blob_size = CF_HEADER_SIZE + f->table_size;
  f->fp_mask = (f->p.fp_bits == 32) ? 0xffffffffu
                                     : (((uint64_t)1 << f->p.fp_bits) - 1);
  f->bucket_bits = cf_bucket_bits(&f->p);
  f->semisort = (f->p.flags & CF_FLAG_SEMISORT) != 0;
  f->swar = 0;
#ifndef CF_NO_SWAR
  if (!f->semisort && f->bucket_bits <= 57) {
    unsigned s;
    f->swar = 1;
    f->lo = 0;
    for (s = 0; s < f->p.bucket_size; s++)
      f->lo |= (uint64_t)1 << (s * f->p.fp_bits);
    f->hi = f->lo << (f->p.fp_bits - 1);
    f->bucket_mask = ((uint64_t)1 << f->bucket_bits) - 1;
  }
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
  if (p.flags & ~CF_FLAG_KNOWN)
    CF_FAIL("unknown flag bits in header (only bit 0, semi-sorted, is "
            "defined)");
  if (p.bucket_size != 2 && p.bucket_size != 4 && p.bucket_size != 8)
    CF_FAIL("bucket size must be 2, 4 or 8");
  if (p.fp_bits < CF_MIN_FP_BITS || p.fp_bits > CF_MAX_FP_BITS)
    CF_FAIL("fingerprint bits must be 4..32");
  if ((p.flags & CF_FLAG_SEMISORT) && p.bucket_size != 4)
    CF_FAIL("semi-sorted buckets need bucket size 4");
  if ((p.flags & CF_FLAG_SEMISORT) && p.fp_bits < CF_SS_MIN_FP_BITS)
    CF_FAIL("semi-sorted buckets need fingerprint bits 5..32");
  if (p.nbuckets < 1 || p.nbuckets >= CF_MAX_BUCKETS)
    CF_FAIL("bucket count must be 1..4294967294");
  if (p.capacity < 1 || p.capacity > p.nbuckets * p.bucket_size)
    CF_FAIL("capacity must be 1..buckets*bucket_size");
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

#define CF_KIND_INT 0x496e7465676572ULL  /* "Integer" */
#define CF_KIND_REAL 0x5265616cULL       /* "Real" */
#define CF_KIND_TEXT 0x54657874ULL       /* "Text" */
#define CF_KIND_BLOB 0x426c6f62ULL       /* "Blob" */

uint64_t cf_hash_int(uint64_t seed, int64_t v) {
  uint8_t b[8];
  cf_put_u64(b, (uint64_t)v);
  return XXH3_64bits_withSeed(b, 8, seed ^ CF_KIND_INT);
}

uint64_t cf_hash_real(uint64_t seed, double v) {
  uint64_t bits;
  uint8_t b[8];
  /* An integral value in int64 range equals that INTEGER in SQL. */
  if (v >= -9223372036854775808.0 && v < 9223372036854775808.0 &&
      v == floor(v)) {
    return cf_hash_int(seed, (int64_t)v);
  }
  memcpy(&bits, &v, 8);
  cf_put_u64(b, bits);
  return XXH3_64bits_withSeed(b, 8, seed ^ CF_KIND_REAL);
}

uint64_t cf_hash_text(uint64_t seed, const void *z, size_t n) {
  return XXH3_64bits_withSeed(z, n, seed ^ CF_KIND_TEXT);
}

uint64_t cf_hash_blob(uint64_t seed, const void *z, size_t n) {
  return XXH3_64bits_withSeed(z, n, seed ^ CF_KIND_BLOB);
}

/* A strong 64-bit mixer (a variant of the murmur3 finalizer). */
static inline uint64_t cf_mix64(uint64_t x) {
  x ^= x >> 33;
  x *= 0xff51afd7ed558ccdULL;
  x ^= x >> 33;
  x *= 0xc4ceb9fe1a85ec53ULL;
  x ^= x >> 33;
  return x;
}

/* Map a 32-bit value uniformly onto [0, n) without division. */
static inline uint32_t cf_reduce(uint32_t x, uint64_t n) {
  return (uint32_t)(((uint64_t)x * n) >> 32);
}

cf_key cf_key_from(const cf_params *p, uint64_t hash) {
  cf_key k;
  uint64_t nfp = (p->fp_bits == 32) ? 0xffffffffu
                                     : (((uint64_t)1 << p->fp_bits) - 1);
  k.i1 = cf_reduce((uint32_t)(hash >> 32), p->nbuckets);
  /* uniform over 1 .. 2^f-1 */
  k.fp = cf_reduce((uint32_t)hash, nfp) + 1;
  return k;
}

cf_key cf_key_of(const cf_filter *f, uint64_t hash) {
  return cf_key_from(&f->p, hash);
}

uint32_t cf_alt_bucket(uint64_t nbuckets, uint32_t i, uint32_t fp) {
  uint32_t h = cf_reduce((uint32_t)(cf_mix64(fp) >> 32), nbuckets);
  return h >= i ? h - i : (uint32_t)(h + nbuckets - i);
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
    memcpy(&v, t + byte, 8);
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
    v = __builtin_bswap64(v);
#endif
  } else {
    size_t i;
    for (i = size; i > byte; i--) v = (v << 8) | t[i - 1];
  }
  return v;
}

static inline void cf_store_window(uint8_t *t, size_t size, size_t byte,
                                   uint64_t v) {
  if (byte + 8 <= size) {
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
    v = __builtin_bswap64(v);
#endif
    memcpy(t + byte, &v, 8);
  } else {
    size_t i;
    for (i = byte; i < size; i++) {
      t[i] = (uint8_t)v;
      v >>= 8;
    }
  }
}

static inline uint64_t cf_width_mask(unsigned w) {
  return w >= 64 ? ~(uint64_t)0 : (((uint64_t)1 << w) - 1);
}

static inline uint32_t cf_bits_get(const uint8_t *t, size_t size,
                                   uint64_t bit, unsigned w) {
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
*/

/* code = C(n0,1) + C(n1+1,2) + C(n2+2,3) + C(n3+3,4) (cuckoo_sstable.h) */
static const uint16_t cf_ss_c2[16] = {0,  1,  3,  6,  10, 15, 21,  28,
                                      36, 45, 55, 66, 78, 91, 105, 120};
static const uint16_t cf_ss_c3[16] = {0,   1,   4,   10,  20,  35,
                                      56,  84,  120, 165, 220, 286,
                                      364, 455, 560, 680};
static const uint16_t cf_ss_c4[16] = {0,    1,    5,    15,   35,   70,
                                      126,  210,  330,  495,  715,  1001,
                                      1365, 1820, 2380, 3060};

static inline void cf_ss_read(const uint8_t *t, size_t size, unsigned f,
                              uint64_t j, uint32_t *fps) {
  unsigned lb = f - 4, s;
  uint64_t base = j * (4 * f - 4);
  uint32_t code = cf_bits_get(t, size, base, 12);
  /* Codes past the table (a crafted BLOB) read as four zero nibbles. */
  uint32_t nib = code < CF_SS_CODES ? cf_ss_decode[code] : 0;
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

static inline void cf_ss_write(uint8_t *t, size_t size, unsigned f,
                               uint64_t j, const uint32_t *fps) {
  unsigned lb = f - 4, s;
  uint64_t base = j * (4 * f - 4);
  uint32_t a[4], code;
  memcpy(a, fps, sizeof(a));
  cf_sort4(a);
  code = (a[0] >> lb) + cf_ss_c2[a[1] >> lb] + cf_ss_c3[a[2] >> lb] +
         cf_ss_c4[a[3] >> lb];
  cf_bits_set(t, size, base, 12, code);
  for (s = 0; s < 4; s++) {
    cf_bits_set(t, size, base + 12 + (uint64_t)s * lb, lb, a[s]);
  }
}

static inline void cf_plain_read(const uint8_t *t, size_t size, unsigned b,
                                 unsigned f, uint64_t j, uint32_t *fps) {
  unsigned s;
  for (s = 0; s < b; s++) fps[s] = cf_bits_get(t, size, (j * b + s) * f, f);
}

static inline void cf_plain_write(uint8_t *t, size_t size, unsigned b,
                                  unsigned f, uint64_t j,
                                  const uint32_t *fps) {
  unsigned s;
  for (s = 0; s < b; s++) cf_bits_set(t, size, (j * b + s) * f, f, fps[s]);
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

/*
** Whole-bucket probing of plain buckets.  A bucket of b*f <= 57 bits is
** one 64-bit load.  x = bucket XOR (fp repeated in every field) has a
** zero field exactly where fp is stored; (x - lo) & ~x & hi is nonzero
** iff some field of x is zero, and its lowest set bit lies in the lowest
** zero field (a borrow only travels upward from a zero field), so it also
** gives the slot.
*/
static inline uint64_t cf_bucket_word(const cf_filter *f, uint32_t i) {
  uint64_t bit = (uint64_t)i * f->bucket_bits;
  uint64_t w = cf_load_window(f->table, f->table_size, (size_t)(bit >> 3));
  return (w >> (bit & 7)) & f->bucket_mask;
}

static inline uint64_t cf_zero_fields(const cf_filter *f, uint64_t x) {
  return (x - f->lo) & ~x & f->hi;
}

static inline void cf_read(const cf_filter *f, uint32_t i, uint32_t *fps) {
  if (f->swar) {
    uint64_t w = cf_bucket_word(f, i);
    unsigned s;
    for (s = 0; s < f->p.bucket_size; s++) {
      fps[s] = (uint32_t)((w >> (s * f->p.fp_bits)) & f->fp_mask);
    }
  } else if (f->semisort) {
    cf_ss_read(f->table, f->table_size, f->p.fp_bits, i, fps);
  } else {
    cf_plain_read(f->table, f->table_size, f->p.bucket_size, f->p.fp_bits, i,
                  fps);
  }
}

static inline void cf_write(cf_filter *f, uint32_t i, const uint32_t *fps) {
  if (f->semisort) {
    cf_ss_write(f->table, f->table_size, f->p.fp_bits, i, fps);
  } else {
    cf_plain_write(f->table, f->table_size, f->p.bucket_size, f->p.fp_bits,
                   i, fps);
  }
}

void cf_bucket_get(const cf_filter *f, uint32_t i, uint32_t *fps) {
  cf_read(f, i, fps);
}

void cf_bucket_set(cf_filter *f, uint32_t i, const uint32_t *fps) {
  cf_write(f, i, fps);
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
  for (s = 0; s < b; s++) n += (fps[s] == fp);
  return n;
}

/* Index of fp in bucket i, or -1. */
static inline int cf_find(const cf_filter *f, uint32_t i, uint32_t fp) {
  uint32_t a[CF_MAX_BUCKET_SIZE];
  if (f->swar) {
    uint64_t z = cf_zero_fields(f, cf_bucket_word(f, i) ^ (fp * f->lo));
    return z ? (int)((unsigned)__builtin_ctzll(z) / f->p.fp_bits) : -1;
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

int cf_contains(const cf_filter *f, cf_key k) {
  uint32_t i2;
  if (f->swar) {
    uint64_t pat = k.fp * f->lo;
    i2 = cf_alt_bucket(f->p.nbuckets, k.i1, k.fp);
    return (cf_zero_fields(f, cf_bucket_word(f, k.i1) ^ pat) |
            cf_zero_fields(f, cf_bucket_word(f, i2) ^ pat)) != 0;
  }
  if (cf_find(f, k.i1, k.fp) >= 0) return 1;
  i2 = cf_alt_bucket(f->p.nbuckets, k.i1, k.fp);
  return i2 != k.i1 && cf_find(f, i2, k.fp) >= 0;
}

unsigned cf_copies(const cf_filter *f, cf_key k) {
  uint32_t i2 = cf_alt_bucket(f->p.nbuckets, k.i1, k.fp);
  unsigned n = cf_count_in(f, k.i1, k.fp);
  if (i2 != k.i1) n += cf_count_in(f, i2, k.fp);
  return n;
}

/* One displacement, remembered so that a failed insert can be undone:
** in bucket `bucket`, `put` replaced `old` (at `slot` of the decoded
** bucket; a semi-sorted bucket may since have moved it). */
typedef struct cf_undo {
  uint32_t bucket;
  uint32_t slot;
  uint32_t old;
  uint32_t put;
} cf_undo;

typedef int (*cf_read_fn)(void *ctx, uint32_t bucket, uint32_t *fps);
typedef int (*cf_write_fn)(void *ctx, uint32_t bucket, const uint32_t *fps);

/*
** Place fp, whose candidate buckets are i1 and its alternate: the one
** insertion algorithm (the paper's Algorithm 1), instantiated inline for
** the in-memory table and for callback stores.  Deterministic: the first
** bucket to kick from is a hash of (fp, i1), the victim slot at each step
** a hash of (fingerprint in hand, bucket, step).  On CF_FULL/CF_TOO_MANY
** every displacement is undone, last first, so the buckets are exactly
** what they were.  An accessor error returns CF_IOERR after undoing what
** it can.
*/
static inline __attribute__((always_inline)) int
cf_place_x(cf_read_fn rd, cf_write_fn wr, void *ctx, uint64_t m, unsigned b,
           uint32_t i1, uint32_t fp) {
  cf_undo path[CF_MAX_KICKS];
  uint32_t a[CF_MAX_BUCKET_SIZE];
  uint32_t i2 = cf_alt_bucket(m, i1, fp);
  uint32_t cur, hand;
  unsigned same;
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
  cur = (cf_mix64(((uint64_t)fp << 32) ^ i1) & 1) ? i2 : i1;
  rc = CF_FULL;
  for (n = 0; n < CF_MAX_KICKS; n++) {
    unsigned slot = (unsigned)(cf_mix64(((uint64_t)hand << 32) ^ cur ^
                                        ((uint64_t)n << 56)) &
                               (b - 1));
    if (rd(ctx, cur, a)) {
      rc = CF_IOERR;
      break;
    }
    path[n].bucket = cur;
    path[n].slot = slot;
    path[n].old = a[slot];
    path[n].put = hand;
    a[slot] = hand;
    hand = path[n].old;
    if (wr(ctx, cur, a)) {
      rc = CF_IOERR; /* a failed write changed nothing (store contract) */
      break;
    }
    cur = cf_alt_bucket(m, cur, hand);
    if (rd(ctx, cur, a)) {
      rc = CF_IOERR;
      n++;
      break;
    }
    if ((s = cf_slot_of(a, b, 0)) >= 0) {
      a[s] = hand;
      if (wr(ctx, cur, a) == 0) return CF_OK;
      rc = CF_IOERR;
      n++;
      break;
    }
  }
  /* No room (or an accessor failed): put every displaced fingerprint
  ** back where it was, last displacement first. */
  while (n-- > 0) {
    if (rd(ctx, path[n].bucket, a)) {
      rc = CF_IOERR;
      continue;
    }
    s = (int)path[n].slot;
    if (a[s] != path[n].put) s = cf_slot_of(a, b, path[n].put);
    if (s < 0) {
      rc = CF_IOERR; /* a store that did not keep what it was given */
      continue;
    }
    a[s] = path[n].old;
    if (wr(ctx, path[n].bucket, a)) rc = CF_IOERR;
  }
  return rc;
}

static int cf_mem_read(void *ctx, uint32_t bucket, uint32_t *fps) {
  cf_read((const cf_filter *)ctx, bucket, fps);
  return 0;
}

static int cf_mem_write(void *ctx, uint32_t bucket, const uint32_t *fps) {
  cf_write((cf_filter *)ctx, bucket, fps);
  return 0;
}

static int cf_place(cf_filter *f, uint32_t i1, uint32_t fp) {
  int rc;
  if (f->count >= f->p.nbuckets * f->p.bucket_size) return CF_FULL;
  if (f->swar) {
    /* Fast path: a free slot in either bucket (the same choice as
    ** cf_place_x makes). */
    uint32_t i2;
    int s;
    if ((s = cf_find(f, i1, 0)) >= 0) {
      cf_bits_set(f->table, f->table_size,
                  ((uint64_t)i1 * f->p.bucket_size + (unsigned)s) *
                      f->p.fp_bits,
                  f->p.fp_bits, fp);
      goto placed;
    }
    i2 = cf_alt_bucket(f->p.nbuckets, i1, fp);
    if (i2 != i1 && (s = cf_find(f, i2, 0)) >= 0) {
      cf_bits_set(f->table, f->table_size,
                  ((uint64_t)i2 * f->p.bucket_size + (unsigned)s) *
                      f->p.fp_bits,
                  f->p.fp_bits, fp);
      goto placed;
    }
  }
  rc = cf_place_x(cf_mem_read, cf_mem_write, f, f->p.nbuckets,
                  f->p.bucket_size, i1, fp);
  if (rc != CF_OK) return rc;
placed:
  f->count++;
  cf_write_count(f);
  return CF_OK;
}

int cf_insert(cf_filter *f, cf_key k) { return cf_place(f, k.i1, k.fp); }

int cf_remove(cf_filter *f, cf_key k) {
  uint32_t a[CF_MAX_BUCKET_SIZE];
  uint32_t i = k.i1;
  int s = cf_find(f, i, k.fp);
  if (s < 0) {
    i = cf_alt_bucket(f->p.nbuckets, k.i1, k.fp);
    if (i == k.i1 || (s = cf_find(f, i, k.fp)) < 0) return CF_NOTFOUND;
  }
  if (f->count == 0) return CF_CORRUPT;
  cf_read(f, i, a);
  a[s] = 0;
  cf_write(f, i, a);
  f->count--;
  cf_write_count(f);
  return CF_OK;
}

/* Callback stores (e.g. the virtual table's block cache). */
int cf_store_insert(const cf_params *p, const cf_store *st, cf_key k) {
  return cf_place_x(st->read, st->write, st->ctx, p->nbuckets,
                    p->bucket_size, k.i1, k.fp);
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
  i2 = cf_alt_bucket(p->nbuckets, k.i1, k.fp);
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
    i = cf_alt_bucket(p->nbuckets, k.i1, k.fp);
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
  int rc;
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
      j = cf_alt_bucket(src->p.nbuckets, (uint32_t)i, fp);
      if (j < i && cf_count_in(src, j, fp) > 0) continue; /* seen at j */
      k.i1 = (uint32_t)i;
      k.fp = fp;
      want = cf_copies(src, k);
      for (have = cf_copies(dst, k); have < want; have++) {
        rc = cf_place(dst, (uint32_t)i, fp);
        if (rc != CF_OK) return rc;
      }
    }
  }
  return CF_OK;
}

uint64_t cf_count_slots(const cf_filter *f) {
  uint32_t a[CF_MAX_BUCKET_SIZE];
  uint64_t i, n = 0;
  unsigned s;
  for (i = 0; i < f->p.nbuckets; i++) {
    cf_read(f, (uint32_t)i, a);
    for (s = 0; s < f->p.bucket_size; s++) n += (a[s] != 0);
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

/* The load factor cf_buckets_for() plans for large filters (no margin). */
double cf_load_target(unsigned bucket_size, unsigned fp_bits) {
  return cf_target_load(bucket_size, fp_bits);
}
