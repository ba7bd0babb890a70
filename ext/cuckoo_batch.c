/*
** Copyright (c) 2026 the cuckoo authors.  MIT License: see LICENSE.
**
** cuckoo_batch.c: the core's batched operations (cf_contains_batch,
** cf_insert_batch, cf_insert_batch_copies, cf_remove_batch,
** cf_hash_int_batch): a grouped key
** pipeline with prefetch over the single-item steps of cuckoo_core_int.h,
** and on x86-64 CPUs with AVX-512 vector loops chosen at run time.  The
** same results and bytes as the single-item functions called in order
** (tests/core_test.c compares them).  No SQLite, no allocation.
*/
#include "cuckoo_core_int.h"

#include <string.h>

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
#define CF_OP_PUTC 3 /* CF_OP_PUT that counts copies (aOut) */

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
        } else if (op == CF_OP_PUT || op == CF_OP_PUTC) {
          /* CF_OP_PUTC (cf_insert_batch_copies): the item's copies once
          ** placed.  Only its own fingerprint in its own buckets counts,
          ** and the other bucket of a fingerprint is fixed by bucket and
          ** fingerprint (rule 2), so no displacement moves a copy in or
          ** out: an item whose fingerprint is in neither bucket before has
          ** exactly 1 after (nearly every item); only the others are
          ** counted. */
          int bHad = op == CF_OP_PUTC &&
                     cf_has_w(&F, mode, q->i1[r], q->i2[r], q->fp[r]);
          rc = cf_place(&F, q->i1[r], q->i2[r], q->fp[r]);
          if (rc != CF_OK) goto done;
          if (op == CF_OP_PUTC) {
            unsigned c = 1;
            if (bHad) {
              c = cf_count_in(&F, q->i1[r], q->fp[r]);
              if (q->i2[r] != q->i1[r])
                c += cf_count_in(&F, q->i2[r], q->fp[r]);
            }
            assert(c == cf_count_in(&F, q->i1[r], q->fp[r]) +
                            (q->i2[r] != q->i1[r]
                                 ? cf_count_in(&F, q->i2[r], q->fp[r])
                                 : 0));
            aOut[base + r] = (uint8_t)c;
          }
          nDone++;
          continue;
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
  static CUCKOO_NOINLINE size_t name(cf_filter *f, const uint64_t *aHash,      \
                                     size_t n, uint8_t *aOut, int *pRc,        \
                                     cf_keys_fn keys) {                        \
    return cf_batch(f, aHash, n, aOut, pRc, op, mode, pf, keys);               \
  }
CF_BATCH_FN(cf_has_swar_n, CF_OP_HAS, CF_MODE_SWAR, 0)
CF_BATCH_FN(cf_has_swar_pf, CF_OP_HAS, CF_MODE_SWAR, 1)
CF_BATCH_FN(cf_has_ss_n, CF_OP_HAS, CF_MODE_SS, 0)
CF_BATCH_FN(cf_has_ss_pf, CF_OP_HAS, CF_MODE_SS, 1)
CF_BATCH_FN(cf_has_wide_n, CF_OP_HAS, CF_MODE_WIDE, 0)
CF_BATCH_FN(cf_has_wide_pf, CF_OP_HAS, CF_MODE_WIDE, 1)
CF_BATCH_FN(cf_has_bits_n, CF_OP_HAS, CF_MODE_BITS, 0)
CF_BATCH_FN(cf_put_n, CF_OP_PUT, CF_MODE_ANY, 0)
CF_BATCH_FN(cf_put_pf, CF_OP_PUT, CF_MODE_ANY, 1)
CF_BATCH_FN(cf_putc_n, CF_OP_PUTC, CF_MODE_ANY, 0)
CF_BATCH_FN(cf_putc_pf, CF_OP_PUTC, CF_MODE_ANY, 1)
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
#if defined(__x86_64__) && defined(CF_PORT_GNU) && !defined(CF_NO_SIMD)
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

CF_TARGET_AVX512 static CF_ALWAYS_INLINE cf_keys8 cf_keys8_of(__m512i h,
                                                              __m512i vM,
                                                              __m512i vFpm) {
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
CF_TARGET_AVX512 static CF_ALWAYS_INLINE __m512i cf_at8(__m512i i,
                                                        __m512i vBits,
                                                        __m512i vLast,
                                                        __m512i *pSh) {
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
CF_TARGET_AVX512 static CF_ALWAYS_INLINE __mmask8
cf_has8_swar(__m512i w1, __m512i w2, __m512i fp, const cf_vconst *c) {
  __m512i pat = _mm512_mullo_epi64(fp, c->lo);
  __m512i x1 = _mm512_xor_si512(w1, pat), x2 = _mm512_xor_si512(w2, pat);
  __m512i z1 = _mm512_andnot_si512(x1, _mm512_sub_epi64(x1, c->lo));
  __m512i z2 = _mm512_andnot_si512(x2, _mm512_sub_epi64(x2, c->lo));
  return _mm512_test_epi64_mask(_mm512_or_si512(z1, z2), c->hi);
}

/* cf_ss_match(), eight lanes: lanes of semi-sorted word w holding fp
** (for k = f - 4 >= 5, where the multiply gather applies). */
CF_TARGET_AVX512 static CF_ALWAYS_INLINE __mmask8 cf_ss8(__m512i w, __m512i fp,
                                                         const cf_vconst *c) {
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

CF_TARGET_AVX512 static CF_ALWAYS_INLINE __mmask8
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
CF_TARGET_AVX512 static CF_ALWAYS_INLINE size_t
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
      nFound += (size_t)CF_POPCOUNT32(hit);
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
          CF_PREFETCH(t + at[0][r]);
          CF_PREFETCH(t + at[1][r]);
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
          nFound += (size_t)CF_POPCOUNT32(hit);
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
  CF_TARGET_AVX512 static CUCKOO_NOINLINE size_t name(                         \
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
  uint64_t key = cf_int_key(seed);
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
  if (CF_WIDE(f)) {
    return pf ? cf_has_wide_pf(pF, aHash, n, aFound, 0, keys)
              : cf_has_wide_n(pF, aHash, n, aFound, 0, keys);
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

size_t cf_insert_batch_copies(cf_filter *f, const uint64_t *aHash, size_t n,
                              int *pRc, uint8_t *aCopies) {
  if (aCopies == 0) return cf_insert_batch(f, aHash, n, pRc);
  if (f->table_size >= CF_PREFETCH_MIN) {
    return cf_putc_pf(f, aHash, n, aCopies, pRc, cf_keys_best());
  }
  return cf_putc_n(f, aHash, n, aCopies, pRc, cf_keys_best());
}

size_t cf_remove_batch(cf_filter *f, const uint64_t *aHash, size_t n,
                       uint8_t *aRemoved) {
  if (f->table_size >= CF_PREFETCH_MIN) {
    return cf_del_pf(f, aHash, n, aRemoved, 0, cf_keys_best());
  }
  return cf_del_n(f, aHash, n, aRemoved, 0, cf_keys_best());
}
