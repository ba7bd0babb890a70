/*
** Copyright (c) 2026 the cuckoo authors.  MIT License: see LICENSE.
**
** cuckoo_filter.h: the core cuckoo filter, free of SQLite: its API, what
** the SQL layer includes (through cuckoo_sql.h) and calls.  The core's
** internals are in cuckoo_bucket.h and cuckoo_core_int.h, which only the
** core's files include; cuckoo_lookup.h, included below, holds what C
** needs a caller to see (the private part of cf_filter, the arithmetic
** the inline lookups compile in) and no API (cuckoo_core_int.h draws the
** include graph).
**
** A cuckoo filter (Fan, Andersen, Kaminsky, Mitzenmacher, CoNEXT 2014)
** stores an f-bit fingerprint of each item in one of two candidate
** buckets of b slots.  This module keeps the whole filter in one
** caller-owned byte buffer laid out exactly as the portable BLOB format
** (a 40-byte little-endian header followed by the bit-packed bucket
** array), so encoding is free and decoding is validation only.  The core
** never allocates: the caller sizes the buffer with cf_blob_size() and
** owns it.  That keeps the core reusable from plain C programs and lets
** the SQL layer route every allocation through sqlite3_malloc64().
**
** Rules this module keeps:
**   1. Fingerprint 0 means "empty slot"; real fingerprints are 1..2^f-1.
**   2. Any number of buckets m (1 <= m < 2^32).  Bucket i1 comes from the
**      item hash by multiply-shift; the alternate bucket is
**      i2 = (H(fp) - i) mod m, an involution for every m, so a stored
**      fingerprint can always find its other bucket.  i1 == i2 is allowed
**      (the item then has one bucket).
**   3. Deterministic: kick choices come from a hash of (fingerprint,
**      bucket, step) and a fixed look-ahead order (cf_walk_start(),
**      cf_walk_victim() and cf_place_x() in cuckoo_filter.c, shared by
**      every form of the walk), never from rand(), so equal operation
**      sequences give byte-identical buffers on every machine.
**   4. A failed insert (500 kicks without room, or more copies of one
**      item than its buckets can hold) undoes every displacement it made:
**      the filter is byte-for-byte what it was before the call.
**   5. cf_open() validates every header field against the buffer length
**      before any bucket is read; the other functions trust a handle
**      that cf_open() or cf_init() produced.  Bucket contents need no
**      validation: every bit pattern decodes to some fingerprints, so a
**      crafted table can give wrong answers but never an out-of-bounds
**      access.
**   6. Two bucket encodings (the header's flags say which): plain, b
**      fields of f bits; and semi-sorted (CF_FLAG_SEMISORT, b = 4 only,
**      the paper's section 5.2), where the four fingerprints are sorted
**      and their high 4 bits stored together as one 12-bit code, saving
**      one bit per slot.  Every algorithm works on decoded buckets (an
**      array of b fingerprints, 0 = empty), so both encodings, and
**      buckets kept outside one buffer (cf_store), share one insertion
**      algorithm.
**   7. Speed never changes results.  Buckets of at most 57 bits are read
**      as one 64-bit word and probed in a few word operations; the hot
**      paths (lookup, free-slot insert, delete, displacements of plain
**      buckets) work on those words; the batched functions overlap the
**      work of many items, prefetch, and on x86-64 CPUs with AVX-512 use
**      vector code chosen at run time.  All of them give exactly the
**      results and bytes of the field-by-field algorithm (tested).
** The core's files assert these rules where they can be checked
** (cuckoo_core_int.h says which builds compile the asserts in).
*/
#ifndef CUCKOO_FILTER_H
#define CUCKOO_FILTER_H

#include "cuckoo_lookup.h"

/*
** The BLOB header (docs/format.md#header): 40 bytes, its integers
** little-endian, read and written at these named offsets only.  cf_init()
** writes it, cf_open() checks every field against the allowed values and
** the buffer's length before anything reads the bucket array, and every
** update keeps the item count current.
**
**    0      4   5   6   7   8         16         24         32         40
**   +------+---+---+---+---+---------+----------+----------+----------+--
**   | CKOO |ver|flg| b | f |    m    | capacity |  count   |   seed   | bucket
**   +------+---+---+---+---+---------+----------+----------+----------+ array
*/
#define CF_HDR_MAGIC 0       /* 4 bytes: the ASCII bytes CF_MAGIC */
#define CF_HDR_VERSION 4     /* 1 byte: format version, CF_VERSION */
#define CF_HDR_FLAGS 5       /* 1 byte: CF_FLAG_* bits; unknown bits refused */
#define CF_HDR_BUCKET_SIZE 6 /* 1 byte: b, 2, 4 or 8 (4 if semi-sorted) */
#define CF_HDR_FP_BITS 7     /* 1 byte: f, 4..32 (5..32 if semi-sorted) */
#define CF_HDR_NBUCKETS 8    /* 8 bytes: m, 1 .. CF_MAX_BUCKETS-1 */
#define CF_HDR_CAPACITY 16   /* 8 bytes: items it was sized for, 1 .. m*b */
#define CF_HDR_COUNT 24      /* 8 bytes: items stored (copies), 0 .. m*b */
#define CF_HDR_SEED 32       /* 8 bytes: hash seed, any value */
#define CF_HEADER_SIZE 40    /* the bucket array follows, to the end */
#define CF_MAGIC "CKOO"
#define CF_VERSION 1
#define CF_MAX_KICKS 500
#define CF_MIN_FP_BITS 4
#define CF_MAX_FP_BITS 32
#define CF_MAX_BUCKETS 0xffffffffu /* exclusive upper bound */
#define CF_DEFAULT_ERROR_RATE 0.001
#define CF_DEFAULT_BUCKET_SIZE 4

#define CF_MAX_BUCKET_SIZE 8
/* True if b is a supported bucket size: 2, 4 or 8 (the one test of it). */
#define cf_bucket_size_ok(b) ((b) == 2 || (b) == 4 || (b) == 8)
#define CF_SS_MIN_FP_BITS 5 /* semi-sorted: 4 high bits + at least 1 */

/* Header flag bits; readers reject unknown bits. */
#define CF_FLAG_SEMISORT 0x01u /* semi-sorted buckets (b = 4) */
#define CF_FLAG_KNOWN 0x01u

/* Result codes. */
#define CF_OK 0
#define CF_FULL 1     /* no room after CF_MAX_KICKS displacements */
#define CF_TOO_MANY 2 /* both candidate buckets hold only this item */
#define CF_NOTFOUND 3 /* remove: no copy present */
#define CF_CORRUPT 4  /* buffer contents inconsistent (e.g. count) */
#define CF_MISMATCH 5 /* merge: different geometry or seed */
#define CF_RANGE 6    /* a parameter is out of range */
#define CF_IOERR 7    /* a cf_store accessor reported an error */

/* Geometry and identity of a filter: everything but its contents. */
typedef struct cf_params {
  uint64_t nbuckets;    /* m: 1 .. CF_MAX_BUCKETS-1 */
  uint32_t bucket_size; /* b: 2, 4 or 8 */
  uint32_t fp_bits;     /* f: CF_MIN_FP_BITS .. CF_MAX_FP_BITS */
  uint32_t flags;       /* CF_FLAG_*: the bucket encoding */
  uint64_t capacity;    /* items the filter was sized for (<= m*b) */
  uint64_t seed;        /* hash seed */
} cf_params;

/* A filter: a view of a caller-owned buffer in BLOB layout. */
typedef struct cf_filter {
  cf_params p;
  uint8_t *blob;        /* header + table; header count kept up to date */
  size_t blob_size;     /* CF_HEADER_SIZE + table_size */
  uint8_t *table;       /* blob + CF_HEADER_SIZE */
  size_t table_size;    /* ceil(m * bucket_bits / 8) */
  uint64_t count;       /* items stored (mirrors the header) */
  uint64_t fp_mask;     /* (1 << f) - 1 */
  unsigned bucket_bits; /* b * f plain, 4f - 4 semi-sorted */
  int semisort;         /* 1: semi-sorted buckets */
  cf_fast x;            /* private part (cuckoo_lookup.h): never read */
} cf_filter;

/* cf_key, an item reduced to where it lives (bucket i1) and what is
** stored (fingerprint fp), is defined in cuckoo_lookup.h. */

/*
** Choosing parameters.  cf_fp_bits_for() gives the paper's
** f = ceil(log2(2b / error_rate)), at least CF_MIN_FP_BITS; it returns 0
** if that exceeds CF_MAX_FP_BITS.  cf_params_for() fills *p for a
** capacity and error rate (and bucket size), sizing the bucket array so
** that `capacity` items fit at the load factor the bucket size reliably
** reaches; its fingerprints are at least 5 bits (7 with b = 2), the
** fewest that reach that load in large tables.  Returns CF_OK or
** CF_RANGE.
*/
CUCKOO_PRIVATE unsigned cf_fp_bits_for(double error_rate, unsigned bucket_size);
/* The fewest fingerprint bits cf_params_for() gives: 7 for b = 2, else 5. */
CUCKOO_PRIVATE unsigned cf_min_fp_bits(unsigned bucket_size);
CUCKOO_PRIVATE int cf_params_for(cf_params *p, uint64_t capacity,
                                 double error_rate, unsigned bucket_size,
                                 uint64_t seed);
/* Checks a parameter set; returns CF_OK or CF_RANGE. */
CUCKOO_PRIVATE int cf_params_check(const cf_params *p);

/* Bits of one encoded bucket, bytes of the bucket array and of the whole
** BLOB for these parameters. */
CUCKOO_PRIVATE unsigned cf_bucket_bits(const cf_params *p);
CUCKOO_PRIVATE uint64_t cf_table_size(const cf_params *p);
CUCKOO_PRIVATE uint64_t cf_blob_size(const cf_params *p);

/*
** cf_init() writes an empty filter into buf (cf_blob_size(p) bytes) and
** makes *f a view of it.  cf_open() validates an existing BLOB of n bytes
** and makes *f a view of it (buf is written to only by later updates).
** cf_open() returns CF_OK or CF_CORRUPT and, on CF_CORRUPT, a static
** message saying which field is wrong in *pzWhy (if pzWhy is not NULL).
*/
CUCKOO_PRIVATE int cf_init(cf_filter *f, const cf_params *p, void *buf);
CUCKOO_PRIVATE int cf_open(cf_filter *f, const void *buf, size_t n,
                           const char **pzWhy);

/* Retarget a filter view at a copy of its buffer (same size). */
CUCKOO_PRIVATE void cf_rebase(cf_filter *f, void *buf);

/*
** Hashing items.  Each SQL value kind hashes into its own space (the kind
** is folded into the seed), integers as 8 little-endian bytes, so results
** are identical on every machine.  cf_hash_real() maps a REAL equal to an
** integer (including -0.0) to that integer's hash, so 42 and 42.0 are one
** item.
*/
CUCKOO_PRIVATE uint64_t cf_hash_int(uint64_t seed, int64_t v);
CUCKOO_PRIVATE uint64_t cf_hash_real(uint64_t seed, double v);
CUCKOO_PRIVATE uint64_t cf_hash_text(uint64_t seed, const void *z, size_t n);
CUCKOO_PRIVATE uint64_t cf_hash_blob(uint64_t seed, const void *z, size_t n);
/* The XXH3 key of INTEGER items under seed: cf_hash_int(seed, v) is
** cf_hash_int_keyed(cf_int_key(seed), v) (below), for callers that hash
** many integers under one seed (cf_filter keeps it for
** cf_contains_int()). */
CUCKOO_PRIVATE uint64_t cf_int_key(uint64_t seed);

/* Split a 64-bit item hash into bucket and fingerprint for filter f. */
CUCKOO_PRIVATE cf_key cf_key_of(const cf_filter *f, uint64_t hash);
/* cf_key_in() and cf_alt_in() (inline, at the end of this header): the
** key and the alternate bucket from parameters alone, for stores that
** keep buckets elsewhere (the virtual table's store). */

/* Operations on one item.  cf_insert: CF_OK, CF_FULL or CF_TOO_MANY, and
** on failure the filter is unchanged.  cf_remove: CF_OK, CF_NOTFOUND or
** CF_CORRUPT (a fingerprint found while the header count is 0). */
CUCKOO_PRIVATE int cf_insert(cf_filter *f, cf_key k);
/* cf_contains() only reads (CF_PURE): a loop around the inline lookups
** below, which call it for the geometries they do not handle, can keep the
** filter's fields in registers across the call (cuckoo_port.h). */
CUCKOO_PRIVATE CF_PURE int cf_contains(const cf_filter *f, cf_key k);
CUCKOO_PRIVATE int cf_remove(cf_filter *f, cf_key k);

/*
** Batched operations on n item hashes (as from cf_hash_*): the same
** results, and the same bytes, as the single-item functions called on
** each hash in order, but faster on large filters: the keys and both
** candidate buckets of items a few places ahead are computed and
** prefetched while the current item is handled.
**
** cf_contains_batch: aFound[i] = 1 if item i is probably present, else 0
** (aFound may be NULL); returns the number found.
** cf_insert_batch: inserts in order and stops at the first item that does
** not fit; returns the number inserted and sets *pRc (if not NULL) to CF_OK
** or to that item's CF_FULL / CF_TOO_MANY (the filter then holds exactly
** the items before it).
** cf_remove_batch: removes one copy of each item; aRemoved[i] = 1 if a copy
** was removed (aRemoved may be NULL); returns the number removed.
*/
CUCKOO_PRIVATE size_t cf_contains_batch(const cf_filter *f,
                                        const uint64_t *aHash, size_t n,
                                        uint8_t *aFound);
CUCKOO_PRIVATE size_t cf_insert_batch(cf_filter *f, const uint64_t *aHash,
                                      size_t n, int *pRc);
/* cf_insert_batch, and aCopies[i] (for each item inserted) = the copies
** of item i's fingerprint in its two buckets just after it was placed
** (cf_copies() then; at most 2b), read while they are in the cache.  A
** displacement keeps a fingerprint within its two buckets, so only later
** copies of the same fingerprint and buckets raise that count.  aCopies
** NULL: cf_insert_batch. */
CUCKOO_PRIVATE size_t cf_insert_batch_copies(cf_filter *f,
                                             const uint64_t *aHash, size_t n,
                                             int *pRc, uint8_t *aCopies);
CUCKOO_PRIVATE size_t cf_remove_batch(cf_filter *f, const uint64_t *aHash,
                                      size_t n, uint8_t *aRemoved);
/* aHash[i] = cf_hash_int(seed, aV[i]) for i < n. */
CUCKOO_PRIVATE void cf_hash_int_batch(uint64_t seed, const int64_t *aV,
                                      size_t n, uint64_t *aHash);

/* Copies of fingerprint k.fp in k's candidate buckets (0 .. 2b). */
CUCKOO_PRIVATE unsigned cf_copies(const cf_filter *f, cf_key k);

/*
** Union of src into dst as multisets of stored fingerprints: where src
** holds n copies of a fingerprint in a bucket pair and dst holds fewer,
** dst gets copies up to n (so merging a filter into itself, or merging
** daily sets into a monthly one, never multiplies copies).  Both must
** have the same geometry and seed (else CF_MISMATCH, nothing changed).
** On CF_FULL or CF_TOO_MANY dst holds a partial merge: callers merge
** into a scratch copy and discard it on failure.
*/
CUCKOO_PRIVATE int cf_merge(cf_filter *dst, const cf_filter *src);
/* Non-empty slots counted by scanning the table (for integrity checks):
** of the whole table, or of buckets 0..nBuckets-1 of a region laid out
** like it (below).  Both skip runs of CF_COUNT_RUN buckets whose bytes
** are all zero.  cf_zero(): true if the n bytes at a are all zero. */
#define CF_COUNT_RUN 64
CUCKOO_PRIVATE uint64_t cf_count_slots(const cf_filter *f);
CUCKOO_PRIVATE uint64_t cf_region_slots(const cf_params *p, const uint8_t *t,
                                        size_t size, uint64_t nBuckets);
CUCKOO_PRIVATE int cf_zero(const uint8_t *a, size_t n);

/*
** Decoded buckets.  cf_bucket_get() fills fps[0..b-1] with bucket i's
** fingerprints (0: empty slot; a semi-sorted bucket comes back sorted).
** cf_region_set() encodes fps[0..b-1] into bucket j of a region
** (semi-sorted buckets sort a copy first).  The region forms work on any
** byte range laid out like the bucket array from its bit 0 (bucket j at
** bit j*bucket_bits), for stores that keep runs of buckets in separate
** blocks; size is the region's length in bytes, and bucket j must lie
** inside it.
*/
CUCKOO_PRIVATE void cf_bucket_get(const cf_filter *f, uint32_t i,
                                  uint32_t *fps);
CUCKOO_PRIVATE void cf_region_get(const cf_params *p, const uint8_t *t,
                                  size_t size, uint64_t j, uint32_t *fps);
CUCKOO_PRIVATE void cf_region_set(const cf_params *p, uint8_t *t, size_t size,
                                  uint64_t j, const uint32_t *fps);

/*
** Callback stores: the insertion algorithm over buckets kept elsewhere
** (the virtual table keeps them in blocks of a shadow table; it looks
** items up and removes them through block views, below).  read fills
** fps[0..b-1] with bucket i's fingerprints; write stores them (the
** store encodes, e.g. with cf_region_set).  Both return 0 on success,
** nonzero on error (the store keeps its own error code in ctx); a write
** that fails must leave the bucket as it was.  The operation then
** returns CF_IOERR, having undone its displacements (as far as the store
** lets it write).  It does not track an item count: the caller does.
** Returns CF_OK, CF_FULL, CF_TOO_MANY or CF_IOERR.
*/
typedef struct cf_store {
  void *ctx;
  int (*read)(void *ctx, uint32_t bucket, uint32_t *fps);
  int (*write)(void *ctx, uint32_t bucket, const uint32_t *fps);
} cf_store;
CUCKOO_PRIVATE int cf_store_insert(const cf_params *p, const cf_store *st,
                                   cf_key k);

/*
** Block views: the in-memory bucket operations (word-level where the
** geometry allows) on a region laid out like the bucket array, for
** stores that keep runs of buckets in blocks.  cf_view_init() makes *f a
** view of regions of nbuckets buckets of p's geometry (nbuckets a
** multiple of 8, so a region is nbuckets*bucket_bits/8 bytes); the caller
** then points f->table at a region before each call (f->blob and the
** count are unused).  j is a bucket of the region.  The slots chosen and
** the bytes written are those of cf_region_get()/cf_region_set() and the
** callback algorithms: cf_view_put() takes the lowest free slot (a
** semi-sorted bucket stays sorted) and returns 0 without a change if
** there is none; cf_view_del() clears the first slot holding fp and
** returns 0 if none does; cf_view_free() says whether bucket j has a
** free slot.  cf_view_init() returns CF_OK or CF_RANGE.
*/
CUCKOO_PRIVATE int cf_view_init(cf_filter *f, const cf_params *p,
                                uint32_t nbuckets);
CUCKOO_PRIVATE int cf_view_has(const cf_filter *f, uint32_t j, uint32_t fp);
CUCKOO_PRIVATE int cf_view_free(const cf_filter *f, uint32_t j);
CUCKOO_PRIVATE int cf_view_put(cf_filter *f, uint32_t j, uint32_t fp);
CUCKOO_PRIVATE int cf_view_del(cf_filter *f, uint32_t j, uint32_t fp);

/* Expected false-positive rate of a lookup at the current load. */
CUCKOO_PRIVATE double cf_expected_fpr(const cf_filter *f);

/* Little-endian helpers shared with the SQL layer. */
CUCKOO_PRIVATE uint64_t cf_get_u64(const uint8_t *p);
CUCKOO_PRIVATE void cf_put_u64(uint8_t *p, uint64_t v);

/* The load factor cf_params_for() plans for large filters of this bucket
** size and fingerprint width (before its small-table margin).  The
** aggregates start their exact sizing from it. */
CUCKOO_PRIVATE double cf_load_target(unsigned bucket_size, unsigned fp_bits);

/*
** Inline lookups, the API's hot paths: the same answers as the functions
** above, compiled into the caller's loop (cuckoo_lookup.h holds what they
** inline).
**
** cf_hash_int_keyed(key, v) is cf_hash_int(seed, v) for key =
** cf_int_key(seed), for callers that hash many integers under one seed.
**
** cf_key_in(p, hash) is the key of an item hash in a filter of geometry
** p, and cf_alt_in(p, i, fp) the other candidate bucket of fingerprint fp
** stored in bucket i (i < p->nbuckets; cf_alt_in(p, cf_alt_in(p, i, fp),
** fp) is i): for stores that keep the buckets of p's geometry outside one
** buffer (cf_store, block views), whose p is checked (cf_params_check()).
**
** cf_contains_hash(f, hash) is cf_contains(f, cf_key_of(f, hash)) and
** cf_contains_int(f, v) is cf_contains_hash(f, cf_hash_int(f->p.seed, v)):
** the same answers, but for plain buckets of at most 64 bits that are
** whole bytes (b = 4 with f = 4, 6, ... 16, b = 2 with f = 8, 12, ... 32,
** b = 8 with f <= 8) or of at most 57 bits (b = 4 with f <= 14, b = 2 with
** f <= 28) the hash, the key split, the alternate bucket and both bucket
** tests compile into the caller's loop, with no call; other geometries
** call cf_contains().
*/
CF_INLINE uint64_t cf_hash_int_keyed(uint64_t key, int64_t v) {
  return cf_xxh3_8((uint64_t)v, key);
}

CF_INLINE cf_key cf_key_in(const cf_params *p, uint64_t hash) {
  /* (1 << f) - 1 without a branch for f = 32 */
  return cf_split(p->nbuckets, ((uint64_t)2 << (p->fp_bits - 1)) - 1, hash);
}

CF_INLINE uint32_t cf_alt_in(const cf_params *p, uint32_t i, uint32_t fp) {
  return cf_alt_from(p->nbuckets, i, cf_alt_mix(fp));
}

CF_INLINE int cf_contains_hash(const cf_filter *f, uint64_t hash) {
  const cf_fast *x = &f->x;
  cf_key k = cf_split(f->p.nbuckets, f->fp_mask, hash);
  if (x->top_bytes) {
    /* The alternate bucket's offset straight from H(fp) (cf_alt_from():
    ** i2 = H - i1, plus m when H < i1), without i2 itself: the multiply
    ** by top_bytes then runs beside the comparison, not after it. */
    uint32_t h = cf_reduce(cf_fast_alt_mix(x, k.fp), f->p.nbuckets);
    uint64_t at1 = (uint64_t)k.i1 * x->top_bytes;
    uint64_t at2 = (uint64_t)h * x->top_bytes - at1 +
                   (x->top_span & (0 - (uint64_t)(h < k.i1)));
    uint64_t pat = k.fp * x->top_lo;
    return ((cf_fast_top_has(x, (size_t)at1, pat) |
             cf_fast_top_has(x, (size_t)at2, pat)) &
            x->top_hi) != 0;
  }
  if (x->swar) {
    uint32_t i2 = cf_alt_from(f->p.nbuckets, k.i1, cf_fast_alt_mix(x, k.fp));
    uint64_t pat = k.fp * x->lo;
    return (cf_fast_zero(x, cf_fast_word(x, f->table, f->bucket_bits, k.i1) ^
                                pat) |
            cf_fast_zero(x, cf_fast_word(x, f->table, f->bucket_bits, i2) ^
                                pat)) != 0;
  }
  return cf_contains(f, k);
}

CF_INLINE int cf_contains_int(const cf_filter *f, int64_t v) {
  return cf_contains_hash(f, cf_hash_int_keyed(f->x.key_int, v));
}

#endif /* CUCKOO_FILTER_H */
