/*
** Copyright (c) 2026 the cuckoo authors.  MIT License: see LICENSE.
**
** cuckoo_store_defer.c: deferred inserts, for bulk loads (cuckoo_store.h
** documents the contract; cuckoo_vtab.c decides which inserts may be
** deferred).  The state is one struct, ckst_defer (cuckoo_store_int.h), in
** the store; its life cycle:
**
**   add       ckst_insert_later(): record an item's hash and value;
**   place     ckst_drain(): place every pending item, in order, exactly as
**             one ckst_insert() after another would; every other store
**             operation, ckst_ready() with bRefresh, ckst_flush() (xSync,
**             xSavepoint) and ckst_import() drain first;
**   discard   ckst_discard() (xRollbackTo) and ckst_rollback() (xRollback)
**             drop them: ckst_defer_discard().
**
** A drain that fails (a "full" table, naming the item) keeps the failed
** item and the ones after it pending until a discard; a discard that drops
** them at a savepoint rollback inside the failed statement makes every
** later flush fail (ckst_defer_check_flush) until the transaction's
** rollback.
*/
#include "cuckoo_store_int.h"

#include <string.h>

/*
** Placing.  ckst_insert_later() appends the hash to p->defer.aHash (and
** the value to p->defer.aVal); ckst_drain() places the pending items in order,
*each exactly as
** ckst_insert() would have placed it then (the same levels, slots and
** bytes), while the buckets of the items a few places ahead are
** prefetched on every level whose block is cached: the dependent cache
** misses of one insert after another overlap.  Every other operation
** drains first, so no read misses a pending item.  If an item fails, it
** and the ones after it stay pending (nothing is ever dropped but by
** ckst_discard()), and every later drain fails the same way until the
** statement's rollback discards them.
*/
#define CKST_AHEAD 12 /* items ahead whose buckets are prefetched */

static void ckst_prefetch_bucket(const ckstore *p, int iLevel, uint32_t i) {
  const ckst_level *pL = &p->aLevel[iLevel];
  uint32_t j = i / pL->nPer;
  const ckst_block *b = ckst_cache_find(p, CKST_ID(iLevel, j));
  if (b) {
    uint64_t bit = (uint64_t)(i - j * pL->nPer) * pL->view.bucket_bits;
    CF_PREFETCH_W(b->a + (bit >> 3));
  }
}

static void ckst_prefetch(const ckstore *p, uint64_t hash) {
  int i;
  for (i = 0; i < p->nLevel; i++) {
    const ckst_level *pL = &p->aLevel[i];
    cf_key k = ckst_key(pL, hash);
    ckst_prefetch_bucket(p, i, k.i1);
    ckst_prefetch_bucket(p, i, cf_alt_in(&pL->p, k.i1, k.fp));
  }
}

static int ckst_drain_pending(ckstore *p);

/* The namer of the pending item being placed (ckst_namer): its value. */
static char *ckst_pend_name(void *pArg) {
  const ckstore *p = (const ckstore *)pArg;
  const ckst_pend *e;
  assert(p->defer.iItem >= 0 && (uint32_t)p->defer.iItem < p->defer.nAlloc);
  e = &p->defer.aVal[p->defer.iItem];
  return e->eType == SQLITE_INTEGER ? sqlite3_mprintf("%lld", e->v.i)
                                    : sqlite3_mprintf("%!.15g", e->v.r);
}

/* Place pending item i as ckst_insert() would, named by its value. */
static int ckst_place(ckstore *p, uint32_t i) {
  ckst_namer nm;
  int rc;
  nm.xName = ckst_pend_name;
  nm.pArg = p;
  p->defer.iItem = (int)i;
  p->pName = &nm;
  rc = ckst_insert_hash(p, p->defer.aHash[i]);
  p->pName = 0;
  p->defer.iItem = -1;
  return rc;
}

/* The namer of an item not deferred (ckst_namer). */
static char *ckst_value_name(void *pArg) {
  return cksql_describe_value((sqlite3_value *)pArg);
}

/* ckst_insert() of an item placed at once. */
static int ckst_insert_now(ckstore *p, uint64_t hash, sqlite3_value *pItem) {
  ckst_namer nm;
  nm.xName = ckst_value_name;
  nm.pArg = pItem;
  return ckst_insert(p, hash, &nm);
}

/* Nothing pending is the common case of every operation. */
int ckst_drain(ckstore *p) {
  return p->defer.n ? ckst_drain_pending(p) : SQLITE_OK;
}

/*
** The bulk case: at least half as many pending items as the newest level
** has blocks, and every level has (or can get) an image.  The items are
** taken in chunks of CKST_CHUNK.  For a chunk, the older levels' images
** say (batched lookups, newest level first) which items already match
** an older level; those go through ckst_insert_hash() one by one (rule
** 3: their copy joins the older level).  Every run of the others is one
** cf_insert_batch() into the newest level's image, up to the level's
** capacity when the table grows (the same slots and bytes as one
** ckst_insert_hash() after another: the core guarantees it for a batch,
** and inserts never change whether an item matches a level, so the
** chunk's lookups stay true while the levels stay the same).  The item
** at which a run stops (the level is at its capacity, or the item did
** not fit) goes through ckst_insert_hash() too, which grows the table or
** reports the error; after a growth the rest of the chunk is looked up
** again.  Every block of the newest level is marked dirty first (most of
** them are written anyway), since a batch does not say which buckets its
** displacements touched.  *pi is the next pending item; on an error it
** is the item that failed.
*/
#define CKST_CHUNK 1024

static int ckst_drain_batch(ckstore *p, uint32_t *pi) {
  uint32_t i = *pi, n = p->defer.n;
  unsigned nDiscard = p->defer.nDiscard;
  int iMarked = -1, rc = SQLITE_OK;
  signed char aLvl[CKST_CHUNK];
  uint8_t aFound[CKST_CHUNK];
  while (i < n) {
    int nLevel = p->nLevel, iLast = nLevel - 1, k;
    ckst_level *pL = &p->aLevel[iLast];
    uint32_t c = n - i, j, e;
    uint64_t b;
    if (c < 64 || (uint64_t)c * 2 < pL->nBlock) break;
    for (k = 0; k < nLevel; k++) {
      rc = ckst_level_image(p, k);
      if (rc != SQLITE_OK || p->aLevel[k].aImg == 0) goto done;
    }
    for (b = 0; iMarked != iLast && b < pL->nBlock; b++) {
      /* (the image put every block of the level in the cache) */
      rc = ckst_mark_dirty(p, ckst_cache_find(p, CKST_ID(iLast, b)));
      if (rc != SQLITE_OK) goto done;
    }
    iMarked = iLast;
    if (c > CKST_CHUNK) c = CKST_CHUNK;
    memset(aLvl, -1, c);
    for (k = iLast - 1; k >= 0; k--) {
      cf_contains_batch(&p->aLevel[k].img, p->defer.aHash + i, c, aFound);
      for (j = 0; j < c; j++) {
        if (aFound[j] && aLvl[j] < 0) aLvl[j] = (signed char)k;
      }
    }
    for (j = 0; j < c && p->nLevel == nLevel;) {
      for (e = j; e < c && aLvl[e] < 0; e++) {
      }
      if (e > j) {
        uint64_t m = e - j;
        size_t nDone;
        if (p->growth) {
          uint64_t nRoom =
              pL->p.capacity > pL->nCount ? pL->p.capacity - pL->nCount : 0;
          if (m > nRoom) m = nRoom;
        }
        pL->img.count = pL->nCount;
        nDone = m ? cf_insert_batch(&pL->img, p->defer.aHash + i + j, m, 0) : 0;
        if (nDone > 0) {
          pL->nCount += nDone;
          pL->bCountDirty = 1;
          j += (uint32_t)nDone;
        }
        if (j == e) continue;
      }
      /* item j matches an older level, or stopped the run */
      rc = ckst_place(p, i + j);
      if (p->defer.nDiscard != nDiscard)
        return rc == SQLITE_OK ? SQLITE_ABORT : rc;
      if (rc != SQLITE_OK) {
        i += j;
        goto done;
      }
      j++;
    }
    i += j;
  }
done:
  *pi = i;
  return rc;
}

static int ckst_drain_pending(ckstore *p) {
  uint32_t i = 0, n = p->defer.n;
  unsigned nDiscard = p->defer.nDiscard;
  int rc = ckst_drain_batch(p, &i);
  if (p->defer.nDiscard != nDiscard) return rc == SQLITE_OK ? SQLITE_ABORT : rc;
  if (rc != SQLITE_OK) {
    p->defer.bFailed = 1;
    n = 0; /* the items from i on stay pending */
  }
  for (; i < n; i++) {
    if (i + CKST_AHEAD < n) ckst_prefetch(p, p->defer.aHash[i + CKST_AHEAD]);
    rc = ckst_place(p, i);
    if (p->defer.nDiscard != nDiscard) {
      /* a statement the store ran failed and rolled the transaction back
      ** (xRollback): the pending items went with it */
      p->defer.iItem = -1;
      return rc == SQLITE_OK ? SQLITE_ABORT : rc;
    }
    if (rc != SQLITE_OK) {
      p->defer.bFailed = 1;
      break;
    }
  }
  p->defer.iItem = -1;
  n = p->defer.n;
  if (i == n) p->defer.bFailed = 0;
  if (i > 0 && i < n) {
    memmove(p->defer.aHash, p->defer.aHash + i, sizeof(uint64_t) * (n - i));
    memmove(p->defer.aVal, p->defer.aVal + i, sizeof(ckst_pend) * (n - i));
  }
  p->defer.n = n - i;
  assert(rc != SQLITE_OK || p->defer.n == 0);
  return rc;
}

int ckst_insert_later(ckstore *p, sqlite3_value *pItem, uint64_t *pHash) {
  int eType, rc;
  uint64_t hash;
  sqlite3_int64 v = 0;
  ckst_pend *e;
  if (!p->bLoaded) return -1;
  assert(p->defer.n <= p->defer.nAlloc && p->defer.nAlloc <= CKST_PEND_MAX);
  eType = sqlite3_value_type(pItem);
  if (eType == SQLITE_INTEGER) {
    /* the bulk load's item: read once, hashed inline */
    v = sqlite3_value_int64(pItem);
    *pHash = hash = cksql_hash_int(&p->hasher, v);
  } else if (eType == SQLITE_NULL) {
    return -1;
  } else {
    rc = cksql_item_hash(&p->hasher, pItem, &hash);
    if (rc != SQLITE_OK) return rc;
    *pHash = hash;
    if (eType != SQLITE_FLOAT) {
      return ckst_insert_now(p, hash, pItem); /* kept short: placed now */
    }
  }
  if (p->defer.n == 0) ckst_mark_statement(p);
  if (p->defer.n == p->defer.nAlloc) {
    uint32_t nNew = p->defer.nAlloc ? 2 * p->defer.nAlloc : 256;
    ckst_pend *aNew = 0;
    if (p->defer.nAlloc < CKST_PEND_MAX) {
      uint64_t *aNewHash;
      if (nNew > CKST_PEND_MAX) nNew = CKST_PEND_MAX;
      aNewHash =
          sqlite3_realloc64(p->defer.aHash, sizeof(uint64_t) * (uint64_t)nNew);
      if (aNewHash) {
        p->defer.aHash = aNewHash; /* (the arrays' size is nPendAlloc) */
        aNew = sqlite3_realloc64(p->defer.aVal,
                                 sizeof(ckst_pend) * (uint64_t)nNew);
      }
    }
    if (aNew == 0) {
      /* at the bound (or out of memory): place what is pending, then this */
      return ckst_insert_now(p, hash, pItem);
    }
    p->defer.aVal = aNew;
    p->defer.nAlloc = nNew;
  }
  p->defer.aHash[p->defer.n] = hash;
  e = &p->defer.aVal[p->defer.n++];
  e->eType = eType;
  if (eType == SQLITE_INTEGER) {
    e->v.i = v;
  } else {
    e->v.r = sqlite3_value_double(pItem);
  }
  return SQLITE_OK;
}

void ckst_defer_discard(ckstore *p, int bRollback) {
  ckst_defer *d = &p->defer;
  d->nDiscard++;
  if (d->n > 0 && d->bFailed) d->bLost = 1;
  d->n = 0;
  d->bFailed = 0;
  if (bRollback) d->bLost = 0;
}

int ckst_defer_check_flush(ckstore *p) {
  if (!p->defer.bLost) return SQLITE_OK;
  /* A savepoint rollback inside the failed statement discarded its
  ** pending inserts: only the whole transaction can be rolled back. */
  return ckst_error(p, SQLITE_ERROR,
                    "inserts of a failed statement were discarded by a "
                    "nested statement's rollback; the transaction must be "
                    "rolled back");
}

void ckst_defer_free(ckstore *p) {
  sqlite3_free(p->defer.aVal);
  sqlite3_free(p->defer.aHash);
  memset(&p->defer, 0, sizeof(p->defer));
  p->defer.iItem = -1;
}
