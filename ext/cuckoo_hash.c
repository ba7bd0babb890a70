/*
** Copyright (c) 2026 the cuckoo authors.  MIT License: see LICENSE.
**
** cuckoo_hash.c: hashing items and splitting a hash into a bucket and a
** fingerprint (the split and the alternate bucket themselves are inline in
** cuckoo_lookup.h).  The hash of an item is part of the BLOB format: it
** must never change.  No SQLite, no allocation.
*/
#include "cuckoo_core_int.h"

#include <math.h>

#define XXH_INLINE_ALL
#include <xxhash.h>

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
** cf_xxh3_8() itself is in cuckoo_lookup.h (the inline lookups use it).
*/
CF_INLINE uint64_t cf_xxh3_key8(uint64_t seed) {
  seed ^= (uint64_t)XXH_swap32((uint32_t)seed) << 32;
  return (XXH_readLE64(XXH3_kSecret + 8) ^ XXH_readLE64(XXH3_kSecret + 16)) -
         seed;
}

uint64_t cf_int_key(uint64_t seed) { return cf_xxh3_key8(seed ^ CF_KIND_INT); }

/* cf_alt_tab (cuckoo_lookup.h), and whether it is filled. */
CF_DATA_DEF uint32_t cf_alt_tab[1u << CF_ALT_TAB_BITS];
static int cf_alt_tab_ready;

#ifdef CF_CONSTRUCTOR
CF_CONSTRUCTOR static void cf_alt_tab_fill(void) {
  uint32_t fp;
  for (fp = 0; fp < (1u << CF_ALT_TAB_BITS); fp++)
    cf_alt_tab[fp] = cf_alt_mix(fp);
  cf_alt_tab_ready = 1;
}
#endif

int cf_alt_tab_usable(unsigned fp_bits) {
  return cf_alt_tab_ready && fp_bits <= CF_ALT_TAB_BITS;
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
  return cf_key_at(f, hash);
}

uint32_t cf_alt_bucket(uint64_t nbuckets, uint32_t i, uint32_t fp) {
  return cf_alt(nbuckets, i, fp);
}
