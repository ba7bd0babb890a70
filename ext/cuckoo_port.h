/*
** Copyright (c) 2026 the cuckoo authors.  MIT License: see LICENSE.
**
** cuckoo_port.h: the compiler's extensions the extension uses, one name
** each, so that no file of ext/ spells a builtin or an attribute itself.
** No SQLite.  Included first by cuckoo_lookup.h (the bottom of the core's
** include graph) and so by every file of ext/.
**
** Three branches, chosen once, here:
**   - GCC and Clang (__GNUC__ or __clang__, and not MSVC mode): the
**     builtins and attributes themselves;
**   - MSVC (_MSC_VER: cl, and clang-cl, which takes the same branch):
**     the intrinsics of <intrin.h> and __declspec / __forceinline;
**   - any other C99 compiler, or -DCF_PORT_FORCE_C: portable C, and hints
**     left out.
** CF_PORT_GNU, CF_PORT_MSVC or CF_PORT_C says which branch was compiled.
** make test-windows (tests/windows/msvc.sh) compiles the amalgamation in
** MSVC mode and checks that CF_PORT_MSVC is the one (docs/install.md#windows),
** and runs core_test built by gcc with -DCF_PORT_FORCE_C.
**
** Rules the names keep in every branch:
**   1. CF_CTZ32(x) and CF_CTZ64(x) are the number of trailing zero bits
**      of x, an unsigned 32- or 64-bit value that is not 0 (the callers
**      test it first; the builtins are undefined for 0).
**   2. CF_POPCOUNT32(x) is the number of 1 bits of a 32-bit x.
**   3. CF_BSWAP64(x) is x with its 8 bytes in the reverse order.
**   4. CF_PREFETCH(p) and CF_PREFETCH_W(p) (for a write) are hints: they
**      change no result, and may be nothing.
**   5. CUCKOO_NOINLINE keeps a function out of line (a rare path kept out
**      of a hot caller's frame), CF_ALWAYS_INLINE asks for one to be
**      inlined, CF_PURE says a function reads but writes no memory, and
**      CF_VISIBILITY_HIDDEN keeps a name out of a shared object's exports;
**      each may be nothing where the compiler has no such attribute.
**   6. CF_CONSTRUCTOR (GCC and Clang only) runs a function when the
**      library loads; without it, cuckoo_hash.c leaves the alternate-bucket
**      table unfilled and the lookups compute the same mix instead (the
**      same answers).  CF_PORT_GNU alone also guards the AVX-512 batches
**      of cuckoo_batch.c (GCC's target attribute and CPU check).
*/
#ifndef CUCKOO_PORT_H
#define CUCKOO_PORT_H

#include <stdint.h>

#if defined(_MSC_VER) && !defined(CF_PORT_FORCE_C)
/* ---- MSVC (and clang-cl) ------------------------------------------- */
#define CF_PORT_MSVC 1
#include <intrin.h>
#include <stdlib.h> /* _byteswap_uint64 */

static __forceinline unsigned cf_ctz32(uint32_t x) {
  unsigned long i;
  _BitScanForward(&i, x);
  return (unsigned)i;
}

static __forceinline unsigned cf_ctz64(uint64_t x) {
  unsigned long i;
#if defined(_M_X64) || defined(_M_ARM64)
  _BitScanForward64(&i, x);
#else
  if (!_BitScanForward(&i, (uint32_t)x)) {
    _BitScanForward(&i, (uint32_t)(x >> 32));
    i += 32;
  }
#endif
  return (unsigned)i;
}

#define CF_CTZ32(x) cf_ctz32(x)
#define CF_CTZ64(x) cf_ctz64(x)
#define CF_BSWAP64(x) _byteswap_uint64(x)
#if defined(_M_X64) || defined(_M_IX86)
#define CF_PREFETCH(p) _mm_prefetch((const char *)(p), _MM_HINT_T0)
#define CF_PREFETCH_W(p) _mm_prefetch((const char *)(p), _MM_HINT_T0)
#else
#define CF_PREFETCH(p) ((void)(p))
#define CF_PREFETCH_W(p) ((void)(p))
#endif
#define CUCKOO_NOINLINE __declspec(noinline)
#define CF_ALWAYS_INLINE __forceinline
#define CF_PURE
#define CF_VISIBILITY_HIDDEN

#elif (defined(__GNUC__) || defined(__clang__)) && !defined(CF_PORT_FORCE_C)
/* ---- GCC and Clang ------------------------------------------------- */
#define CF_PORT_GNU 1
#define CF_CTZ32(x) ((unsigned)__builtin_ctz(x))
#define CF_CTZ64(x) ((unsigned)__builtin_ctzll(x))
#define CF_POPCOUNT32(x) ((unsigned)__builtin_popcount(x))
#define CF_BSWAP64(x) __builtin_bswap64(x)
#define CF_PREFETCH(p) __builtin_prefetch((p), 0)
#define CF_PREFETCH_W(p) __builtin_prefetch((p), 1)
#define CUCKOO_NOINLINE __attribute__((noinline))
#define CF_ALWAYS_INLINE inline __attribute__((always_inline))
#define CF_PURE __attribute__((pure))
#define CF_VISIBILITY_HIDDEN __attribute__((visibility("hidden")))
#define CF_CONSTRUCTOR __attribute__((constructor))

#else
/* ---- Any other C99 compiler ---------------------------------------- */
#define CF_PORT_C 1

static inline unsigned cf_ctz64(uint64_t x) {
  unsigned n = 0;
  while (!(x & 1)) {
    x >>= 1;
    n++;
  }
  return n;
}

#define CF_CTZ32(x) cf_ctz64((uint32_t)(x))
#define CF_CTZ64(x) cf_ctz64(x)
#define CF_BSWAP64(x) cf_bswap64_c(x)
#define CF_PREFETCH(p) ((void)(p))
#define CF_PREFETCH_W(p) ((void)(p))
#define CUCKOO_NOINLINE
#define CF_ALWAYS_INLINE inline
#define CF_PURE
#define CF_VISIBILITY_HIDDEN
#endif

#ifndef CF_POPCOUNT32
/* MSVC's __popcnt needs the POPCNT instruction, which not every x86-64
** CPU has: the portable count (a few shifts and one multiplication). */
static inline unsigned cf_popcount32(uint32_t x) {
  x = x - ((x >> 1) & 0x55555555u);
  x = (x & 0x33333333u) + ((x >> 2) & 0x33333333u);
  x = (x + (x >> 4)) & 0x0f0f0f0fu;
  return (unsigned)((x * 0x01010101u) >> 24);
}
#define CF_POPCOUNT32(x) cf_popcount32(x)
#endif

#ifdef CF_PORT_C
static inline uint64_t cf_bswap64_c(uint64_t x) {
  x = ((x & 0x00ff00ff00ff00ffull) << 8) | ((x >> 8) & 0x00ff00ff00ff00ffull);
  x = ((x & 0x0000ffff0000ffffull) << 16) | ((x >> 16) & 0x0000ffff0000ffffull);
  return (x << 32) | (x >> 32);
}
#endif

#endif /* CUCKOO_PORT_H */
