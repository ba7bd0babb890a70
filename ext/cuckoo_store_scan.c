/*
** Copyright (c) 2026 the cuckoo authors.  MIT License: see LICENSE.
**
** cuckoo_store_scan.c: browsing a cuckoo table's store (the rows of a
** full scan are the stored fingerprints; see cuckoo_vtab.c): the scan
** itself, the rowid that stands for a scanned fingerprint (and the pins
** that keep such rowids removable), the copies of an item or of a
** fingerprint, and where an item's fingerprint is (ckst_locate).
*/
#include "cuckoo_store_int.h"

#include <string.h>

sqlite3_int64 ckst_total(const ckstore *p) {
  uint64_t n = 0;
  int i;
  for (i = 0; i < p->nLevel; i++)
    n += p->aLevel[i].nCount;
  return (sqlite3_int64)n;
}

void ckst_scan_start(ckst_scan *s) { memset(s, 0, sizeof(*s)); }

/* The first block from block j on of level iLevel that may hold a
** fingerprint: one with a row, or one in the cache (written to, maybe
** not flushed yet); the level's block count if none.  Every other block
** of a format-2 level is empty. */
static int ckst_next_block(ckstore *p, int iLevel, uint64_t j,
                           uint64_t *pjNext) {
  const ckst_level *pL = &p->aLevel[iLevel];
  uint64_t jNext = pL->nBlock, idFrom = CKST_ID(iLevel, j);
  sqlite3_stmt *pStmt = 0;
  uint32_t i, lo, hi;
  int rc = ckst_stmt(p, CKST_FIRST_BLOCK, &pStmt);
  if (rc != SQLITE_OK) return rc;
  sqlite3_bind_int64(pStmt, 1, (sqlite3_int64)idFrom);
  sqlite3_bind_int64(pStmt, 2, (sqlite3_int64)CKST_ID(iLevel + 1, 0));
  rc = sqlite3_step(pStmt);
  if (rc == SQLITE_ROW) {
    uint64_t jRow = (uint64_t)sqlite3_column_int64(pStmt, 0) & 0xffffffff;
    if (jRow < jNext) jNext = jRow;
    rc = SQLITE_OK;
  } else {
    rc = rc == SQLITE_DONE ? SQLITE_OK : ckst_sqlerr(p, rc);
  }
  sqlite3_reset(pStmt);
  /* Of the cached blocks, only a dirty one may lack its row and yet hold
  ** fingerprints (a clean one without a row is all zeros, and one with a
  ** row was found above): the first dirty block from idFrom on, by binary
  ** search in the sorted dirty list.  Walking the whole cache here, at
  ** every run of blocks without rows, made a scan cost those runs times
  ** the blocks cached (3 s for 20,000 items logged in a table of capacity
  ** 10^8, whose blocks the log made dirty). */
  ckst_dirty_sort(p);
  lo = 0;
  hi = p->nDirty;
  while (lo < hi) {
    uint32_t mid = lo + (hi - lo) / 2;
    if (p->aDirty[mid] < idFrom) {
      lo = mid + 1;
    } else {
      hi = mid;
    }
  }
  for (i = lo; i < p->nDirty && p->aDirty[i] < CKST_ID(iLevel, jNext); i++) {
    const ckst_block *b = ckst_cache_find(p, p->aDirty[i]);
    if (b && b->bDirty && b->bAbsent) {
      jNext = b->id & 0xffffffff;
      break;
    }
  }
  *pjNext = jNext;
  return rc;
}

/* A full scan visits every bucket of a block with a row or in the cache,
** and jumps over each run of other blocks with one query: a format-2
** level of a large capacity (capacity=1e10: 2.5e9 buckets) is mostly
** blocks without rows, and visiting their buckets one by one took
** minutes whatever the table held. */
int ckst_scan_next(ckstore *p, ckst_scan *s) {
  while (s->iLevel < p->nLevel) {
    const ckst_level *pL = &p->aLevel[s->iLevel];
    int rc;
    if (s->bLoaded) {
      for (s->iSlot++; s->iSlot < (int)pL->p.bucket_size; s->iSlot++) {
        if (s->aFp[s->iSlot]) return SQLITE_OK;
      }
      s->iBucket++;
    }
    s->bLoaded = 0;
    if (s->iBucket >= pL->p.nbuckets) {
      s->iLevel++;
      s->iBucket = 0;
      continue;
    }
    rc = ckst_get_bucket(p, s->iLevel, s->iBucket, s->aFp);
    if (rc != SQLITE_OK) return rc;
    if (s->iBucket % pL->nPer == 0) {
      /* the first bucket of block j: if the block has no row and was not
      ** written to, it is all zeros, and so are the blocks up to the
      ** next one that has a row or is cached */
      uint64_t j = s->iBucket / pL->nPer, jNext;
      const ckst_block *b = ckst_cache_find(p, CKST_ID(s->iLevel, j));
      if (b && b->bAbsent && !b->bDirty) {
        rc = ckst_next_block(p, s->iLevel, j + 1, &jNext);
        if (rc != SQLITE_OK) return rc;
        s->iBucket = jNext * pL->nPer;
        continue;
      }
    }
    s->bLoaded = 1;
    s->iSlot = -1;
  }
  s->bEof = 1;
  return SQLITE_OK;
}

/* Copies of fp in bucket i of level iLevel and in fp's other bucket. */
static int ckst_pair_copies(ckstore *p, int iLevel, uint32_t i, uint32_t fp,
                            sqlite3_int64 *pn) {
  const ckst_level *pL = &p->aLevel[iLevel];
  uint32_t aFp[CF_MAX_BUCKET_SIZE], i2 = cf_alt_in(&pL->p, i, fp);
  unsigned k, nPass = i2 == i ? 1 : 2, iPass;
  sqlite3_int64 n = 0;
  for (iPass = 0; iPass < nPass; iPass++) {
    int rc = ckst_get_bucket(p, iLevel, iPass ? i2 : i, aFp);
    if (rc != SQLITE_OK) return rc;
    for (k = 0; k < pL->p.bucket_size; k++)
      n += aFp[k] == fp;
  }
  *pn = n;
  return SQLITE_OK;
}

int ckst_scan_copies(ckstore *p, const ckst_scan *s, sqlite3_int64 *pn) {
  return ckst_pair_copies(p, s->iLevel, (uint32_t)s->iBucket, s->aFp[s->iSlot],
                          pn);
}

int ckst_copies(ckstore *p, uint64_t hash, sqlite3_int64 *pn) {
  sqlite3_int64 n = 0, nLevel;
  int i, rc = SQLITE_OK;
  for (i = 0; rc == SQLITE_OK && i < p->nLevel; i++) {
    cf_key k = cf_key_in(&p->aLevel[i].p, hash);
    rc = ckst_pair_copies(p, i, k.i1, k.fp, &nLevel);
    n += nLevel;
  }
  *pn = n;
  return rc;
}

int ckst_locate(ckstore *p, uint64_t hash, ckst_scan *s) {
  uint32_t aFp[CF_MAX_BUCKET_SIZE];
  int i, iPass, k, rc;
  ckst_scan_start(s);
  for (i = p->nLevel - 1; i >= 0; i--) {
    const ckst_level *pL = &p->aLevel[i];
    cf_key key = cf_key_in(&pL->p, hash);
    uint32_t aB[2];
    aB[0] = key.i1;
    aB[1] = cf_alt_in(&pL->p, key.i1, key.fp);
    for (iPass = 0; iPass < 2; iPass++) {
      rc = ckst_get_bucket(p, i, aB[iPass], aFp);
      if (rc != SQLITE_OK) return rc;
      for (k = 0; k < (int)pL->p.bucket_size; k++) {
        if (aFp[k] != key.fp) continue;
        s->iLevel = i;
        s->iBucket = aB[iPass];
        s->iSlot = k;
        memcpy(s->aFp, aFp, sizeof(aFp));
        s->bLoaded = 1;
        return SQLITE_OK;
      }
    }
  }
  s->bEof = 1;
  return SQLITE_OK;
}

/* The hash values x with cf_reduce(x, n) == v, for x < 2^32: [*pLo, *pHi).
** The reduction is (x * n) >> 32, so they are the x from
** ceil(v * 2^32 / n) up to, not including, ceil((v + 1) * 2^32 / n). */
static void ckst_preimage(uint64_t v, uint64_t n, uint64_t *pLo,
                          uint64_t *pHi) {
  *pLo = ((v << 32) + n - 1) / n;
  *pHi = (((v + 1) << 32) + n - 1) / n;
  if (*pHi > ((uint64_t)1 << 32)) *pHi = (uint64_t)1 << 32;
}

/* The level pinned to hash h by a scan, or -1. */
int ckst_pin_find(const ckstore *p, uint64_t h) {
  uint32_t i;
  if (p->nPin == 0) return -1;
  for (i = ckst_slot_of(h, p->nPinSlot);; i = (i + 1) & (p->nPinSlot - 1)) {
    if (p->aPin[i].iLevel == 0) return -1;
    if (p->aPin[i].h == h) return p->aPin[i].iLevel - 1;
  }
}

static int ckst_pin_add(ckstore *p, uint64_t h, int iLevel) {
  uint32_t i;
  if ((uint64_t)(p->nPin + 1) * 2 > p->nPinSlot) {
    uint32_t nNew = p->nPinSlot ? p->nPinSlot * 2 : 64, nOld = p->nPinSlot;
    ckst_pin *aOld = p->aPin, *aNew;
    if (nNew == 0) return SQLITE_NOMEM;
    aNew = sqlite3_malloc64(sizeof(ckst_pin) * (uint64_t)nNew);
    if (aNew == 0) return SQLITE_NOMEM;
    memset(aNew, 0, sizeof(ckst_pin) * (uint64_t)nNew);
    p->aPin = aNew;
    p->nPinSlot = nNew;
    p->nPin = 0;
    for (i = 0; i < nOld; i++) {
      if (aOld[i].iLevel) ckst_pin_add(p, aOld[i].h, aOld[i].iLevel - 1);
    }
    sqlite3_free(aOld);
  }
  for (i = ckst_slot_of(h, p->nPinSlot); p->aPin[i].iLevel;
       i = (i + 1) & (p->nPinSlot - 1)) {
  }
  p->aPin[i].h = h;
  p->aPin[i].iLevel = iLevel + 1;
  p->nPin++;
  return SQLITE_OK;
}

void ckst_scan_end(ckstore *p) {
  sqlite3_free(p->aPin);
  p->aPin = 0;
  p->nPin = p->nPinSlot = 0;
}

int ckst_scan_hash(ckstore *p, const ckst_scan *s, uint64_t *pHash) {
  const ckst_level *pL = &p->aLevel[s->iLevel];
  uint32_t fp = s->aFp[s->iSlot];
  uint64_t nfp =
      pL->p.fp_bits == 32 ? 0xffffffffu : ((uint64_t)1 << pL->p.fp_bits) - 1;
  uint64_t hLo, hHi, fLo, fHi, nH, nTotal, t;
  assert(!s->bEof && s->bLoaded && s->iLevel >= 0 && s->iLevel < p->nLevel);
  assert(s->iSlot >= 0 && s->iSlot < (int)pL->p.bucket_size && fp != 0);
  ckst_preimage(s->iBucket, pL->p.nbuckets, &hLo, &hHi);
  ckst_preimage(fp - 1, nfp, &fLo, &fHi);
  nH = hHi - hLo;
  nTotal = nH * (fHi - fLo);
  /* Candidates t = slot + b * (level + 32 k): rows of one bucket never
  ** share one, and the first candidates of different levels differ. */
  for (t = (uint64_t)s->iSlot + pL->p.bucket_size * (uint64_t)s->iLevel;
       t < nTotal; t += pL->p.bucket_size * (uint64_t)CKST_MAX_LEVELS) {
    uint64_t h = ((hLo + t % nH) << 32) | (fLo + t / nH);
    int i, bOther = 0, iPin;
    /* h stands for the fingerprint: its bucket and fingerprint there */
    assert(ckst_key(pL, h).i1 == s->iBucket && ckst_key(pL, h).fp == fp);
    for (i = 0; i < p->nLevel && !bOther; i++) {
      int m;
      if (i == s->iLevel) continue;
      m = ckst_match(p, i, h);
      if (m < 0) return ckst_store_rc(p);
      bOther = m;
    }
    if (!bOther) {
      *pHash = h;
      return SQLITE_OK;
    }
    /* h also matches another level, where ckst_remove() would refuse it:
    ** pin it to this level for the scan's lifetime. */
    iPin = ckst_pin_find(p, h);
    if (iPin == s->iLevel) {
      *pHash = h;
      return SQLITE_OK;
    }
    if (iPin < 0) {
      *pHash = h;
      return ckst_pin_add(p, h, s->iLevel);
    }
  }
  return ckst_error(p, SQLITE_ERROR,
                    "the fingerprint in slot %d of bucket %llu of level %d "
                    "has no rowid of its own; empty the table with "
                    "INSERT INTO \"%w\"(\"%w\") VALUES('delete-all')",
                    s->iSlot, (unsigned long long)s->iBucket, s->iLevel,
                    p->zName, p->zName);
}
