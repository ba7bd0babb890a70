/*
** Copyright (c) 2026 the cuckoo authors.  MIT License: see LICENSE.
**
** cuckoo_store_level.c: a cuckoo table's levels in memory (cuckoo_store.h,
** rules 2 and 4): the block cache (open addressing on block id, flushed
** and emptied when it would exceed its budget), level images (a whole
** level in one array, for the core's in-memory lookups and batched
** inserts), the geometry of new levels and growth, and a level as a BLOB
** (export, import).
*/
#include "cuckoo_store_int.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ---------------------------------------------------------------------
** The block cache
*/

/* Insert b (the cache takes ownership; room was reserved). */
static void ckst_cache_put(ckstore *p, ckst_block *b) {
  uint32_t i = ckst_slot_of(b->id, p->nSlot);
  assert(p->nEntry * 2 < p->nSlot && b->nBytes > 0);
  while (p->aSlot[i])
    i = (i + 1) & (p->nSlot - 1);
  p->aSlot[i] = b;
}

/* Make room for n more entries (load factor at most 1/2). */
int ckst_cache_reserve_n(ckstore *p, uint64_t n) {
  ckst_block **aOld = p->aSlot;
  uint32_t nOld = p->nSlot, i;
  uint64_t nNew;
  if ((p->nEntry + n) * 2 <= p->nSlot) return SQLITE_OK;
  nNew = p->nSlot ? (uint64_t)p->nSlot * 2 : 64;
  while (nNew < (p->nEntry + n) * 2)
    nNew *= 2;
  if (nNew > 0x80000000u) return SQLITE_NOMEM;
  p->aSlot = sqlite3_malloc64(sizeof(ckst_block *) * (uint64_t)nNew);
  if (p->aSlot == 0) {
    p->aSlot = aOld;
    return SQLITE_NOMEM;
  }
  memset(p->aSlot, 0, sizeof(ckst_block *) * (uint64_t)nNew);
  p->nSlot = (uint32_t)nNew;
  for (i = 0; i < nOld; i++) {
    if (aOld[i]) ckst_cache_put(p, aOld[i]);
  }
  sqlite3_free(aOld);
  return SQLITE_OK;
}

/* Drop every cached block, dirty ones included (callers flush first
** when the changes must be kept). */
void ckst_cache_clear(ckstore *p) {
  uint32_t i;
  for (i = 0; i < p->nSlot; i++) {
    if (p->aSlot[i] && !p->aSlot[i]->iImg) sqlite3_free(p->aSlot[i]);
    p->aSlot[i] = 0;
  }
  for (i = 0; i < CKST_MAX_LEVELS; i++) {
    sqlite3_free(p->aLevel[i].aImg);
    p->aLevel[i].aImg = 0;
    p->aLevel[i].nGot = 0;
  }
  p->nEntry = 0;
  p->nCacheBytes = 0;
  p->nEvictAt = 0;
  p->pLast = 0;
  p->nDirty = 0;
}

/* Bytes a level's image takes (headers of its blocks, the CF header, its
** blocks). */
static sqlite3_int64 ckst_image_bytes(const ckst_level *pL) {
  return (sqlite3_int64)(pL->nBlock * sizeof(ckst_block) + CF_HEADER_SIZE +
                         pL->nBlock * pL->nBytes);
}

/* Drop every clean block: a level with an image keeps it (and every block
** of the level) if any of its blocks is dirty, else loses it whole; a
** block of its own is dropped when clean.  The kept blocks go into a new
** slot table; if that cannot be allocated nothing is dropped (the cache
** stays over its budget: no error). */
void ckst_cache_evict_clean(ckstore *p) {
  uint8_t aKeep[CKST_MAX_LEVELS]; /* the level has a dirty block */
  ckst_block **aOld = p->aSlot;
  uint32_t i;
  int k;
  if (p->nSlot == 0) return;
  p->aSlot = sqlite3_malloc64(sizeof(ckst_block *) * (uint64_t)p->nSlot);
  if (p->aSlot == 0) {
    p->aSlot = aOld;
    return;
  }
  memset(p->aSlot, 0, sizeof(ckst_block *) * (uint64_t)p->nSlot);
  memset(aKeep, 0, sizeof(aKeep));
  for (i = 0; i < p->nDirty; i++) {
    uint64_t id = p->aDirty[i];
    uint32_t j;
    for (j = 0; j < p->nSlot; j++) { /* (aOld: p->aSlot is the new one) */
      ckst_block *b = aOld[(ckst_slot_of(id, p->nSlot) + j) & (p->nSlot - 1)];
      if (b == 0) break;
      if (b->id == id) {
        if (b->bDirty) aKeep[id >> 32] = 1;
        break;
      }
    }
  }
  p->nEntry = 0;
  p->nCacheBytes = 0;
  p->pLast = 0;
  for (i = 0; i < p->nSlot; i++) {
    ckst_block *b = aOld[i];
    int iLevel;
    if (b == 0) continue;
    iLevel = (int)(b->id >> 32);
    if (b->bDirty || (p->aLevel[iLevel].aImg && aKeep[iLevel])) {
      ckst_cache_put(p, b);
      p->nEntry++;
      if (!b->iImg) {
        p->nCacheBytes += (sqlite3_int64)(sizeof(ckst_block) + b->nBytes);
      }
    } else if (!b->iImg) {
      sqlite3_free(b);
    }
  }
  sqlite3_free(aOld);
  for (k = 0; k < CKST_MAX_LEVELS; k++) {
    ckst_level *pL = &p->aLevel[k];
    if (pL->aImg && aKeep[k]) {
      p->nCacheBytes += ckst_image_bytes(pL);
    } else {
      sqlite3_free(pL->aImg);
      pL->aImg = 0;
      pL->nGot = 0;
    }
  }
}

static int ckst_cmp_u64(const void *a, const void *b) {
  uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
  return x < y ? -1 : x > y;
}

/* Put p->aDirty in id order (blocks are marked dirty mostly in order, so
** this rarely sorts): a flush writes in id order, and a scan looks for
** the next dirty block by binary search. */
void ckst_dirty_sort(ckstore *p) {
  if (p->bDirtyUnsorted) {
    qsort(p->aDirty, p->nDirty, sizeof(uint64_t), ckst_cmp_u64);
    p->bDirtyUnsorted = 0;
  }
}

/* Record that b must be written by the next flush (its id goes into
** p->aDirty, grown as needed); SQLITE_NOMEM leaves b clean. */
int ckst_mark_dirty(ckstore *p, ckst_block *b) {
  assert(b != 0 && ckst_cache_find(p, b->id) == b);
  assert(p->nDirty <= p->nDirtyAlloc);
  if (b->bDirty) return SQLITE_OK;
  if (p->nDirty == p->nDirtyAlloc) {
    uint32_t nNew = p->nDirtyAlloc ? p->nDirtyAlloc * 2 : 64;
    uint64_t *aNew = sqlite3_realloc64(p->aDirty, sizeof(uint64_t) * nNew);
    if (aNew == 0) return SQLITE_NOMEM;
    p->aDirty = aNew;
    p->nDirtyAlloc = nNew;
  }
  if (p->nDirty > 0 && b->id < p->aDirty[p->nDirty - 1]) {
    p->bDirtyUnsorted = 1;
  }
  p->aDirty[p->nDirty++] = b->id;
  b->bDirty = 1;
  p->bChanged = 1;
  return SQLITE_OK;
}

/*
** Build the image of level iLevel (see ckst_level): the blocks not cached
** are read with one range query (each row validated as ckst_read_block()
** does; a block without a row is zeros in format 2), cached ones (which
** may hold unflushed changes) are copied in and then point into it.  A
** level larger than half the cache budget, or than the budget left, or an
** allocation that fails, gets no image: that is no error (the blocks work
** one by one as before).  On an error nothing changes.
*/
/* The bound on the copies of one item of a level with an image
** (ckst_level.nCopyMax), when it is unknown: a pair of buckets holds at most twice the
** most copies of one fingerprint in one bucket (up to 2b: the scan stops
** at a bucket full of one fingerprint). */
uint32_t ckst_copies_scan(const ckst_level *pL) {
  uint32_t fps[CF_MAX_BUCKET_SIZE], b = pL->p.bucket_size, m = 0, x, y;
  uint64_t j;
  assert(pL->aImg);
  for (j = 0; j < pL->p.nbuckets && m < b; j++) {
    cf_bucket_get(&pL->img, (uint32_t)j, fps);
    for (x = 0; x + m < b; x++) {
      uint32_t c = 0;
      if (fps[x] == 0) continue;
      for (y = x; y < b; y++)
        c += fps[y] == fps[x];
      if (c > m) m = c;
    }
  }
  return 2 * m;
}

int ckst_level_image(ckstore *p, int iLevel) {
  ckst_level *pL = &p->aLevel[iLevel];
  uint64_t nData = pL->nBlock * pL->nBytes, j, jNext = 0;
  uint64_t nHead = pL->nBlock * sizeof(ckst_block);
  sqlite3_int64 nAll = (sqlite3_int64)(nHead + CF_HEADER_SIZE + nData);
  sqlite3_int64 nBudget = p->cacheKib * 1024;
  sqlite3_stmt *pStmt = 0;
  ckst_block *aHead;
  uint8_t *aImg, *aData, *aHave;
  int rc;
  assert(iLevel >= 0 && iLevel < p->nLevel);
  if (pL->aImg) return SQLITE_OK;
  if (nAll > nBudget / 2 || p->nCacheBytes + nAll > nBudget) return SQLITE_OK;
  if (ckst_cache_reserve_n(p, pL->nBlock) != SQLITE_OK) return SQLITE_OK;
  aImg = sqlite3_malloc64((sqlite3_uint64)nAll);
  aHave = sqlite3_malloc64(pL->nBlock); /* block j has a row */
  if (aImg == 0 || aHave == 0) {
    sqlite3_free(aImg);
    sqlite3_free(aHave);
    return SQLITE_OK;
  }
  memset(aHave, 0, (size_t)pL->nBlock);
  aHead = (ckst_block *)aImg;
  aData = aImg + nHead + CF_HEADER_SIZE;
  /* cannot fail: the level's geometry was checked; it empties the
  ** buckets (blocks without a row are empty), and the last block's bytes
  ** past them are cleared here */
  (void)cf_init(&pL->img, &pL->p, aImg + nHead);
  assert(pL->img.table == aData && pL->img.table_size <= nData);
  memset(aData + pL->img.table_size, 0,
         (size_t)(nData - pL->img.table_size));
  rc = ckst_stmt(p, CKST_READ_LEVEL, &pStmt);
  if (rc == SQLITE_OK) {
    sqlite3_bind_int64(pStmt, 1, (sqlite3_int64)CKST_ID(iLevel, 0));
    sqlite3_bind_int64(pStmt, 2, (sqlite3_int64)CKST_ID(iLevel, pL->nBlock));
    while ((rc = sqlite3_step(pStmt)) == SQLITE_ROW) {
      j = (uint64_t)sqlite3_column_int64(pStmt, 0) & 0xffffffff;
      if (j >= pL->nBlock) break; /* no row of the level is left */
      /* blocks jNext .. j-1 have no row: zeros (format 2) */
      if (jNext < j && (rc = ckst_absent_block(p, iLevel, jNext)) != 0) break;
      rc = ckst_cache_find(p, CKST_ID(iLevel, j))
               ? SQLITE_OK
               : ckst_block_row(p, pStmt, 1, iLevel, j, aData + j * pL->nBytes,
                                pL->nBytes);
      if (rc != SQLITE_OK) break;
      aHave[j] = 1;
      jNext = j + 1;
    }
    if (rc == SQLITE_DONE || rc == SQLITE_ROW) {
      rc = jNext < pL->nBlock ? ckst_absent_block(p, iLevel, jNext) : SQLITE_OK;
    } else if (rc != SQLITE_OK && rc != SQLITE_CORRUPT_VTAB &&
               rc != SQLITE_NOMEM) {
      rc = ckst_sqlerr(p, rc);
    }
    sqlite3_reset(pStmt);
  }
  if (rc != SQLITE_OK) {
    sqlite3_free(aImg);
    sqlite3_free(aHave);
    return rc;
  }
  /* From here on nothing can fail. */
  for (j = 0; j < pL->nBlock; j++) {
    ckst_block *b = ckst_cache_find(p, CKST_ID(iLevel, j));
    uint8_t *a = aData + j * pL->nBytes;
    int bAbsent = !aHave[j];
    if (b) {
      memcpy(a, b->a, pL->nBytes);
    } else {
      b = &aHead[j];
      b->id = CKST_ID(iLevel, j);
      b->bDirty = 0;
      b->bAbsent = bAbsent;
      b->nBytes = pL->nBytes;
      b->iImg = iLevel + 1;
      ckst_cache_put(p, b);
      p->nEntry++;
    }
    b->a = a;
  }
  sqlite3_free(aHave);
  p->nCacheBytes += nAll;
  pL->aImg = aImg; /* (an unknown bound is scanned when needed) */
  return SQLITE_OK;
}

/* ckst_block_get() of a block not in the cache: an eighth of the level
** loaded block by block builds the level's image; otherwise the block is
** read alone, and when the cache would exceed its budget it is flushed
** and emptied first. */
int ckst_block_load(ckstore *p, int iLevel, uint64_t j, ckst_block **ppB) {
  uint64_t id = CKST_ID(iLevel, j);
  ckst_level *pL = &p->aLevel[iLevel];
  uint32_t nBytes = pL->nBytes;
  sqlite3_int64 nNeed = (sqlite3_int64)(sizeof(ckst_block) + nBytes);
  ckst_block *b = 0;
  int rc;

  assert(ckst_cache_find(p, id) == 0);
  if (pL->aImg == 0 && ++pL->nGot * 8 >= pL->nBlock) {
    /* an eighth of the level loaded block by block: load the rest at once */
    rc = ckst_level_image(p, iLevel);
    if (rc != SQLITE_OK) return rc;
    b = ckst_cache_find(p, id);
  }
  if (b == 0) {
    sqlite3_int64 nBudget = p->cacheKib * 1024;
    if (p->nEntry > 0 && p->nCacheBytes + nNeed > nBudget &&
        p->nCacheBytes + nNeed > p->nEvictAt && !p->log.bInOp) {
      if (p->version >= 3) {
        /* Format 3: the dirty blocks are the log's changes, kept until a
        ** merge (which ckst_log_bound() makes when they fill the budget,
        ** at an operation's start); clean blocks go.  When the dirty ones
        ** fill the budget, the next eviction waits for the cache to
        ** double. */
        ckst_cache_evict_clean(p);
        if (p->nCacheBytes > nBudget / 2) p->nEvictAt = 2 * p->nCacheBytes;
      } else {
        rc = ckst_flush_blocks(p);
        if (rc != SQLITE_OK) return rc;
        ckst_cache_clear(p);
      }
    }
    rc = ckst_cache_reserve_n(p, 1);
    if (rc != SQLITE_OK) return rc;
    b = sqlite3_malloc64((sqlite3_uint64)nNeed);
    if (b == 0) return SQLITE_NOMEM;
    b->id = id;
    b->bDirty = 0;
    b->nBytes = nBytes;
    b->iImg = 0;
    b->a = (uint8_t *)(b + 1);
    rc = ckst_read_block(p, iLevel, j, b->a, nBytes, &b->bAbsent);
    if (rc != SQLITE_OK) {
      sqlite3_free(b);
      return rc;
    }
    ckst_cache_put(p, b);
    p->nEntry++;
    p->nCacheBytes += nNeed;
  }
  assert(b->id == id && b->nBytes == nBytes);
  p->pLast = b;
  *ppB = b;
  return SQLITE_OK;
}

/* ---------------------------------------------------------------------
** Levels and growth
*/

/* Derived block geometry of a level from its buckets per block. */
void ckst_level_blocks(ckst_level *pL, uint32_t nPer) {
  assert(nPer >= 8 && nPer % 8 == 0);
  pL->nPer = nPer;
  pL->nBytes = (uint32_t)((uint64_t)nPer * cf_bucket_bits(&pL->p) / 8);
  pL->nBlock = (pL->p.nbuckets + nPer - 1) / nPer;
  /* cannot fail: both callers have checked the geometry and nPer */
  (void)cf_view_init(&pL->view, &pL->p, nPer);
}

/* Buckets per block for a new level: as many as fit in blockSize bytes,
** a multiple of 8 (so every block is whole bytes), at least 8, and no
** more than the level needs. */
static uint32_t ckst_per_block(const cf_params *pp, int blockSize) {
  uint64_t B = cf_bucket_bits(pp);
  uint64_t nPer = ((uint64_t)blockSize * 8 / B) & ~(uint64_t)7;
  uint64_t nAll = (pp->nbuckets + 7) & ~(uint64_t)7;
  if (nPer < 8) nPer = 8;
  if (nPer > nAll) nPer = nAll;
  return (uint32_t)nPer;
}

/* Append a level of geometry *pp holding nCount items (its bucket array
** aTable, or empty).  The in-memory level is added only on success. */
int ckst_append_level(ckstore *p, const cf_params *pp, const uint8_t *aTable,
                      uint64_t nTable, uint64_t nCount) {
  int iLevel = p->nLevel;
  ckst_level *pL = &p->aLevel[iLevel];
  int rc;
  assert(iLevel >= 0 && iLevel < CKST_MAX_LEVELS);
  /* the log's rows were made on the levels as they are (cuckoo_store_log.c
  ** rule 2) */
  rc = p->version >= 3 ? ckst_log_merge(p) : SQLITE_OK;
  if (rc != SQLITE_OK) return rc;
  memset(pL, 0, sizeof(*pL));
  pL->p = *pp;
  pL->nCount = pL->nCountSaved = nCount;
  pL->nCopyMax = aTable == 0 && nCount == 0 ? 0 : CKST_COPIES_UNKNOWN;
  ckst_level_blocks(pL, ckst_per_block(pp, p->blockSize));
  rc = ckst_write_level(p, iLevel, aTable, nTable);
  if (rc == SQLITE_OK) {
    p->nLevel++;
    p->bChanged = 1;
  }
  return rc;
}

/* Geometry of level k for capacity and error rate, with the table's
** bucket size, variant and seed; *pzErr on failure. */
int ckst_level_params(ckstore *p, sqlite3_int64 capacity, double er,
                      cf_params *pp, char **pzErr) {
  cksql_options o;
  o.bucket_size = p->bucketSize;
  o.seed = p->hasher.seed;
  o.flags = p->flags;
  return cksql_params(0, p->zLabel, capacity, er, &o, pp, pzErr);
}

/* Error rate level k is built for (see rule 2 of cuckoo_store.h). */
double ckst_level_rate(const ckstore *p, int k) {
  return p->growth ? ldexp(p->errorRate, -(k + 1)) : p->errorRate;
}

/* Append a level of twice the last one's capacity at the next error
** rate (rule 2); a "full ... cannot grow" error when that is impossible. */
int ckst_grow(ckstore *p) {
  int k = p->nLevel;
  const ckst_level *pPrev = &p->aLevel[k - 1];
  double er = ckst_level_rate(p, k);
  cf_params params;
  char *zErr = 0;
  int rc;
  assert(k >= 1 && p->bLoaded);
  if (k >= CKST_MAX_LEVELS) {
    return ckst_full(p,
                     "it cannot grow: it has %d levels, the most a table "
                     "can have; nothing was changed; create a table with a "
                     "larger capacity",
                     k);
  }
  if (pPrev->p.capacity > ((uint64_t)1 << 61) ||
      cf_fp_bits_for(er, p->bucketSize) == 0) {
    return ckst_full(p,
                     "it cannot grow: level %d would need fingerprints of "
                     "more than 32 bits (error rate %g); nothing was "
                     "changed; create a table with a larger capacity or "
                     "error_rate",
                     k, er);
  }
  rc = ckst_level_params(p, (sqlite3_int64)pPrev->p.capacity * 2, er, &params,
                         &zErr);
  if (rc != SQLITE_OK) {
    if (zErr == 0) return SQLITE_NOMEM;
    rc = ckst_full(p, "it cannot grow (%s); nothing was changed", zErr);
    sqlite3_free(zErr);
    return rc;
  }
  return ckst_append_level(p, &params, 0, 0, 0);
}

/* ---------------------------------------------------------------------
** Export and import
*/

/* True if a[] has only zero bits from bit iBit on (n bytes in all). */
int ckst_zero_from(const uint8_t *a, uint64_t n, uint64_t iBit) {
  uint64_t i = iBit / 8;
  if (i >= n) return 1;
  if (iBit % 8 && (a[i] >> (iBit % 8)) != 0) return 0;
  i += (iBit % 8) != 0;
  return cf_zero(a + i, (size_t)(n - i));
}

/* Buckets of level pL that live in block j. */
uint64_t ckst_buckets_in(const ckst_level *pL, uint64_t j) {
  uint64_t first = j * pL->nPer;
  return pL->p.nbuckets - first < pL->nPer ? pL->p.nbuckets - first : pL->nPer;
}

/* The blocks of level iLevel in order, for ckst_export(): the cache's
** copy of a block (unflushed changes included), else the block's row, read
** by one range query over the level's rows, started at the first block
** the cache lacks (where a read per block cost a lookup per block, absent
** ones included). */
typedef struct ckst_rows {
  sqlite3_stmt *pStmt; /* the range query, once started */
  uint64_t jRow;       /* the block of its current row; CKST_NO_ROW: done */
} ckst_rows;
#define CKST_NO_ROW UINT64_MAX

static int ckst_rows_step(ckstore *p, ckst_rows *r, const ckst_level *pL) {
  int rc = sqlite3_step(r->pStmt);
  r->jRow = CKST_NO_ROW;
  if (rc == SQLITE_ROW) {
    uint64_t j = (uint64_t)sqlite3_column_int64(r->pStmt, 0) & 0xffffffff;
    if (j < pL->nBlock) r->jRow = j;
    return SQLITE_OK;
  }
  return rc == SQLITE_DONE ? SQLITE_OK : ckst_sqlerr(p, rc);
}

static int ckst_rows_block(ckstore *p, ckst_rows *r, int iLevel, uint64_t j,
                           uint8_t *a) {
  const ckst_level *pL = &p->aLevel[iLevel];
  ckst_block *b = ckst_cache_find(p, CKST_ID(iLevel, j));
  int rc = SQLITE_OK;
  if (b) {
    memcpy(a, b->a, b->nBytes);
    return SQLITE_OK;
  }
  if (r->pStmt == 0) {
    rc = ckst_stmt(p, CKST_READ_LEVEL, &r->pStmt);
    if (rc != SQLITE_OK) return rc;
    sqlite3_bind_int64(r->pStmt, 1, (sqlite3_int64)CKST_ID(iLevel, j));
    sqlite3_bind_int64(r->pStmt, 2, (sqlite3_int64)CKST_ID(iLevel, pL->nBlock));
    rc = ckst_rows_step(p, r, pL);
  }
  while (rc == SQLITE_OK && r->jRow < j)
    rc = ckst_rows_step(p, r, pL);
  if (rc != SQLITE_OK) return rc;
  if (r->jRow == j)
    return ckst_block_row(p, r->pStmt, 1, iLevel, j, a, pL->nBytes);
  rc = ckst_absent_block(p, iLevel, j);
  if (rc == SQLITE_OK) memset(a, 0, pL->nBytes);
  return rc;
}

/* Build level iLevel as a BLOB: header from the level row, buckets from
** the blocks (this connection's unflushed changes included); the result
** is opened with cf_open() before it is handed out, so a damaged block
** is reported here and never returned. */
int ckst_export(ckstore *p, int iLevel, uint8_t **paOut, sqlite3_int64 *pnOut) {
  const ckst_level *pL = &p->aLevel[iLevel];
  uint64_t nTable = cf_table_size(&pL->p);
  uint64_t nTotal = CF_HEADER_SIZE + nTable;
  uint8_t *aOut, *aBuf;
  const char *zWhy = 0;
  ckst_rows rows = {0, CKST_NO_ROW};
  cf_filter f;
  uint64_t j;
  int rc = SQLITE_OK;

  *paOut = 0;
  *pnOut = 0;
  if (nTotal > (uint64_t)sqlite3_limit(p->db, SQLITE_LIMIT_LENGTH, -1)) {
    return ckst_error(p, SQLITE_TOOBIG,
                      "level %d would be a BLOB of %llu bytes, more than "
                      "SQLITE_LIMIT_LENGTH (%d)",
                      iLevel, (unsigned long long)nTotal,
                      sqlite3_limit(p->db, SQLITE_LIMIT_LENGTH, -1));
  }
  aOut = sqlite3_malloc64(nTotal);
  aBuf = sqlite3_malloc64(pL->nBytes);
  if (aOut == 0 || aBuf == 0) {
    sqlite3_free(aOut);
    sqlite3_free(aBuf);
    return SQLITE_NOMEM;
  }
  cf_init(&f, &pL->p, aOut);
  cf_put_u64(aOut + CF_HDR_COUNT, pL->nCount);
  for (j = 0; rc == SQLITE_OK && j < pL->nBlock; j++) {
    uint64_t off = j * pL->nBytes;
    uint64_t n = nTable - off < pL->nBytes ? nTable - off : pL->nBytes;
    rc = ckst_rows_block(p, &rows, iLevel, j, aBuf);
    if (rc != SQLITE_OK) break;
    if (!ckst_zero_from(aBuf, pL->nBytes,
                        ckst_buckets_in(pL, j) * cf_bucket_bits(&pL->p))) {
      rc = ckst_corrupt(p,
                        "block %d.%llu has bits set past the level's "
                        "last bucket",
                        iLevel, (unsigned long long)j);
      break;
    }
    memcpy(aOut + CF_HEADER_SIZE + off, aBuf, (size_t)n);
  }
  if (rows.pStmt) sqlite3_reset(rows.pStmt);
  sqlite3_free(aBuf);
  if (rc == SQLITE_OK && cf_open(&f, aOut, nTotal, &zWhy) != CF_OK) {
    rc = ckst_corrupt(p, "level %d does not form a valid filter (%s)", iLevel,
                      zWhy);
  }
  if (rc != SQLITE_OK) {
    sqlite3_free(aOut);
    return rc;
  }
  *paOut = aOut;
  *pnOut = (sqlite3_int64)nTotal;
  return SQLITE_OK;
}

/* Validate a BLOB (cf_open, seed, count against slots) and write it as
** a level: an empty table's only level, or a new last level.  The BLOB
** stays the caller's. */
int ckst_import(ckstore *p, const void *aBlob, int nBlob) {
  const char *zWhy = 0;
  cf_filter f;
  uint64_t nSlots, nTotal = 0;
  int i, rc;

  rc = ckst_drain(p);
  if (rc != SQLITE_OK) return rc;
  if (cf_open(&f, aBlob, (size_t)(nBlob < 0 ? 0 : nBlob), &zWhy) != CF_OK) {
    return ckst_error(p, SQLITE_ERROR,
                      "the imported value is not a valid cuckoo filter: "
                      "%s",
                      zWhy);
  }
  if (f.p.seed != p->hasher.seed) {
    return ckst_error(p, SQLITE_ERROR,
                      "the imported filter has seed %llu but the table "
                      "has seed %llu; create the table with seed=%llu",
                      (unsigned long long)f.p.seed,
                      (unsigned long long)p->hasher.seed,
                      (unsigned long long)f.p.seed);
  }
  nSlots = cf_count_slots(&f);
  if (nSlots != f.count) {
    return ckst_error(p, SQLITE_ERROR,
                      "the imported filter is inconsistent: its header "
                      "says %llu items but %llu slots are in use",
                      (unsigned long long)f.count, (unsigned long long)nSlots);
  }
  for (i = 0; i < p->nLevel; i++)
    nTotal += p->aLevel[i].nCount;
  if (nTotal == 0) {
    /* An empty table takes the filter as its only level. */
    ckst_cache_clear(p);
    rc = ckst_clear_levels(p);
    if (rc != SQLITE_OK) return rc;
    p->nLevel = 0;
  } else if (p->nLevel >= CKST_MAX_LEVELS) {
    return ckst_error(p, SQLITE_ERROR,
                      "cannot import: the table already has %d levels, "
                      "the most a table can have",
                      p->nLevel);
  }
  return ckst_append_level(p, &f.p, f.table, f.table_size, f.count);
}
