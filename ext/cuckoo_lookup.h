/*
** Copyright (c) 2026 the cuckoo authors.  MIT License: see LICENSE.
**
** cuckoo_lookup.h: what the inline single-item lookup compiles into its
** callers, private to the core.  No SQLite.
**
** cuckoo_filter.h, the core's API, includes this header for two reasons
** only, both C's: a caller that declares a cf_filter needs the layout of
** its private part (cf_fast, below), and the API's inline lookups
** (cf_contains_hash(), cf_contains_int(), cf_key_in(), cf_alt_in() in
** cuckoo_filter.h) need the bodies of the arithmetic they inline.  The
** SQL layer calls only those API names; nothing here is API, and nothing
** outside the core reads a cf_fast field.  The core's other internals are
** in cuckoo_bucket.h and cuckoo_core_int.h, which only the core includes
** (cuckoo_core_int.h draws the include graph).
**
** It holds: the linkage of the extension's shared names; the key of an
** item (cf_key); the private part of a filter view (cf_fast); the format's
** frozen arithmetic (the XXH3 of 8 bytes, the key split, the alternate
** bucket); and the bucket-word steps over cf_fast that the inline lookup
** (cf_contains_hash()) and the core's files share.
*/
#ifndef CUCKOO_LOOKUP_H
#define CUCKOO_LOOKUP_H

/* The amalgamation (make dist) is a release build: the core's asserts
** are compiled out unless CUCKOO_DEBUG asks for them (as in SQLite's
** sqlite3.c).  Other builds choose with -DNDEBUG (the Makefile). */
#if defined(CUCKOO_AMALGAMATION) && !defined(CUCKOO_DEBUG) && !defined(NDEBUG)
#define NDEBUG 1
#endif

#include "cuckoo_port.h"

#include <stddef.h>
#include <stdint.h>
#include <string.h>

/*
** Linkage of every function the extension's files share (the core's cf_*,
** the SQL layer's cksql_*, the store's ckst_*): hidden, so that a shared
** build exports only sqlite3_cuckoo_init, whatever the compiler flags; the
** amalgamation (make dist) defines it as "static" first, so the names do
** not leak into a program that compiles cuckoo.c in (docs/install.md).
*/
#define CUCKOO_HIDDEN CF_VISIBILITY_HIDDEN
#ifndef CUCKOO_PRIVATE
#define CUCKOO_PRIVATE CUCKOO_HIDDEN
#endif

/*
** Linkage of the core's shared data (the semi-sorted decode table, the
** alternate-bucket table below): like CUCKOO_PRIVATE, hidden in a shared
** build and file-local in the amalgamation (which defines
** CUCKOO_AMALGAMATION first).
*/
#ifdef CUCKOO_AMALGAMATION
#define CF_DATA_DECL static
#define CF_DATA_DEF static
#else
#define CF_DATA_DECL extern CUCKOO_HIDDEN
#define CF_DATA_DEF CUCKOO_HIDDEN
#endif

#define CF_INLINE static CF_ALWAYS_INLINE

/* An item reduced to where it lives and what is stored. */
typedef struct cf_key {
  uint32_t i1; /* first candidate bucket */
  uint32_t fp; /* fingerprint, never 0 */
} cf_key;

/*
** The private part of a filter view (cf_filter.x): the whole-bucket access
** state cf_init(), cf_open(), cf_rebase() and cf_view_init() derive from
** the geometry, read by the probe below and by the core's files.  Callers
** never set or read it.  A bucket of at most 57 bits is one unaligned
** 64-bit load (the window is moved back to the array's last 8 bytes at
** its end).  swar: plain buckets of b*f <= 57 bits; ssword: semi-sorted
** buckets of 4f-4 <= 57 bits (f <= 15); both need an array of >= 8
** bytes.  top_bytes: plain buckets of a whole number of bytes, at most 8
** (b*f = 16, 24, ..., 64), read by the probe as the 8 bytes that end
** where the bucket ends, the bucket in the top bits; at the array's start
** that window reaches back into the header, so only filters in BLOB
** layout use it (cf_view_init() leaves it 0).
*/
typedef struct cf_fast {
  int swar;              /* 1 if lo and hi are in use */
  uint64_t lo;           /* 1 at the lowest bit of every slot field */
  uint64_t hi;           /* 1 at the highest bit of every slot field */
  uint64_t bucket_mask;  /* (1 << bucket_bits) - 1 */
  int ssword;            /* 1 if the ss_* fields are in use */
  uint64_t ss_lo;        /* 1 at the lowest bit of every (f-4)-bit low part */
  uint64_t ss_hi;        /* 1 at the highest bit of every low part */
  uint64_t ss_m7;        /* the bits of every low part but its highest */
  uint64_t ss_gmul;      /* gathers the low parts' match flags (f >= 9) */
  size_t win_last;       /* table_size - 8: the last window's offset */
  unsigned slot_recip;   /* ceil(2^16 / f): slot of a bit is bit*recip >> 16 */
  uint64_t key_int;      /* XXH3 key of INTEGER items under this seed */
  int wide;              /* plain buckets of 58..121 bits: 128-bit windows */
  unsigned top_bytes;    /* plain buckets of 2..8 whole bytes: their bytes */
  uint64_t top_lo;       /* lo, moved to the top of a 64-bit word */
  uint64_t top_hi;       /* hi, likewise */
  const uint8_t *top_at; /* table + top_bytes - 8: bucket i's word at
                         ** top_at + i * top_bytes */
  uint64_t top_span;     /* nbuckets * top_bytes */
  int alt_small;         /* f <= CF_ALT_TAB_BITS and cf_alt_tab is filled */
  uint64_t wlo[2];       /* wide buckets: lo as 128 bits (low, high half) */
  uint64_t whi[2];       /* wide buckets: hi likewise */
} cf_fast;

/* ---------------------------------------------------------------------
** The format's arithmetic: the hash of an 8-byte item, the key split and
** the alternate bucket.  One copy of each, for the probe below and the
** core's files.
*/

/* The little-endian 64-bit word at p. */
CF_INLINE uint64_t cf_ld64(const uint8_t *p) {
  uint64_t v;
  memcpy(&v, p, 8);
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
  v = CF_BSWAP64(v);
#endif
  return v;
}

CF_INLINE uint64_t cf_rotl64(uint64_t x, unsigned r) {
  return (x << r) | (x >> (64 - r));
}

/* XXH3-64 of 8 bytes in closed form, key = the seed's key (see
** cf_hash_int() in cuckoo_hash.c). */
CF_INLINE uint64_t cf_xxh3_8(uint64_t v, uint64_t key) {
  uint64_t h = cf_rotl64(v, 32) ^ key;
  h ^= cf_rotl64(h, 49) ^ cf_rotl64(h, 24);
  h *= 0x9fb21c651e98df25ULL;
  h ^= (h >> 35) + 8;
  h *= 0x9fb21c651e98df25ULL;
  return h ^ (h >> 28);
}

/* Map a 32-bit value uniformly onto [0, n) without division. */
CF_INLINE uint32_t cf_reduce(uint32_t x, uint64_t n) {
  return (uint32_t)(((uint64_t)x * n) >> 32);
}

/* The key split (frozen by the format): the high half of the hash picks
** the bucket, the low half a fingerprint in 1 .. fp_mask. */
CF_INLINE cf_key cf_split(uint64_t nbuckets, uint64_t fp_mask, uint64_t hash) {
  cf_key k;
  k.i1 = cf_reduce((uint32_t)(hash >> 32), nbuckets);
  k.fp = cf_reduce((uint32_t)hash, fp_mask) + 1;
  return k;
}

/*
** The mixed high half of a fingerprint, the input of the alternate
** bucket's reduction: (uint32_t)(cf_mix64(fp) >> 32) (cuckoo_core_int.h),
** computed with two fewer steps (for fp < 2^32 the mixer's first
** xorshift changes nothing, and its last one changes only the low 32
** bits, which >> 32 drops).
*/
CF_INLINE uint32_t cf_alt_mix(uint32_t fp) {
  uint64_t x = (uint64_t)fp * 0xff51afd7ed558ccdULL;
  x = (x ^ (x >> 33)) * 0xc4ceb9fe1a85ec53ULL;
  return (uint32_t)(x >> 32);
}

/*
** cf_alt_mix() of every fingerprint of at most CF_ALT_TAB_BITS bits (the
** default error rate gives 13), filled once when the program or library
** is loaded (cuckoo_hash.c; compilers without constructors leave it
** unused): the probe reads it instead of three dependent multiplications.
** 32 KB.
*/
#define CF_ALT_TAB_BITS 13
CF_DATA_DECL uint32_t cf_alt_tab[1u << CF_ALT_TAB_BITS];

/* The alternate bucket (frozen by the format): an involution for every m.
** i2 = (H(fp) - i) mod m with H(fp) = cf_reduce(cf_mix64(fp) >> 32, m);
** cf_alt_from() takes cf_alt_mix(fp).  The wrap (H < i) adds m without a
** branch. */
CF_INLINE uint32_t cf_alt_from(uint64_t nbuckets, uint32_t i, uint32_t mix) {
  uint32_t h = cf_reduce(mix, nbuckets);
  /* modulo 2^32: h - i + m is the true h + m - i (< 2^32) */
  return h - i + ((uint32_t)nbuckets & (0u - (uint32_t)(h < i)));
}

/* ---------------------------------------------------------------------
** Bucket words over cf_fast (the core's cf_filter forms of these are in
** cuckoo_bucket.h).
*/

/* cf_alt_mix(fp), from the table when x's fingerprints fit it. */
CF_INLINE uint32_t cf_fast_alt_mix(const cf_fast *x, uint32_t fp) {
  return x->alt_small ? cf_alt_tab[fp] : cf_alt_mix(fp);
}

/* Offset of the 8-byte window of bucket i (of bucket_bits bits); *pShift
** = the bucket's first bit in it (0 .. 64 - bucket_bits). */
CF_INLINE size_t cf_fast_win(const cf_fast *x, unsigned bucket_bits, uint32_t i,
                             unsigned *pShift) {
  uint64_t bit = (uint64_t)i * bucket_bits;
  size_t byte = (size_t)(bit >> 3);
  size_t at = byte < x->win_last ? byte : x->win_last;
  *pShift = (unsigned)(bit - (uint64_t)at * 8);
  return at;
}

/* Nonzero iff a slot field of plain bucket word w is zero; its lowest set
** bit lies in the lowest zero field (see "Plain bucket words" in
** cuckoo_bucket.h). */
CF_INLINE uint64_t cf_fast_zero(const cf_fast *x, uint64_t w) {
  return (w - x->lo) & ~w & x->hi;
}

/* Nonzero iff a slot field of plain bucket i (of x->top_bytes bytes, at =
** i * top_bytes) holds fingerprint fp; pat = fp * x->top_lo.  The 8 bytes
** that end with the bucket hold it in their top bits; the bits below
** belong to earlier buckets (or the header) and do not matter: borrows
** travel only upward, and top_hi has no bit there. */
CF_INLINE uint64_t cf_fast_top_has(const cf_fast *x, size_t at, uint64_t pat) {
  uint64_t w = cf_ld64(x->top_at + at) ^ pat;
  return (w - x->top_lo) & ~w;
}

/* Bucket i's bits in the low bits of the result (the bits above belong
** to the next buckets). */
CF_INLINE uint64_t cf_fast_word(const cf_fast *x, const uint8_t *table,
                                unsigned bucket_bits, uint32_t i) {
  unsigned sh;
  size_t at = cf_fast_win(x, bucket_bits, i, &sh);
  return cf_ld64(table + at) >> sh;
}

#endif /* CUCKOO_LOOKUP_H */
