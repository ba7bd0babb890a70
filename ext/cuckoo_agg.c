/*
** Copyright (c) 2026 the cuckoo authors.  MIT License: see LICENSE.
**
** cuckoo_agg.c: the aggregate and window functions.
**
**   cuckoo_agg(item [, error_rate [, capacity [, options]]])
**       aggregate: a filter of the group's distinct non-NULL items;
**       window function: the same for each row's frame.
**   cuckoo_union(filter)
**       aggregate: the union of the group's filters; window function over
**       frames that start at UNBOUNDED PRECEDING (running unions).
**
** Rules:
**   1. Items are hashed by cksql_item_hash() (docs/format.md#item-identity)
**      with the seed of the options (default 0).  The 64-bit hash does not
**      depend on the filter's geometry, so the hashes are collected first
**      and the table sized afterwards.  NULL items are skipped.  Two
**      distinct items with the same 64-bit hash count as one (about
**      n^2 / 2^65 for n items: negligible).
**   2. error_rate (NULL: 0.001), capacity (NULL: size to the items) and
**      options (NULL: defaults; as cuckoo_new) are read from the first row
**      of a group or partition and must be the same on every row.
**   3. Exact size (no capacity): with n = max(1, distinct items) and b, f,
**      variant and seed as cuckoo_new(n, error_rate, options) chooses them,
**      the filter has capacity n and the first bucket count in the sequence
**      m0 = max(1, ceil(n / (b*T))), m' = m + max(1, m/64)
**      (T = cf_load_target(b, f), 0.93 for b = 4) at which adding the
**      distinct hashes in ascending order (cf_insert, exactly as cuckoo_add
**      adds) places every one.  The BLOB therefore depends only on the set
**      of distinct items and the arguments, never on the order of the rows;
**      it never holds a duplicate and is never full.
**   4. Fixed geometry (capacity given): cuckoo_new(capacity, error_rate,
**      options) with the distinct items added in ascending hash order.  An
**      item that does not fit is the "full" error.
**   5. Memory while collecting: an array of 8-byte hashes.  When it fills
**      up, its unsorted tail is radix-sorted and merged into the sorted,
**      duplicate-free head (keeping copy counts, which only a window needs:
**      a uint32 per entry, allocated at the first duplicate); the array
**      doubles only if it is then more than half full.  So it never
**      allocates more than 4 entries per distinct item; the build frees
**      the counts and needs the hashes (8 bytes per distinct item) plus
**      the filter.  The first 16 hashes live inside the aggregate context
**      (no allocation for small groups).
**   6. Window use: the first xValue or xInverse turns the collected hashes
**      into a hash -> copies map of the frame plus a filter that is updated
**      in place: a row entering adds its item's fingerprint when its copy
**      count goes 0 -> 1, a row leaving removes it when the count goes
**      1 -> 0, so an item still in the frame stays present.  Without a
**      capacity the filter has the geometry of cuckoo_new(c, error_rate,
**      options), c a power of two >= 64 holding between c/4 and c distinct
**      items: doubled (rebuilt from the map) when the frame holds more than
**      c distinct items (or one does not fit), halved when fewer than c/4
**      remain.  With a capacity it keeps that geometry and a frame with too
**      many distinct items is the "full" error.  xValue returns a copy.
**      Cost per row: O(1) expected map and filter work (rebuilds amortized)
**      plus the copy of the BLOB.
**   7. cuckoo_union: NULL filters are skipped; the first non-NULL filter is
**      copied and each later one merged into it with cf_merge (multiset
**      union, as cuckoo_merge).  Different geometry or seed is an error
**      naming both.  No non-NULL filter: NULL.  As a window function it
**      cannot take a filter back out (xInverse of a non-NULL filter is an
**      error), so its frames must start at UNBOUNDED PRECEDING.
**   8. No row at all (an aggregate without GROUP BY over no rows, or a
**      window frame before any row of the partition): SQLite passes no
**      arguments then, so only the one-argument cuckoo_agg can answer (an
**      empty filter with the defaults); the other forms give NULL.  A
**      group whose items are all NULL gives an empty filter.
**   9. Errors name the function.  Sizes are checked against
**      SQLITE_LIMIT_LENGTH before allocating (SQLITE_TOOBIG); out of
**      memory is SQLITE_NOMEM.  After an error the context frees
**      everything and ignores later calls; xFinal always frees.
**  10. Registered SQLITE_DETERMINISTIC | SQLITE_INNOCUOUS.
*/
#include "cuckoo_sql.h"

#include <math.h>
#include <string.h>

#define CK_INLINE 16      /* hashes kept inside the aggregate context */
#define CK_SMALL_SORT 64  /* insertion sort up to this many hashes */
#define CK_WIN_MIN_CAP 64 /* smallest capacity of a window's filter */

/* ---------------------------------------------------------------------
** Errors
*/

/* Return a copy of filter f as the result (f stays with its owner). */
static void ck_result_copy(sqlite3_context *ctx, const cf_filter *f) {
  void *copy = sqlite3_malloc64(f->blob_size);
  if (copy == 0) {
    cksql_result_error(ctx, SQLITE_NOMEM, 0);
    return;
  }
  memcpy(copy, f->blob, f->blob_size);
  sqlite3_result_blob64(ctx, copy, f->blob_size, sqlite3_free);
}

/* ---------------------------------------------------------------------
** Sorting hashes
*/

static void ck_insertion_sort(uint64_t *a, size_t n) {
  size_t i, j;
  for (i = 1; i < n; i++) {
    uint64_t v = a[i];
    for (j = i; j > 0 && a[j - 1] > v; j--)
      a[j] = a[j - 1];
    a[j] = v;
  }
}

/*
** LSD radix sort of a[0..n), 8 bits per pass, with tmp[0..n) as scratch.
** Passes where every key has the same digit are skipped.  Returns the
** buffer (a or tmp) that holds the sorted keys.
*/
static uint64_t *ck_radix_sort(uint64_t *a, uint64_t *tmp, size_t n) {
  size_t cnt[8][256];
  uint64_t *src = a, *dst = tmp, *x;
  size_t i;
  unsigned d, k;
  memset(cnt, 0, sizeof(cnt));
  for (i = 0; i < n; i++) {
    uint64_t v = a[i];
    for (d = 0; d < 8; d++)
      cnt[d][(v >> (8 * d)) & 255]++;
  }
  for (d = 0; d < 8; d++) {
    size_t sum = 0, c, *pos = cnt[d];
    unsigned shift = 8 * d;
    if (pos[(a[0] >> shift) & 255] == n) continue;
    for (k = 0; k < 256; k++) {
      c = pos[k];
      pos[k] = sum;
      sum += c;
    }
    for (i = 0; i < n; i++) {
      uint64_t v = src[i];
      dst[pos[(v >> shift) & 255]++] = v;
    }
    x = src;
    src = dst;
    dst = x;
  }
  return src;
}

/* ---------------------------------------------------------------------
** Collected hashes (rule 5)
*/

typedef struct ck_hashes {
  uint64_t *a;           /* aInline or sqlite3_malloc64(), nAlloc entries */
  uint32_t *aCount;      /* copies of a[0..nSorted), or NULL: one each */
  sqlite3_int64 n;       /* entries in use */
  sqlite3_int64 nSorted; /* a[0..nSorted): ascending, no duplicates */
  sqlite3_int64 nAlloc;  /* entries allocated */
  uint64_t aInline[CK_INLINE];
} ck_hashes;

static void ck_hashes_free(ck_hashes *h) {
  if (h->a != h->aInline) sqlite3_free(h->a);
  sqlite3_free(h->aCount);
  h->a = h->aInline;
  h->aCount = 0;
  h->n = h->nSorted = 0;
  h->nAlloc = CK_INLINE;
}

static uint32_t ck_sat_add(uint32_t a, uint32_t b) {
  return a > 0xffffffffu - b ? 0xffffffffu : a + b;
}

/*
** Sort the unsorted tail and merge it into the head, dropping duplicates
** and adding up their copies.  The merge runs from the back, reading the
** tail from a sorted copy, so it never overwrites an unread head entry.
** On SQLITE_NOMEM the array is left inconsistent: the caller abandons it.
*/
static int ck_hashes_compact(ck_hashes *h) {
  uint64_t aStack[CK_SMALL_SORT];
  uint64_t *a = h->a, *t = aStack, *s;
  sqlite3_int64 nTail = h->n - h->nSorted, i, j, w;
  if (nTail == 0) return SQLITE_OK;
  if (nTail <= CK_SMALL_SORT) {
    memcpy(t, a + h->nSorted, (size_t)nTail * sizeof(uint64_t));
    ck_insertion_sort(t, (size_t)nTail);
  } else {
    t = sqlite3_malloc64((sqlite3_uint64)nTail * sizeof(uint64_t));
    if (t == 0) return SQLITE_NOMEM;
    s = ck_radix_sort(a + h->nSorted, t, (size_t)nTail);
    if (s != t) memcpy(t, s, (size_t)nTail * sizeof(uint64_t));
  }
  i = h->nSorted - 1;
  j = nTail - 1;
  w = h->n; /* a[w..n) is the merged, duplicate-free result so far */
  while (i >= 0 || j >= 0) {
    uint64_t v;
    uint32_t c = 1;
    if (j < 0 || (i >= 0 && a[i] > t[j])) {
      v = a[i];
      if (h->aCount) c = h->aCount[i];
      i--;
    } else {
      v = t[j--];
    }
    if (w < h->n && a[w] == v) {
      if (h->aCount == 0) {
        /* First duplicate: every count so far is 1. */
        sqlite3_int64 k;
        h->aCount =
            sqlite3_malloc64((sqlite3_uint64)h->nAlloc * sizeof(uint32_t));
        if (h->aCount == 0) {
          if (t != aStack) sqlite3_free(t);
          return SQLITE_NOMEM;
        }
        for (k = 0; k < h->nAlloc; k++)
          h->aCount[k] = 1;
      }
      h->aCount[w] = ck_sat_add(h->aCount[w], c);
    } else {
      a[--w] = v;
      if (h->aCount) h->aCount[w] = c;
    }
  }
  if (t != aStack) sqlite3_free(t);
  h->n = h->n - w;
  memmove(a, a + w, (size_t)h->n * sizeof(uint64_t));
  if (h->aCount) memmove(h->aCount, h->aCount + w, (size_t)h->n * 4);
  h->nSorted = h->n;
  return SQLITE_OK;
}

/* Make room for one more hash: compact, and double if still half full. */
static int ck_hashes_make_room(ck_hashes *h) {
  sqlite3_int64 nNew = 2 * h->nAlloc;
  uint64_t *aNew;
  int rc = ck_hashes_compact(h);
  if (rc != SQLITE_OK || h->n <= h->nAlloc / 2) return rc;
  if (h->a == h->aInline) {
    aNew = sqlite3_malloc64((sqlite3_uint64)nNew * sizeof(uint64_t));
    if (aNew) memcpy(aNew, h->a, (size_t)h->n * sizeof(uint64_t));
  } else {
    aNew = sqlite3_realloc64(h->a, (sqlite3_uint64)nNew * sizeof(uint64_t));
  }
  if (aNew == 0) return SQLITE_NOMEM;
  h->a = aNew;
  h->nAlloc = nNew;
  if (h->aCount) {
    uint32_t *c =
        sqlite3_realloc64(h->aCount, (sqlite3_uint64)nNew * sizeof(uint32_t));
    if (c == 0) return SQLITE_NOMEM;
    h->aCount = c;
  }
  return SQLITE_OK;
}

/* ---------------------------------------------------------------------
** A hash -> copies map for window frames: open addressing, linear
** probing, at most half full, backward-shift deletion (no tombstones).
** A slot with n == 0 is empty.
*/

typedef struct ck_slot {
  uint64_t h;
  uint64_t n;
} ck_slot;

typedef struct ck_map {
  ck_slot *a;
  uint64_t mask;  /* slots - 1 (slots a power of two) */
  unsigned shift; /* 64 - log2(slots) */
  uint64_t nUsed;
} ck_map;

static uint64_t ck_map_home(const ck_map *m, uint64_t h) {
  return (h * 0x9e3779b97f4a7c15ULL) >> m->shift;
}

/* Slot holding h, or the empty slot where it would go. */
static uint64_t ck_map_find(const ck_map *m, uint64_t h) {
  uint64_t i = ck_map_home(m, h);
  while (m->a[i].n && m->a[i].h != h)
    i = (i + 1) & m->mask;
  return i;
}

/* Rehash into 2^logSlots slots. */
static int ck_map_resize(ck_map *m, unsigned logSlots) {
  ck_map nw;
  uint64_t i;
  nw.a = sqlite3_malloc64(((sqlite3_uint64)1 << logSlots) * sizeof(ck_slot));
  if (nw.a == 0) return SQLITE_NOMEM;
  memset(nw.a, 0, ((size_t)1 << logSlots) * sizeof(ck_slot));
  nw.mask = ((uint64_t)1 << logSlots) - 1;
  nw.shift = 64 - logSlots;
  nw.nUsed = m->nUsed;
  for (i = 0; m->a && i <= m->mask; i++) {
    if (m->a[i].n) nw.a[ck_map_find(&nw, m->a[i].h)] = m->a[i];
  }
  sqlite3_free(m->a);
  *m = nw;
  return SQLITE_OK;
}

/* Add c copies of h; *pIsNew says whether h was absent. */
static int ck_map_add(ck_map *m, uint64_t h, uint64_t c, int *pIsNew) {
  uint64_t i;
  if (m->a == 0 || 2 * (m->nUsed + 1) > m->mask + 1) {
    unsigned lg = 4;
    while (((uint64_t)1 << lg) < 4 * (m->nUsed + 1))
      lg++;
    if (ck_map_resize(m, lg) != SQLITE_OK) return SQLITE_NOMEM;
  }
  i = ck_map_find(m, h);
  *pIsNew = m->a[i].n == 0;
  if (*pIsNew) {
    m->a[i].h = h;
    m->nUsed++;
  }
  m->a[i].n += c;
  return SQLITE_OK;
}

/* Take one copy of h away; returns the copies left, or -1 if absent. */
static sqlite3_int64 ck_map_dec(ck_map *m, uint64_t h) {
  uint64_t i, j;
  if (m->a == 0) return -1;
  i = ck_map_find(m, h);
  if (m->a[i].n == 0) return -1;
  if (--m->a[i].n > 0) return (sqlite3_int64)m->a[i].n;
  m->nUsed--;
  /* Backward shift: pull later entries of the cluster into the hole if
  ** their home does not lie cyclically in (hole, j]. */
  for (j = (i + 1) & m->mask; m->a[j].n; j = (j + 1) & m->mask) {
    uint64_t k = ck_map_home(m, m->a[j].h);
    if (i <= j ? (k <= i || k > j) : (k <= i && k > j)) {
      m->a[i] = m->a[j];
      i = j;
    }
  }
  m->a[i].n = 0;
  return 0;
}

/* ---------------------------------------------------------------------
** cuckoo_agg
*/

#define CK_EMPTY 0   /* no row seen (the context is zeroed) */
#define CK_COLLECT 1 /* collecting hashes (rule 5) */
#define CK_WINDOW 2  /* map + live filter (rule 6) */
#define CK_FAILED 3  /* an error was reported; everything freed */

typedef struct ck_agg {
  int eState;
  sqlite3_int64 nRow;     /* rows stepped (for messages) */
  double error_rate;      /* as given (default applied) */
  sqlite3_int64 capacity; /* 0: size to the items */
  char *zOpts;            /* options text of the first row, or NULL */
  cf_params p;            /* b, f, variant, seed; whole geometry if fixed */
  cksql_hasher hasher;    /* the item hash under p.seed */
  ck_hashes h;            /* CK_COLLECT */
  ck_map map;             /* CK_WINDOW: hash -> copies in the frame */
  cf_filter f;            /* CK_WINDOW: the frame's filter (f.blob owned) */
  sqlite3_int64 winCap;   /* CK_WINDOW: capacity of f */
} ck_agg;

static void ck_agg_release(ck_agg *p) {
  ck_hashes_free(&p->h);
  sqlite3_free(p->map.a);
  p->map.a = 0;
  p->map.nUsed = 0;
  sqlite3_free(p->f.blob);
  p->f.blob = 0;
  sqlite3_free(p->zOpts);
  p->zOpts = 0;
}

static void ck_agg_fail(ck_agg *p) {
  ck_agg_release(p);
  p->eState = CK_FAILED;
}

/* Parameters with every argument at its default (one-argument form). */
static void ck_agg_defaults(ck_agg *p) {
  cksql_options o;
  char *zErr = 0;
  cksql_options_default(&o);
  p->error_rate = CF_DEFAULT_ERROR_RATE;
  p->capacity = 0;
  cksql_params(0, "cuckoo_agg", 1, p->error_rate, &o, &p->p, &zErr);
  sqlite3_free(zErr); /* the defaults are always valid */
  cksql_hasher_init(&p->hasher, p->p.seed);
}

/* Read and check the parameters on the first row of a group (the same
** reader as cuckoo_new's). */
static int ck_agg_init(sqlite3_context *ctx, ck_agg *p, int argc,
                       sqlite3_value **argv) {
  cksql_args args;
  int rc;
  p->h.a = p->h.aInline;
  p->h.nAlloc = CK_INLINE;
  if (argc == 1) {
    ck_agg_defaults(p);
    return SQLITE_OK;
  }
  rc = cksql_read_args(ctx, "cuckoo_agg", argc > 2 ? argv[2] : 0, argv[1],
                       argc > 3 ? argv[3] : 0,
                       ", or NULL for a filter sized to the group", &args);
  if (rc != SQLITE_OK) return rc;
  p->capacity = args.capacity;
  p->error_rate = args.error_rate;
  p->p = args.params;
  cksql_hasher_init(&p->hasher, p->p.seed);
  if (argc > 3 && sqlite3_value_type(argv[3]) != SQLITE_NULL) {
    p->zOpts = sqlite3_mprintf("%s", sqlite3_value_text(argv[3]));
    if (p->zOpts == 0) {
      cksql_result_error(ctx, SQLITE_NOMEM, 0);
      return SQLITE_NOMEM;
    }
  }
  return SQLITE_OK;
}

/* True if this row's parameters are the first row's (rule 2). */
static int ck_agg_same(const ck_agg *p, int argc, sqlite3_value **argv) {
  double e = CF_DEFAULT_ERROR_RATE;
  sqlite3_int64 cap = 0;
  const char *z = 0;
  if (sqlite3_value_type(argv[1]) != SQLITE_NULL) {
    e = sqlite3_value_double(argv[1]);
  }
  if (argc > 2 && sqlite3_value_type(argv[2]) != SQLITE_NULL) {
    cap = sqlite3_value_int64(argv[2]);
  }
  if (argc > 3 && sqlite3_value_type(argv[3]) != SQLITE_NULL) {
    z = (const char *)sqlite3_value_text(argv[3]);
    if (z == 0) return 0;
  }
  if (e != p->error_rate || cap != p->capacity) return 0;
  if ((z == 0) != (p->zOpts == 0)) return 0;
  return z == 0 || strcmp(z, p->zOpts) == 0;
}

/* A buffer for a filter of geometry *q, checked against
** SQLITE_LIMIT_LENGTH; pOld (may be NULL) is resized.  NULL after
** reporting the error. */
static void *ck_agg_alloc(sqlite3_context *ctx, const cf_params *q,
                          sqlite3_int64 nItem, double error_rate, void *pOld) {
  sqlite3_uint64 nByte = cf_blob_size(q);
  int mxLen =
      sqlite3_limit(sqlite3_context_db_handle(ctx), SQLITE_LIMIT_LENGTH, -1);
  void *pNew;
  if (nByte > (sqlite3_uint64)mxLen) {
    cksql_result_error(
        ctx, SQLITE_TOOBIG,
        sqlite3_mprintf("cuckoo_agg: a filter for %lld distinct "
                        "items at error_rate %g needs %llu bytes, "
                        "more than SQLITE_LIMIT_LENGTH (%d)",
                        nItem, error_rate, nByte, mxLen));
    sqlite3_free(pOld);
    return 0;
  }
  pNew = sqlite3_realloc64(pOld, nByte);
  if (pNew == 0) {
    sqlite3_free(pOld);
    cksql_result_error(ctx, SQLITE_NOMEM, 0);
  }
  return pNew;
}

/* The "full" error of a fixed capacity (the one wording of
** cksql_full_message): nItem distinct items of the group or frame
** (zWhere), of which nPlaced were stored when one did not fit; nPlaced < 0:
** found before any insertion, when the distinct items (at least nItem)
** outnumber the slots. */
static void ck_agg_full(sqlite3_context *ctx, const ck_agg *p,
                        const char *zWhere, sqlite3_int64 nItem,
                        sqlite3_int64 nPlaced) {
  uint64_t nSlot = p->p.nbuckets * p->p.bucket_size;
  char *zWhat =
      nPlaced < 0
          ? sqlite3_mprintf("the %s's %lld or more distinct items (more than "
                            "its %llu slots)",
                            zWhere, nItem, (unsigned long long)nSlot)
          : sqlite3_mprintf("%lld of the %s's %lld distinct items",
                            nItem - nPlaced, zWhere, nItem);
  char *zRest = sqlite3_mprintf("raise capacity (built for error_rate %g), "
                                "or pass NULL as capacity for a filter sized "
                                "to the items",
                                p->error_rate);
  cksql_result_error(
      ctx, SQLITE_ERROR,
      zWhat && zRest ? cksql_full_message("cuckoo_agg",
                                          nPlaced < 0 ? 0 : (uint64_t)nPlaced,
                                          (uint64_t)p->capacity, zWhat, zRest)
                     : 0);
  sqlite3_free(zWhat);
  sqlite3_free(zRest);
}

/*
** Build the aggregate's result from sorted, distinct hashes a[0..n)
** (rules 3 and 4) into *f (f->blob owned by the caller on success).
*/
static int ck_agg_build(sqlite3_context *ctx, const ck_agg *p,
                        const uint64_t *a, sqlite3_int64 n, cf_filter *f) {
  cf_params q = p->p;
  sqlite3_int64 nPlaced;
  void *buf = 0;
  int rc;
  if (p->capacity) {
    buf = ck_agg_alloc(ctx, &q, n, p->error_rate, 0);
    if (buf == 0) return SQLITE_ERROR;
    cf_init(f, &q, buf);
    nPlaced = (sqlite3_int64)cf_insert_batch(f, a, (size_t)n, &rc);
    if (rc != CF_OK) {
      ck_agg_full(ctx, p, "group", n, nPlaced);
      sqlite3_free(buf);
      return SQLITE_ERROR;
    }
    return SQLITE_OK;
  }
  q.capacity = n > 0 ? (uint64_t)n : 1;
  q.nbuckets = (uint64_t)ceil(
      (double)n / (q.bucket_size * cf_load_target(q.bucket_size, q.fp_bits)));
  if (q.nbuckets < 1) q.nbuckets = 1;
  while (q.nbuckets * q.bucket_size < q.capacity)
    q.nbuckets++;
  for (;;) {
    if (q.nbuckets >= CF_MAX_BUCKETS) {
      sqlite3_free(buf);
      cksql_result_error(
          ctx, SQLITE_ERROR,
          sqlite3_mprintf(
              "cuckoo_agg: %lld distinct items are too "
              "many for one filter (at most about "
              "%llu with bucket_size=%u)",
              n, (unsigned long long)(0.9 * 4294967295.0 * q.bucket_size),
              q.bucket_size));
      return SQLITE_ERROR;
    }
    buf = ck_agg_alloc(ctx, &q, n, p->error_rate, buf);
    if (buf == 0) return SQLITE_ERROR;
    cf_init(f, &q, buf);
    cf_insert_batch(f, a, (size_t)n, &rc);
    if (rc == CF_OK) return SQLITE_OK;
    q.nbuckets += q.nbuckets / 64 > 1 ? q.nbuckets / 64 : 1;
  }
}

/*
** Window state (rule 6).  Build the frame's filter for capacity cap from
** the map (auto capacity: doubling until everything fits) and replace
** p->f with it.
*/
#define CK_WIN_CHUNK 256 /* hashes handed to cf_insert_batch() at a time */
static int ck_win_rebuild(sqlite3_context *ctx, ck_agg *p, sqlite3_int64 cap) {
  cf_params q;
  cf_filter f;
  void *buf = 0;
  for (;;) {
    sqlite3_int64 nPlaced = 0;
    uint64_t i, aChunk[CK_WIN_CHUNK];
    size_t nChunk = 0;
    int rc = CF_OK;
    if (p->capacity) {
      q = p->p;
    } else {
      cksql_options o;
      char *zErr = 0;
      o.bucket_size = p->p.bucket_size;
      o.seed = p->p.seed;
      o.flags = p->p.flags;
      rc = cksql_params(sqlite3_context_db_handle(ctx), "cuckoo_agg", cap,
                        p->error_rate, &o, &q, &zErr);
      if (rc != SQLITE_OK) {
        sqlite3_free(buf);
        cksql_result_error(ctx, rc, zErr);
        return rc;
      }
    }
    buf =
        ck_agg_alloc(ctx, &q, (sqlite3_int64)p->map.nUsed, p->error_rate, buf);
    if (buf == 0) return SQLITE_ERROR;
    cf_init(&f, &q, buf);
    /* the map's items in map order, through the core's batch */
    for (i = 0; rc == CF_OK && p->map.a && i <= p->map.mask; i++) {
      if (p->map.a[i].n == 0) continue;
      aChunk[nChunk++] = p->map.a[i].h;
      if (nChunk == CK_WIN_CHUNK) {
        nPlaced += (sqlite3_int64)cf_insert_batch(&f, aChunk, nChunk, &rc);
        nChunk = 0;
      }
    }
    if (rc == CF_OK && nChunk > 0) {
      nPlaced += (sqlite3_int64)cf_insert_batch(&f, aChunk, nChunk, &rc);
    }
    if (rc == CF_OK) break;
    if (p->capacity) {
      sqlite3_free(buf);
      ck_agg_full(ctx, p, "window frame", (sqlite3_int64)p->map.nUsed, nPlaced);
      return SQLITE_ERROR;
    }
    cap *= 2;
  }
  sqlite3_free(p->f.blob);
  p->f = f;
  p->winCap = cap;
  return SQLITE_OK;
}

/* Capacity of a window filter for n distinct items (auto sizing). */
static sqlite3_int64 ck_win_capacity(sqlite3_int64 n) {
  sqlite3_int64 c = CK_WIN_MIN_CAP;
  while (c < n)
    c *= 2;
  return c;
}

/* Turn the collected hashes into the window state. */
static int ck_agg_to_window(sqlite3_context *ctx, ck_agg *p) {
  ck_hashes *h = &p->h;
  sqlite3_int64 i;
  unsigned lg = 4;
  int rc = ck_hashes_compact(h);
  while (((sqlite3_int64)1 << lg) < 4 * h->n)
    lg++;
  if (rc == SQLITE_OK) rc = ck_map_resize(&p->map, lg);
  for (i = 0; rc == SQLITE_OK && i < h->n; i++) {
    int isNew;
    rc = ck_map_add(&p->map, h->a[i], h->aCount ? h->aCount[i] : 1, &isNew);
  }
  if (rc != SQLITE_OK) {
    cksql_result_error(ctx, SQLITE_NOMEM, 0);
    return rc;
  }
  ck_hashes_free(h);
  p->eState = CK_WINDOW;
  return ck_win_rebuild(
      ctx, p,
      p->capacity ? p->capacity : ck_win_capacity((sqlite3_int64)p->map.nUsed));
}

/* A row enters the frame. */
static int ck_win_add(sqlite3_context *ctx, ck_agg *p, uint64_t hash) {
  int isNew, rc;
  if (ck_map_add(&p->map, hash, 1, &isNew) != SQLITE_OK) {
    cksql_result_error(ctx, SQLITE_NOMEM, 0);
    return SQLITE_NOMEM;
  }
  if (!isNew) return SQLITE_OK;
  if (p->capacity == 0 && (sqlite3_int64)p->map.nUsed > p->winCap) {
    return ck_win_rebuild(ctx, p, 2 * p->winCap);
  }
  rc = cf_insert(&p->f, cf_key_of(&p->f, hash));
  if (rc == CF_OK) return SQLITE_OK;
  /* Does not fit: rebuild larger from the map (which holds the item). */
  return ck_win_rebuild(ctx, p, p->capacity ? p->capacity : 2 * p->winCap);
}

/* A row leaves the frame. */
static int ck_win_remove(sqlite3_context *ctx, ck_agg *p, uint64_t hash) {
  if (ck_map_dec(&p->map, hash) != 0) return SQLITE_OK; /* still there */
  cf_remove(&p->f, cf_key_of(&p->f, hash));
  if (p->capacity == 0 && p->winCap > CK_WIN_MIN_CAP &&
      (sqlite3_int64)p->map.nUsed * 4 < p->winCap) {
    return ck_win_rebuild(ctx, p, p->winCap / 2);
  }
  return SQLITE_OK;
}

/* Append a hash while collecting; early limit checks at each compaction. */
static int ck_collect_add(sqlite3_context *ctx, ck_agg *p, uint64_t hash) {
  ck_hashes *h = &p->h;
  if (h->n == h->nAlloc) {
    if (ck_hashes_make_room(h) != SQLITE_OK) {
      cksql_result_error(ctx, SQLITE_NOMEM, 0);
      return SQLITE_NOMEM;
    }
    if (p->capacity) {
      if ((uint64_t)h->nSorted > p->p.nbuckets * p->p.bucket_size) {
        ck_agg_full(ctx, p, "group", h->nSorted, -1);
        return SQLITE_ERROR;
      }
    } else {
      /* The smallest filter these items could get must fit the limit. */
      cf_params q = p->p;
      double slots =
          (double)h->nSorted / cf_load_target(q.bucket_size, q.fp_bits);
      int mxLen = sqlite3_limit(sqlite3_context_db_handle(ctx),
                                SQLITE_LIMIT_LENGTH, -1);
      q.nbuckets = (uint64_t)(slots / q.bucket_size) + 1;
      if (slots / q.bucket_size >= (double)CF_MAX_BUCKETS ||
          cf_blob_size(&q) > (uint64_t)mxLen) {
        cksql_result_error(
            ctx, SQLITE_TOOBIG,
            sqlite3_mprintf("cuckoo_agg: the group has more than %lld distinct "
                            "items; their filter would exceed "
                            "SQLITE_LIMIT_LENGTH (%d bytes)",
                            h->nSorted, mxLen));
        return SQLITE_TOOBIG;
      }
    }
  }
  h->a[h->n++] = hash;
  return SQLITE_OK;
}

static void ck_agg_step(sqlite3_context *ctx, int argc, sqlite3_value **argv) {
  ck_agg *p = sqlite3_aggregate_context(ctx, sizeof(ck_agg));
  uint64_t hash;
  int rc;
  if (p == 0) {
    cksql_result_error(ctx, SQLITE_NOMEM, 0);
    return;
  }
  if (p->eState == CK_FAILED) return;
  p->nRow++;
  if (p->eState == CK_EMPTY) {
    if (ck_agg_init(ctx, p, argc, argv) != SQLITE_OK) {
      ck_agg_fail(p);
      return;
    }
    p->eState = CK_COLLECT;
  } else if (argc > 1 && !ck_agg_same(p, argc, argv)) {
    cksql_result_error(
        ctx, SQLITE_ERROR,
        sqlite3_mprintf("cuckoo_agg: error_rate, capacity and "
                        "options must be the same on every row of "
                        "a group (row %lld differs from the first)",
                        p->nRow));
    ck_agg_fail(p);
    return;
  }
  rc = cksql_item_hash(&p->hasher, argv[0], &hash);
  if (rc == SQLITE_DONE) return;
  if (rc != SQLITE_OK) {
    cksql_result_error(ctx, SQLITE_NOMEM, 0);
    ck_agg_fail(p);
    return;
  }
  rc = p->eState == CK_COLLECT ? ck_collect_add(ctx, p, hash)
                               : ck_win_add(ctx, p, hash);
  if (rc != SQLITE_OK) ck_agg_fail(p);
}

/* The context of xValue/xInverse/xFinal; NULL if no row was stepped. */
static ck_agg *ck_agg_context(sqlite3_context *ctx) {
  ck_agg *p = sqlite3_aggregate_context(ctx, 0);
  return (p && p->eState != CK_EMPTY) ? p : 0;
}

/* Result for a group or frame that never saw a row (rule 8). */
static void ck_agg_no_rows(sqlite3_context *ctx) {
  ck_agg d;
  cf_filter f;
  if (*(const int *)sqlite3_user_data(ctx) != 1) return; /* NULL */
  memset(&d, 0, sizeof(d));
  ck_agg_defaults(&d);
  if (ck_agg_build(ctx, &d, 0, 0, &f) == SQLITE_OK) {
    sqlite3_result_blob64(ctx, f.blob, f.blob_size, sqlite3_free);
  }
}

static void ck_agg_inverse(sqlite3_context *ctx, int argc,
                           sqlite3_value **argv) {
  ck_agg *p = ck_agg_context(ctx);
  uint64_t hash;
  int rc;
  (void)argc;
  if (p == 0 || p->eState == CK_FAILED) return;
  if (p->eState == CK_COLLECT && ck_agg_to_window(ctx, p) != SQLITE_OK) {
    ck_agg_fail(p);
    return;
  }
  rc = cksql_item_hash(&p->hasher, argv[0], &hash);
  if (rc == SQLITE_DONE) return;
  if (rc == SQLITE_OK) {
    rc = ck_win_remove(ctx, p, hash);
  } else {
    cksql_result_error(ctx, SQLITE_NOMEM, 0);
  }
  if (rc != SQLITE_OK) ck_agg_fail(p);
}

static void ck_agg_value(sqlite3_context *ctx) {
  ck_agg *p = ck_agg_context(ctx);
  if (p == 0) {
    ck_agg_no_rows(ctx);
    return;
  }
  if (p->eState == CK_FAILED) return;
  if (p->eState == CK_COLLECT && ck_agg_to_window(ctx, p) != SQLITE_OK) {
    ck_agg_fail(p);
    return;
  }
  ck_result_copy(ctx, &p->f);
}

static void ck_agg_final(sqlite3_context *ctx) {
  ck_agg *p = ck_agg_context(ctx);
  cf_filter f;
  if (p == 0) {
    ck_agg_no_rows(ctx);
    return;
  }
  if (p->eState == CK_COLLECT) {
    if (ck_hashes_compact(&p->h) != SQLITE_OK) {
      cksql_result_error(ctx, SQLITE_NOMEM, 0);
    } else {
      sqlite3_free(p->h.aCount);
      p->h.aCount = 0;
      if (ck_agg_build(ctx, p, p->h.a, p->h.n, &f) == SQLITE_OK) {
        sqlite3_result_blob64(ctx, f.blob, f.blob_size, sqlite3_free);
      }
    }
  } else if (p->eState == CK_WINDOW) {
    sqlite3_result_blob64(ctx, p->f.blob, p->f.blob_size, sqlite3_free);
    p->f.blob = 0;
  }
  ck_agg_release(p);
}

/* ---------------------------------------------------------------------
** cuckoo_union
*/

typedef struct ck_union {
  int hasFilter;      /* f holds the union so far (f.blob owned) */
  int failed;         /* an error was reported; f freed */
  sqlite3_int64 nRow; /* rows stepped (for messages) */
  cf_filter f;
} ck_union;

static void ck_union_step(sqlite3_context *ctx, int argc,
                          sqlite3_value **argv) {
  ck_union *u = sqlite3_aggregate_context(ctx, sizeof(ck_union));
  cf_filter src;
  uint64_t nStored;
  int rc;
  (void)argc;
  if (u == 0) {
    cksql_result_error(ctx, SQLITE_NOMEM, 0);
    return;
  }
  if (u->failed) return;
  u->nRow++;
  rc = cksql_open_arg(ctx, "cuckoo_union", 0, argv[0], &src);
  if (rc == SQLITE_DONE) return; /* NULL filter: skipped */
  if (rc != SQLITE_OK) goto failed;
  if (!u->hasFilter) {
    void *buf = sqlite3_malloc64(src.blob_size);
    if (buf == 0) {
      cksql_result_error(ctx, SQLITE_NOMEM, 0);
      goto failed;
    }
    memcpy(buf, src.blob, src.blob_size);
    u->f = src;
    cf_rebase(&u->f, buf);
    u->hasFilter = 1;
    return;
  }
  nStored = u->f.count;
  rc = cf_merge(&u->f, &src);
  if (rc == CF_OK) return;
  if (rc == CF_MISMATCH) {
    char *zA = cksql_geometry(&u->f.p), *zB = cksql_geometry(&src.p);
    cksql_result_error(
        ctx, SQLITE_ERROR,
        zA && zB ? sqlite3_mprintf("cuckoo_union: filters are not compatible: "
                                   "the first filter has %s, the filter of "
                                   "row %lld has %s; only filters made with "
                                   "the same capacity, error_rate and "
                                   "options can be united",
                                   zA, u->nRow, zB)
                 : 0);
    sqlite3_free(zA);
    sqlite3_free(zB);
  } else if (rc == CF_FULL || rc == CF_TOO_MANY) {
    char *zWhat = sqlite3_mprintf("the filter of row %lld", u->nRow);
    cksql_result_error(
        ctx, SQLITE_ERROR,
        zWhat ? cksql_full_message("cuckoo_union", nStored, u->f.p.capacity,
                                   zWhat,
                                   "build the filters with a larger capacity")
              : 0);
    sqlite3_free(zWhat);
  } else {
    cksql_result_cf_error(ctx, "cuckoo_union", rc, &u->f, nStored, "");
  }
failed:
  if (u->hasFilter) sqlite3_free(u->f.blob);
  u->hasFilter = 0;
  u->failed = 1;
}

static void ck_union_inverse(sqlite3_context *ctx, int argc,
                             sqlite3_value **argv) {
  ck_union *u = sqlite3_aggregate_context(ctx, 0);
  (void)argc;
  if (u == 0 || u->failed || sqlite3_value_type(argv[0]) == SQLITE_NULL) {
    return;
  }
  cksql_result_error(
      ctx, SQLITE_ERROR,
      sqlite3_mprintf("cuckoo_union: a filter cannot be taken back "
                      "out of a union; as a window function "
                      "cuckoo_union needs a frame that starts at "
                      "UNBOUNDED PRECEDING"));
  if (u->hasFilter) sqlite3_free(u->f.blob);
  u->hasFilter = 0;
  u->failed = 1;
}

static void ck_union_value(sqlite3_context *ctx) {
  ck_union *u = sqlite3_aggregate_context(ctx, 0);
  if (u == 0 || !u->hasFilter) return; /* NULL */
  ck_result_copy(ctx, &u->f);
}

static void ck_union_final(sqlite3_context *ctx) {
  ck_union *u = sqlite3_aggregate_context(ctx, 0);
  if (u == 0 || !u->hasFilter) return; /* NULL */
  sqlite3_result_blob64(ctx, u->f.blob, u->f.blob_size, sqlite3_free);
  u->hasFilter = 0;
}

int cuckoo_register_aggregates(sqlite3 *db) {
  /* User data of cuckoo_agg: its number of arguments (rule 8). */
  static const int aArity[] = {1, 2, 3, 4};
  const int flags = SQLITE_UTF8 | SQLITE_DETERMINISTIC | SQLITE_INNOCUOUS;
  int rc = SQLITE_OK;
  size_t i;
  for (i = 0; rc == SQLITE_OK && i < sizeof(aArity) / sizeof(aArity[0]); i++) {
    rc = sqlite3_create_window_function(
        db, "cuckoo_agg", aArity[i], flags, (void *)&aArity[i], ck_agg_step,
        ck_agg_final, ck_agg_value, ck_agg_inverse, 0);
  }
  if (rc == SQLITE_OK) {
    rc = sqlite3_create_window_function(db, "cuckoo_union", 1, flags, 0,
                                        ck_union_step, ck_union_final,
                                        ck_union_value, ck_union_inverse, 0);
  }
  return rc;
}
