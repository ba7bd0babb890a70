/*
** Copyright (c) 2026 the cuckoo authors.  MIT License: see LICENSE.
**
** cuckoo_bucket.h: how buckets are stored, private to the core (its
** files include it through cuckoo_core_int.h; the SQL layer never does).
** No SQLite.
**
** Sections, in order: byte order and bit fields over any region; the two
** bucket codecs over a region (plain: b fields of f bits; semi-sorted:
** one 12-bit code of the four high nibbles, then four low parts); bucket
** words (a bucket of at most 57 bits as one 64-bit load, plain and
** semi-sorted); wide bucket words (58..121-bit plain buckets in a 128-bit
** window); decoded buckets (cf_read()/cf_write(): an array of b
** fingerprints, 0 = empty, whatever the encoding), the form every
** algorithm works on.  The BLOB layout itself is described at the top of
** cuckoo_filter.c (the header's fields in cuckoo_filter.h); the word
** arithmetic the inline lookup shares (cf_fast_win(), cf_fast_zero()) is
** in cuckoo_lookup.h, and the functions here wrap it for a cf_filter.
** Included by cuckoo_core_int.h only.
**
** Everything here is inline: the hot paths of cuckoo_filter.c and the
** batch loops of cuckoo_batch.c compile these into their own loops.
*/
#ifndef CUCKOO_BUCKET_H
#define CUCKOO_BUCKET_H

#include "cuckoo_filter.h"

#include <assert.h> /* after cuckoo_filter.h: see cuckoo_core_int.h */
#include <string.h>

/* Semi-sorted codes: 3876 of them; entry `code` of cf_ss_decode (defined
** in cuckoo_codec.c from cuckoo_sstable.h) is its four nibbles, n0 |
** n1 << 4 | n2 << 8 | n3 << 12; the 222 entries past the last code are 0. */
#define CF_SS_CODES 3876
CF_DATA_DECL const uint16_t cf_ss_decode[4098];

/* ---------------------------------------------------------------------
** Byte order
*/

CF_INLINE void cf_st64(uint8_t *p, uint64_t v) {
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
  v = CF_BSWAP64(v);
#endif
  memcpy(p, &v, 8);
}

static inline uint64_t cf_width_mask(unsigned w) {
  return w >= 64 ? ~(uint64_t)0 : (((uint64_t)1 << w) - 1);
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

/* ---------------------------------------------------------------------
** Bucket words.  A bucket of at most 57 bits (plain b*f, or semi-sorted
** 4f-4) lies inside the 8 bytes that start at its first byte.  Near the
** end of the array that window is moved back to the array's last 8
** bytes, so every bucket is one unaligned 64-bit load (and store), with
** no byte-by-byte tail and no branch.  cf_setup() enables this (f->x.swar
** for plain buckets, f->x.ssword for semi-sorted ones) when the geometry
** fits and the array has at least 8 bytes.  The window arithmetic
** itself is cf_fast_win() of cuckoo_lookup.h, which the inline lookup
** shares.
*/

/* Offset of bucket i's 8-byte window; *pShift = the bucket's first bit
** in it (0 .. 64 - bucket_bits). */
CF_INLINE size_t cf_win(const cf_filter *f, uint32_t i, unsigned *pShift) {
  assert(f->x.swar || f->x.ssword);
  assert(i < f->p.nbuckets);
  return cf_fast_win(&f->x, f->bucket_bits, i, pShift);
}

/* Bucket i's bits in the low bits of the result; the bits above them
** belong to the next buckets (callers that care mask them off). */
CF_INLINE uint64_t cf_word_raw(const cf_filter *f, uint32_t i) {
  assert(f->x.swar || f->x.ssword);
  assert(i < f->p.nbuckets);
  return cf_fast_word(&f->x, f->table, f->bucket_bits, i);
}

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
    CF_PREFETCH_W(p);
  } else {
    CF_PREFETCH(p);
  }
}

/*
** Plain bucket words.  x = bucket XOR (fp repeated in every field) has a
** zero field exactly where fp is stored; (x - lo) & ~x & hi is nonzero
** iff some field of x is zero, and its lowest set bit lies in the lowest
** zero field (a borrow only travels upward from a zero field), so it also
** gives the slot.  Bits above the bucket do not matter: hi masks them
** off and borrows never travel downward.
*/

/* Nonzero iff a slot field of plain bucket word x is zero; its lowest set
** bit lies in the lowest zero field. */
CF_INLINE uint64_t cf_zero_fields(const cf_filter *f, uint64_t x) {
  assert(f->x.swar);
  return cf_fast_zero(&f->x, x);
}

/* The slot whose field holds bit `pos` (pos < 64; f->x.slot_recip is
** ceil(2^16 / f), exact for these ranges). */
CF_INLINE unsigned cf_slot_at(const cf_filter *f, unsigned pos) {
  unsigned s = (pos * f->x.slot_recip) >> 16;
  assert(pos < 64 && s == pos / f->p.fp_bits);
  return s;
}

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
  a[CF_CTZ32(mFree)] = fp;
  cf_sort4(a);
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
/* 1 if a slot of wide bucket i holds fp: the zero-field test of plain
** bucket words (above) on the 128-bit window, with the window's wlo and
** whi (fp is not 0, so a free slot never matches). */
CF_INLINE int cf_wide_has(const cf_filter *f, uint32_t i, uint32_t fp) {
  unsigned sh;
  size_t at = cf_win16(f, i, &sh);
  cf_u128 lo = (cf_u128)f->x.wlo[0] | ((cf_u128)f->x.wlo[1] << 64);
  cf_u128 hi = (cf_u128)f->x.whi[0] | ((cf_u128)f->x.whi[1] << 64);
  cf_u128 x = (cf_ld128(f->table + at) >> sh) ^ (lo * fp);
  return ((x - lo) & ~x & hi) != 0;
}
#define CF_WIDE(f) ((f)->x.wide)
#else
#define CF_WIDE(f) 0
#define cf_wide_read(f, i, fps) ((void)0)
#define cf_wide_write(f, i, fps) ((void)0)
#define cf_wide_has(f, i, fp) 0
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
    return z ? (int)cf_slot_at(f, CF_CTZ64(z)) : -1;
  }
  if (f->x.ssword) {
    unsigned m = cf_ss_match(f, cf_word_raw(f, i), fp);
    return m ? (int)CF_CTZ32(m) : -1;
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

#endif /* CUCKOO_BUCKET_H */
