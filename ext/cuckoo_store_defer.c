/*
** Copyright (c) 2026 the cuckoo authors.  MIT License: see LICENSE.
**
** cuckoo_store_defer.c: deferred inserts, for every INSERT shape
** (cuckoo_store.h documents the contract; cuckoo_vtab.c says which rows
** it asks to defer).  The state is one struct, ckst_defer
** (cuckoo_store_int.h), in the store; its life cycle:
**
**   add       ckst_insert_later(): record an item's hash and what names
**             it (its value; a TEXT item's first bytes, outside a
**             transaction: "Refusals" below);
**   place     ckst_drain(): place every pending item, in order, exactly as
**             one ckst_insert() after another would; every other store
**             operation, ckst_ready() with bRefresh, ckst_flush() (xSync),
**             ckst_savepoint() (xSavepoint) and ckst_import() drain first;
**   discard   ckst_discard() (xRollbackTo) and ckst_rollback() (xRollback)
**             drop them: ckst_defer_discard().
**
** Statements and savepoints.  Every savepoint drains and flushes
** (ckst_savepoint), so the pending items are always newer than the newest
** savepoint: a ROLLBACK TO, or the rollback of a failed statement (SQLite
** opens a savepoint for every statement that can fail after a change),
** drops exactly the items inserted since, which the journal's restored
** shadow tables never held.  A drain that fails keeps the failed item and
** the ones after it pending; if that drain was a savepoint's, the items
** predate the savepoint, and a rollback to it that drops them makes every
** later flush fail (ckst_defer_check_flush) until the transaction's
** rollback.
**
** Refusals.  Outside an explicit transaction the statement is its own
** transaction: a "full" or "too many copies" item fails it wherever the
** drain finds it, at the latest at its commit.  Inside one, a drain can
** run after the statement that recorded the item has ended, so an item
** is only recorded where no drain can refuse it: growth on, the table
** able to add CKST_DEFER_SPARE levels, and every pending item within the
** newest level's room (ckst_safe: no drain grows the table for capacity;
** a level that refuses an insert before its capacity, rarely, makes the
** table grow into the spare levels).  The refusal left is "too many
** copies" on the newest level: ckst_txn_check() reads the item's two
** buckets there (stored copies), unless the level's bound on the copies
** of one item (ckst_level.nCopyMax) is below the item's limit, and the
** tally, or else the key set, rules out enough pending items with the same
** fingerprint and buckets to reach it ("Copies of one item" below); an
** item that fails either is placed at once, after the pending ones, so
** its statement fails if it must.  So no pending item of a transaction is
** ever named in a message, and a TEXT item there keeps no text: the copy
** of its first bytes cost a transaction's load of TEXT items about 4% of
** its time (docs/benchmarks.md, "The write shapes").
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
    uint32_t i2 = cf_alt_in(&pL->p, k.i1, k.fp);
    if (pL->aImg) {
      /* the level's image: the buckets' bytes, without a cache lookup */
      const cf_filter *f = &pL->img;
      CF_PREFETCH_W(f->table + (((uint64_t)k.i1 * f->bucket_bits) >> 3));
      CF_PREFETCH_W(f->table + (((uint64_t)i2 * f->bucket_bits) >> 3));
    } else {
      ckst_prefetch_bucket(p, i, k.i1);
      ckst_prefetch_bucket(p, i, i2);
    }
  }
}

/*
** Copies of one item in a transaction.  An item pending twice could be
** refused ("too many copies") by a drain after its statement: once the
** copies stored and pending could reach the item's limit, the row is
** placed at once instead, after the others, so its statement fails if it
** must.  Two structures count the pending items by key (ckst_last_key:
** the fingerprint and buckets on the newest level):
**
**   the tally (aTally): one byte per counter, four counters per item of
**   the window, the counter a key falls in (ckst_tally_slot) counting the
**   pending items whose keys fall there.  Every plain row of a
**   transaction reads its counter and adds 1 when it is recorded; the
**   OR IGNORE rows before it are counted then (ckst_tally_fill counts
**   the pending items from nTallied on).  A counter is at
**   least the number of pending items with the key, so a row whose
**   level bound on stored copies (ckst_level.nCopyMax) plus its counter
**   is below its limit cannot be refused: recorded without more (the
**   common row, one byte read and written in a small array).
**
**   the key set (aKey): exact, open addressing, two 8-byte slots per
**   item of the window.  The other rows of a transaction (a counter
**   too high, an unknown bound) and every OR IGNORE row ask it whether an
**   item with their key is pending, and add their own key when recorded.
**   It holds exactly the keys of the pending items marked bKeyed, each
**   once; rows recorded without their key (a row the tally let through,
**   an autocommit row, rows left pending by a failed drain) set bNoKey,
**   and the next row that asks adds the keys of the others first
**   (ckst_keys_fill).
**
** The window.  Those rows are drained every nWindow items (ckst_window):
** the smallest power of two from CKST_WINDOW_MIN that is at least twice
** the newest level's blocks (so that the drain is still one batch,
** ckst_drain_batch), at most CKST_PEND_MAX.  The tally takes 16 KiB and
** the set 64 KiB for a table of up to 2,048 blocks (about 3.5 million
** items at 1% error), which stay in the core's cache from row to row,
** where 65,536 pending items would take 1 MiB and a cache miss per row.
**
** Emptying.  A drain and a discard empty both (ckst_keys_clear,
** ckst_tally_clear): after many items by clearing them whole, after a
** few by clearing what each item's key touched (for the set, the run of
** slots from the key's first slot to an empty one: with no removal since
** the set was empty, every key lies in the run from its first slot, so
** clearing the runs of all the keys, in any order, empties it exactly),
** so that a transaction of one-row statements, drained by each
** statement's savepoint, pays for its rows, not for the arrays.
*/
#define CKST_WINDOW_MIN 4096

/* The window for the items about to be pending (none is now): no more
** than the newest level's room either (neither kind of row records more),
** 64 at least. */
static void ckst_window(ckstore *p) {
  ckst_defer *d = &p->defer;
  const ckst_level *pL = &p->aLevel[p->nLevel - 1];
  uint64_t room = pL->p.capacity > pL->nCount ? pL->p.capacity - pL->nCount : 0;
  uint32_t w = CKST_WINDOW_MIN;
  assert(d->n == 0 && !d->bKeyUsed);
  while (w < CKST_PEND_MAX && (uint64_t)w < 2 * pL->nBlock)
    w *= 2;
  while (w > 64 && w / 2 >= room)
    w /= 2;
  d->nWindow = w;
}

/* A key set with room for the window: SQLITE_OK or SQLITE_NOMEM.  (It
** grows only while empty: a key was added only with this window.) */
static int ckst_keys_room(ckst_defer *d) {
  if (d->nKeySlot < 2 * d->nWindow) {
    uint64_t *aNew;
    assert(!d->bKeyUsed);
    aNew = sqlite3_realloc64(d->aKey, sizeof(uint64_t) * 2 * d->nWindow);
    if (aNew == 0) return SQLITE_NOMEM;
    memset(aNew, 0, sizeof(uint64_t) * 2 * d->nWindow);
    d->aKey = aNew;
    d->nKeySlot = 2 * d->nWindow;
  }
  return SQLITE_OK;
}

static uint64_t ckst_last_key(const ckstore *p, uint64_t hash);

/* The key set: a key's first slot. */
static uint32_t ckst_key_slot(const ckst_defer *d, uint64_t key) {
  return (uint32_t)((key * 0x9E3779B97F4A7C15ULL) >> 40) & (d->nKeySlot - 1);
}

/* Is key in the set?  *piSlot = its slot (1), or the empty slot where it
** would go (0, valid until the set changes). */
static int ckst_key_find(const ckst_defer *d, uint64_t key, uint32_t *piSlot) {
  uint32_t mask = d->nKeySlot - 1;
  uint32_t i = ckst_key_slot(d, key);
  while (d->aKey[i] != key && d->aKey[i] != 0)
    i = (i + 1) & mask;
  *piSlot = i;
  return d->aKey[i] == key;
}

/* Empty the key set (before a drain or a discard: the pending items'
** keys are still those they were recorded with). */
static void ckst_keys_clear(ckstore *p) {
  ckst_defer *d = &p->defer;
  uint32_t i, j, mask = d->nKeySlot - 1;
  if (!d->bKeyUsed) return;
  if ((uint64_t)d->n * 16 > d->nKeySlot) {
    memset(d->aKey, 0, sizeof(uint64_t) * d->nKeySlot);
  } else {
    for (i = 0; i < d->n; i++) {
      if (!d->aVal[i].bKeyed) continue;
      for (j = ckst_key_slot(d, ckst_last_key(p, d->aHash[i])); d->aKey[j];
           j = (j + 1) & mask) {
        d->aKey[j] = 0;
      }
    }
  }
  /* (the items' bKeyed are cleared by whoever keeps them pending) */
  d->bKeyUsed = 0;
}

/* The tally: a key's counter. */
static uint32_t ckst_tally_slot(const ckst_defer *d, uint64_t key) {
  return (uint32_t)((key * 0xD6E8FEB86659FD93ULL) >> 32) & (d->nTally - 1);
}

/* A tally with room for the window: SQLITE_OK or SQLITE_NOMEM.  (It grows
** only while empty, as the set.) */
static int ckst_tally_room(ckst_defer *d) {
  if (d->nTally < 4 * d->nWindow) {
    uint8_t *aNew;
    assert(d->nTallied == 0);
    aNew = sqlite3_realloc64(d->aTally, 4 * (uint64_t)d->nWindow);
    if (aNew == 0) return SQLITE_NOMEM;
    memset(aNew, 0, 4 * (size_t)d->nWindow);
    d->aTally = aNew;
    d->nTally = 4 * d->nWindow;
  }
  return SQLITE_OK;
}

/* Count the pending items from nTallied on (OR IGNORE rows, rows left
** pending by a failed drain).  A counter stops at 255, far above any
** limit (16). */
static void ckst_tally_fill(ckstore *p) {
  ckst_defer *d = &p->defer;
  for (; d->nTallied < d->n; d->nTallied++) {
    uint8_t *c = &d->aTally[ckst_tally_slot(
        d, ckst_last_key(p, d->aHash[d->nTallied]))];
    if (*c < 255) (*c)++;
  }
}

/* Empty the tally (when the key set is emptied, and why). */
static void ckst_tally_clear(ckstore *p, int bWhole) {
  ckst_defer *d = &p->defer;
  uint32_t i;
  if (d->nTallied == 0) return;
  if (bWhole || (uint64_t)d->nTallied * 16 > d->nTally) {
    memset(d->aTally, 0, d->nTally);
  } else {
    for (i = 0; i < d->nTallied; i++)
      d->aTally[ckst_tally_slot(d, ckst_last_key(p, d->aHash[i]))] = 0;
  }
  d->nTallied = 0;
}

/* Can no drain refuse an item of level pL with c items pending in its
** key's counter and limit nLimit?  (stored copies at most nCopyMax) */
static int ckst_tally_safe(const ckst_level *pL, uint32_t c, uint32_t nLimit) {
  return pL->nCopyMax != CKST_COPIES_UNKNOWN && pL->nCopyMax + c < nLimit;
}

/* Add to the key set the keys of the pending items recorded without
** theirs (bNoKey: from iNoKey on): out of order, so the next
** ckst_keys_clear() clears it all.  Room: fewer items pending than the
** window. */
static void ckst_keys_fill(ckstore *p) {
  ckst_defer *d = &p->defer;
  uint32_t i, iSlot;
  assert(d->n < d->nWindow && d->nKeySlot >= 2 * d->nWindow);
  for (i = d->iNoKey; i < d->n; i++) {
    ckst_pend *e = &d->aVal[i];
    uint64_t key;
    if (e->bKeyed) continue;
    key = ckst_last_key(p, d->aHash[i]);
    if (ckst_key_find(d, key, &iSlot)) continue; /* (a copy is there) */
    d->aKey[iSlot] = key;
    e->bKeyed = 1;
    d->bKeyUsed = 1;
  }
  d->bNoKey = 0;
  d->iNoKey = d->n;
}

static int ckst_drain_pending(ckstore *p);

/* ckst_pend.v.iOff of a TEXT item that keeps no text (a transaction's) */
#define CKST_TEXT_NONE 0xffffffffu

/* The namer of the pending item being placed (ckst_namer): its value. */
static char *ckst_pend_name(void *pArg) {
  const ckstore *p = (const ckstore *)pArg;
  const ckst_pend *e;
  assert(p->defer.iItem >= 0 && (uint32_t)p->defer.iItem < p->defer.nAlloc);
  e = &p->defer.aVal[p->defer.iItem];
  switch (e->eType) {
  case SQLITE_INTEGER: return sqlite3_mprintf("%lld", e->v.i);
  case SQLITE_FLOAT: return sqlite3_mprintf("%!.15g", e->v.r);
  case SQLITE_TEXT:
    /* a transaction's item, which no drain can refuse (see the top) */
    if (e->v.iOff == CKST_TEXT_NONE) return sqlite3_mprintf("a TEXT value");
    /* as cksql_describe_value(): the first bytes are enough for '%.40q' */
    assert(e->v.iOff < p->defer.nText);
    return sqlite3_mprintf("'%.40q'", p->defer.aText + e->v.iOff);
  default: return sqlite3_mprintf("a BLOB");
  }
}

/* Does an item match any level?  (-1: error, as ckst_match) */
static int ckst_match_any(ckstore *p, uint64_t hash) {
  int i;
  for (i = p->nLevel - 1; i >= 0; i--) {
    int m;
    if (p->aLevel[i].nCount == 0) continue; /* (nothing to read) */
    m = ckst_match(p, i, hash);
    if (m != 0) return m;
  }
  return 0;
}

/* Place pending item i as ckst_insert() would, named by its value; an OR
** IGNORE item is placed only if it is still absent (see ckst_absent). */
static int ckst_place(ckstore *p, uint32_t i) {
  ckst_namer nm;
  int rc;
  if (p->defer.aVal[i].bIfAbsent) {
    int m = ckst_match_any(p, p->defer.aHash[i]);
    if (m < 0) return ckst_store_rc(p);
    if (m) return SQLITE_OK;
  }
  nm.xName = ckst_pend_name;
  nm.pArg = p;
  p->defer.iItem = (int)i;
  p->pName = &nm;
  rc = ckst_insert_hash(p, p->defer.aHash[i]);
  p->pName = 0;
  p->defer.iItem = -1;
  return rc;
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

/* After a batch in a transaction placed n items on the newest level: its
** bound on the copies of one item (ckst_level.nCopyMax) takes theirs,
** aCopies[x] for item x, counted by the batch as it placed each (a later
** copy of the same fingerprint in the same buckets counts them again; no
** removal in a batch, and a displacement keeps a fingerprint in its two
** buckets).  A batch of items recorded outside a transaction does not
** count (it would read both buckets of every item, where placing reads
** one): the bound becomes unknown, and the next transaction that needs it
** scans the level's image once (ckst_txn_check). */
static void ckst_copies_batch(ckst_level *pL, const uint8_t *aCopies,
                              size_t n) {
  uint32_t m = pL->nCopyMax;
  size_t x;
  assert(m != CKST_COPIES_UNKNOWN); /* (not counted then) */
  for (x = 0; x < n; x++) {
    if (aCopies[x] > m) m = aCopies[x];
  }
  pL->nCopyMax = m;
}

static int ckst_drain_batch(ckstore *p, uint32_t *pi) {
  uint32_t i = *pi, n = p->defer.n;
  unsigned nDiscard = p->defer.nDiscard;
  int iMarked = -1, rc = SQLITE_OK;
  signed char aLvl[CKST_CHUNK];
  uint8_t aFound[CKST_CHUNK], aCopies[CKST_CHUNK];
  /* the bound on copies is kept for a transaction's items (its rows
  ** read it; they may be placed by its COMMIT, where SQLite already says
  ** autocommit); for others it becomes unknown (ckst_level.nCopyMax) */
  int bCount = p->defer.bTxn;
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
    if (p->defer.bIfAbsent) {
      for (j = 0; j < c; j++) {
        /* an OR IGNORE item goes through ckst_place(), as one matching an
        ** older level does */
        aLvl[j] = p->defer.aVal[i + j].bIfAbsent ? 0 : -1;
      }
    } else {
      memset(aLvl, -1, c);
    }
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
        uint8_t *pCopies; /* counted only for a bound that is kept */
        if (p->growth) {
          uint64_t nRoom =
              pL->p.capacity > pL->nCount ? pL->p.capacity - pL->nCount : 0;
          if (m > nRoom) m = nRoom;
        }
        pL->img.count = pL->nCount;
        if (m && (rc = ckst_log_reserve(p, (uint32_t)m)) != SQLITE_OK) {
          i += j;
          goto done;
        }
        pCopies = bCount && pL->nCopyMax != CKST_COPIES_UNKNOWN ? aCopies : 0;
        nDone = m ? cf_insert_batch_copies(&pL->img, p->defer.aHash + i + j,
                                           m, 0, pCopies)
                  : 0;
        if (nDone > 0) {
          if (pCopies) {
            ckst_copies_batch(pL, pCopies, nDone);
          } else {
            pL->nCopyMax = CKST_COPIES_UNKNOWN;
          }
          pL->nCount += nDone;
          pL->bCountDirty = 1;
          ckst_log_add_n(p, iLast, p->defer.aHash + i + j, nDone);
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

static CUCKOO_NOINLINE int ckst_drain_pending(ckstore *p) {
  uint32_t i = 0, n = p->defer.n;
  unsigned nDiscard = p->defer.nDiscard;
  int rc;
  /* (the keys of items left pending may change) */
  ckst_keys_clear(p);
  ckst_tally_clear(p, 0);
  rc = ckst_drain_batch(p, &i);
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
  for (i = 0; i < p->defer.n; i++)
    p->defer.aVal[i].bKeyed = 0; /* (the set was emptied) */
  p->defer.bNoKey = p->defer.n > 0;
  p->defer.iNoKey = 0;
  if (p->defer.n == 0) {
    p->defer.nText = 0; /* (else offsets stay valid) */
    p->defer.bIfAbsent = 0;
  }
  assert(rc != SQLITE_OK || p->defer.n == 0);
  return rc;
}

/* Levels kept spare by the rule for transactions (see the top). */
#define CKST_DEFER_SPARE 2

/*
** In a transaction: how many items may be pending.  The room of the
** newest level (its capacity less its count: no drain grows the table
** for capacity), with growth on, if the table can still add
** CKST_DEFER_SPARE levels (rule 2: each of twice the capacity, while
** ckst_grow() could make it), for the rare level that refuses an insert
** before its capacity; 0 otherwise.  That depends only on the number of
** levels and the newest one's capacity: kept for those (bGrowOk).
*/
static uint64_t ckst_safe(ckstore *p) {
  ckst_defer *d = &p->defer;
  const ckst_level *pL = &p->aLevel[p->nLevel - 1];
  uint64_t cap = pL->p.capacity;
  if (!p->growth) return 0;
  if (d->nSafeLevels != p->nLevel || d->nSafeCap != cap) {
    int k;
    for (k = p->nLevel; k < p->nLevel + CKST_DEFER_SPARE; k++) {
      if (k >= CKST_MAX_LEVELS || cap > ((uint64_t)1 << 61) ||
          cf_fp_bits_for(ckst_level_rate(p, k), p->bucketSize) == 0) {
        break;
      }
      cap *= 2;
    }
    d->bGrowOk = k == p->nLevel + CKST_DEFER_SPARE;
    d->nSafeLevels = p->nLevel;
    d->nSafeCap = pL->p.capacity;
  }
  if (!d->bGrowOk || pL->p.capacity <= pL->nCount) return 0;
  return pL->p.capacity - pL->nCount;
}

/* ckst_last_key() below, and the item's limit of copies on that level
** in *pnLimit: 2b, or b if its two buckets are one. */
static CF_ALWAYS_INLINE uint64_t ckst_last_key_limit(const ckstore *p,
                                                     uint64_t hash,
                                                     uint32_t *pnLimit) {
  const ckst_level *pL = &p->aLevel[p->nLevel - 1];
  cf_key k = ckst_key(pL, hash);
  uint32_t i2 = cf_alt_in(&pL->p, k.i1, k.fp);
  *pnLimit = (i2 != k.i1 ? 2 : 1) * pL->p.bucket_size;
  return ((uint64_t)k.fp << 32) | (k.i1 < i2 ? k.i1 : i2);
}

/* The key of an item on the newest level: its fingerprint and the smaller
** of its two buckets.  Two items share their two buckets and fingerprint
** on that level exactly when their keys are equal; never 0. */
static uint64_t ckst_last_key(const ckstore *p, uint64_t hash) {
  uint32_t nLimit;
  return ckst_last_key_limit(p, hash, &nLimit);
}

/*
** OR IGNORE: is the item probably present?  *pWhere = 1 if it matches a
** level (the store as placed), 2 if only a pending item that the newest
** level will take (its key is the item's: the fingerprint lands in the
** item's buckets), 0 if neither.  A pending item that goes to an older
** level matches the item there only if the item already matches it
** (rule 3 puts it there because its own fingerprint is in its buckets).
** The caller keeps the newest level unchanged while items are pending
** (no growth: they fit its room), so the keys stay valid; a drain whose
** level refuses an item grows the table anyway, which is why an item
** found only among the pending ones is recorded as bIfAbsent and checked
** again when its turn comes (never a false negative).
*/
static int ckst_absent(ckstore *p, uint64_t hash, int bPending, int *pWhere) {
  int m;
  *pWhere = 0;
  /* (every bucket it reads was asked for by ckst_record) */
  m = ckst_match_any(p, hash);
  if (m < 0) return ckst_store_rc(p);
  *pWhere = m ? 1 : bPending ? 2 : 0;
  return SQLITE_OK;
}

/* Room for one more pending item (and nText more bytes of TEXT): 0 if
** it is there, 1 at a bound, or an error. */
static int ckst_pend_room(ckstore *p, uint32_t nText) {
  ckst_defer *d = &p->defer;
  assert(d->n <= d->nAlloc && d->nAlloc <= CKST_PEND_MAX);
  if (d->n == d->nAlloc) {
    uint32_t nNew = d->nAlloc ? 2 * d->nAlloc : 256;
    uint64_t *aNewHash;
    ckst_pend *aNew;
    if (d->nAlloc >= CKST_PEND_MAX) return 1;
    if (nNew > CKST_PEND_MAX) nNew = CKST_PEND_MAX;
    aNewHash = sqlite3_realloc64(d->aHash, sizeof(uint64_t) * (uint64_t)nNew);
    if (aNewHash == 0) return SQLITE_NOMEM;
    d->aHash = aNewHash; /* (the arrays' size is nAlloc) */
    aNew = sqlite3_realloc64(d->aVal, sizeof(ckst_pend) * (uint64_t)nNew);
    if (aNew == 0) return SQLITE_NOMEM;
    d->aVal = aNew;
    d->nAlloc = nNew;
  }
  if (nText && d->nText + nText > d->nTextAlloc) {
    uint32_t nNew = d->nTextAlloc ? 2 * d->nTextAlloc : 4096;
    char *aNew;
    while (nNew < d->nText + nText)
      nNew *= 2;
    if (nNew > CKST_PEND_TEXT_MAX) return 1;
    aNew = sqlite3_realloc64(d->aText, nNew);
    if (aNew == 0) return SQLITE_NOMEM;
    d->aText = aNew;
    d->nTextAlloc = nNew;
  }
  return 0;
}

/* The namer of an item placed at once (ckst_namer). */
static char *ckst_value_name(void *pArg) {
  return cksql_describe_value((sqlite3_value *)pArg);
}

/* An item pending already, or with 2b copies stored: placed at once,
** after the pending items (ckst_insert() drains them first). */
static int ckst_insert_hot(ckstore *p, uint64_t hash, sqlite3_value *pItem) {
  ckst_namer nm;
  nm.xName = ckst_value_name;
  nm.pArg = pItem;
  return ckst_insert(p, hash, &nm);
}

/*
** In a transaction, may the item be recorded?  Its copy can be refused by
** a drain (after its statement) only as "too many copies": its two
** buckets on the newest level full of its fingerprint.  Those copies are
** the ones stored now (bCount: none to count while the level's bound on
** the copies of one item is below the item's limit; else counted here, one
** read of its two buckets, fetched together) and those of pending items
** with its key, which the key set rules out (bPending: one is pending;
** an OR IGNORE item found absent has no stored copies and does not come
** here).  *pbHot = 0: it may; 1: place it at once (its statement then
** fails if it must).
*/
static int ckst_txn_check(ckstore *p, uint64_t hash, int bPending,
                          int *pbHot) {
  ckst_level *pL = &p->aLevel[p->nLevel - 1];
  int iLast = p->nLevel - 1, rc;
  cf_key k;
  uint32_t i2, n = 0, j, nLimit;
  uint32_t aFp[CF_MAX_BUCKET_SIZE];
  rc = SQLITE_OK;
  *pbHot = bPending;
  if (bPending || pL->nCount == 0) return SQLITE_OK; /* (none stored) */
  if (pL->nCopyMax == CKST_COPIES_UNKNOWN && pL->aImg) {
    /* unknown since a bulk insert outside a transaction: one scan */
    pL->nCopyMax = ckst_copies_scan(pL);
  }
  if (pL->nCopyMax < pL->p.bucket_size) {
    /* below any item's limit (b or 2b): nothing to read, no key needed */
#ifndef NDEBUG
    k = ckst_key(pL, hash);
    assert(!pL->aImg || cf_copies(&pL->img, k) <= pL->nCopyMax);
#endif
    return SQLITE_OK;
  }
  k = ckst_key(pL, hash);
  i2 = cf_alt_in(&pL->p, k.i1, k.fp);
  nLimit = (i2 != k.i1 ? 2 : 1) * pL->p.bucket_size;
  if (pL->nCopyMax < nLimit) {
    /* no item has nLimit copies on the level: nothing to read */
    assert(!pL->aImg || cf_copies(&pL->img, k) <= pL->nCopyMax);
    return SQLITE_OK;
  }
  if (pL->aImg) {
    /* the level's image: both buckets asked for at once, then read */
    const cf_filter *f = &pL->img;
    CF_PREFETCH(f->table + (((uint64_t)i2 * f->bucket_bits) >> 3));
    cf_region_get(&pL->p, f->table, f->table_size, k.i1, aFp);
    for (j = 0; j < pL->p.bucket_size; j++)
      n += aFp[j] == k.fp;
    if (i2 != k.i1) {
      cf_region_get(&pL->p, f->table, f->table_size, i2, aFp);
      for (j = 0; j < pL->p.bucket_size; j++)
        n += aFp[j] == k.fp;
    }
  } else {
    ckst_prefetch_bucket(p, iLast, i2);
    rc = ckst_get_bucket(p, iLast, k.i1, aFp);
    for (j = 0; rc == SQLITE_OK && j < pL->p.bucket_size; j++)
      n += aFp[j] == k.fp;
    if (rc == SQLITE_OK && i2 != k.i1) {
      rc = ckst_get_bucket(p, iLast, i2, aFp);
      for (j = 0; rc == SQLITE_OK && j < pL->p.bucket_size; j++)
        n += aFp[j] == k.fp;
    }
  }
  *pbHot = n >= nLimit;
  return rc;
}

/* A TEXT item's bytes kept to name it: enough for the 40 characters of
** cksql_describe_value(), 4 bytes each at most. */
#define CKST_TEXT_KEPT 160

/* The bytes of a TEXT item kept to name it: *pz, and *pn of them with
** their NUL.  SQLITE_NOMEM if the text cannot be had. */
static CF_ALWAYS_INLINE int ckst_text_kept(sqlite3_value *pItem,
                                           const unsigned char **pz,
                                           uint32_t *pn) {
  int n = sqlite3_value_bytes(pItem);
  *pz = sqlite3_value_text(pItem); /* (converted by the hash) */
  if (*pz == 0) return SQLITE_NOMEM;
  *pn = (uint32_t)(n < CKST_TEXT_KEPT ? n : CKST_TEXT_KEPT) + 1;
  return SQLITE_OK;
}

/* The record of an item, past the pending items (not counted in n or
** nText): its type and value, a TEXT item's nText kept bytes zText at
** the end of aText (room checked; none kept if zText is 0). */
static CF_ALWAYS_INLINE void
ckst_pend_write(ckst_defer *d, uint64_t hash, int eType, sqlite3_int64 iv,
                sqlite3_value *pItem, const unsigned char *zText,
                uint32_t nText) {
  ckst_pend *e = &d->aVal[d->n];
  d->aHash[d->n] = hash;
  e->eType = eType;
  e->bKeyed = 0;
  e->bIfAbsent = 0;
  if (eType == SQLITE_INTEGER) {
    e->v.i = iv;
  } else if (eType == SQLITE_FLOAT) {
    e->v.r = sqlite3_value_double(pItem);
  } else if (eType == SQLITE_TEXT) {
    if (zText == 0) {
      e->v.iOff = CKST_TEXT_NONE;
    } else {
      e->v.iOff = d->nText;
      memcpy(d->aText + d->nText, zText, nText - 1);
      d->aText[d->nText + nText - 1] = 0;
    }
  }
}

/* ckst_insert_later() for every row but the short ones it records
** itself: eType is the item's type, and an INTEGER item's value and hash
** are given (and another item's hash if bHashed). */
static CUCKOO_NOINLINE int ckst_record(ckstore *p, sqlite3_value *pItem,
                                      int eType, int mFlags,
                                      sqlite3_int64 iv, uint64_t hash,
                                      int bHashed, uint64_t *pHash) {
  ckst_defer *d = &p->defer;
  int rc, where = 0, bPending = 0, bSafe = 0;
  uint8_t *pTally = 0;
  uint64_t key = 0;
  uint32_t nText = 0, iSlot = 0;
  const unsigned char *zText = 0;
  ckst_pend *e;
  if (eType == SQLITE_NULL) return -1;
  if (eType != SQLITE_INTEGER) { /* (an INTEGER is hashed by the caller) */
    if (!bHashed) {
      rc = cksql_item_hash_typed(pItem, eType, p->hasher.seed, &hash);
      if (rc != SQLITE_OK) return rc;
    }
    if (eType == SQLITE_TEXT && !(mFlags & CKST_LATER_TXN)) {
      /* (a transaction's item is never named: see the top) */
      rc = ckst_text_kept(pItem, &zText, &nText);
      if (rc != SQLITE_OK) return rc;
    }
  }
  *pHash = hash;
  if (d->n == 0) {
    ckst_mark_statement(p);
    d->bTxn = (mFlags & CKST_LATER_TXN) != 0; /* (as every item's) */
    if (d->bTxn) d->nSafe = ckst_safe(p);
    ckst_window(p);
  }
  if ((mFlags & CKST_LATER_TXN) && d->n >= d->nSafe) return -1;
  if (d->n >= CKST_PEND_MAX) return -1;
  if (mFlags & CKST_LATER_IF_ABSENT) {
    /* the newest level must keep its geometry: the items fit its room */
    const ckst_level *pL = &p->aLevel[p->nLevel - 1];
    if (pL->nCount + d->n >= pL->p.capacity) return -1;
    /* the lookup's buckets asked for first: the rest of the row's work
    ** (its key, the set, its record) runs while they come */
    ckst_prefetch(p, hash);
  }
  if (mFlags & (CKST_LATER_TXN | CKST_LATER_IF_ABSENT)) {
    /* these rows read the tally or ask the key set (see "Copies of one
    ** item") */
    uint32_t nLimit;
    if (d->n >= d->nWindow) return -1; /* (the window is full) */
    key = ckst_last_key_limit(p, hash, &nLimit);
    if (d->bTxn && !(mFlags & CKST_LATER_IF_ABSENT)) {
      /* (an OR IGNORE row is counted by the next row that reads the
      ** tally: ckst_tally_fill) */
      if (ckst_tally_room(d) != SQLITE_OK) return SQLITE_NOMEM;
      if (d->nTallied < d->n) ckst_tally_fill(p);
      pTally = &d->aTally[ckst_tally_slot(d, key)];
      bSafe = ckst_tally_safe(&p->aLevel[p->nLevel - 1], *pTally, nLimit);
    }
    if (!bSafe) {
      if (ckst_keys_room(d) != SQLITE_OK) return SQLITE_NOMEM;
      if (d->bNoKey) ckst_keys_fill(p);
      bPending = ckst_key_find(d, key, &iSlot);
    }
  }
  rc = ckst_pend_room(p, nText);
  if (rc != 0) return rc == 1 ? -1 : rc; /* at a bound: placed at once */
  /* The record, written past the pending items: kept (n++) only if the
  ** row is recorded; a drain of the others (a hot row) ignores it. */
  ckst_pend_write(d, hash, eType, iv, pItem, zText, nText);
  e = &d->aVal[d->n];
  if (mFlags & CKST_LATER_IF_ABSENT) {
    rc = ckst_absent(p, hash, bPending, &where);
    if (rc != SQLITE_OK) return rc;
    if (where == 1) return SQLITE_DONE;
    /* where 0: no copy stored (it matches no level), none pending */
  } else if ((mFlags & CKST_LATER_TXN) && !bSafe) {
    int bHot = 0;
    rc = ckst_txn_check(p, hash, bPending, &bHot);
    if (rc != SQLITE_OK) return rc;
    if (bHot) return ckst_insert_hot(p, hash, pItem);
  }
  d->n++;
  d->nText += nText;
  e->bIfAbsent = where == 2;
  if (where == 2) d->bIfAbsent = 1;
  if (pTally) {
    if (*pTally < 255) (*pTally)++; /* (see ckst_tally_fill) */
    d->nTallied = d->n;
  }
  if (key == 0 || bSafe) {
    d->bNoKey = 1; /* (an autocommit row, or one the tally let through) */
  } else if (!bPending) {
    /* (the slot ckst_key_find() gave: the set has not changed since) */
    assert(d->aKey[iSlot] == 0);
    d->aKey[iSlot] = key;
    e->bKeyed = 1;
    d->bKeyUsed = 1;
  }
  return where == 2 ? SQLITE_DONE : SQLITE_OK;
}

/* A transaction's row that the tally lets through, with room: recorded
** as ckst_record() would (its counter, read and raised, is its only
** check), or 0 if it is not such a row. */
static int ckst_txn_quick(ckstore *p, sqlite3_value *pItem, int eType,
                          sqlite3_int64 iv, uint64_t hash) {
  ckst_defer *d = &p->defer;
  uint32_t nLimit;
  uint64_t key = ckst_last_key_limit(p, hash, &nLimit);
  uint8_t *c = &d->aTally[ckst_tally_slot(d, key)];
  if (!ckst_tally_safe(&p->aLevel[p->nLevel - 1], *c, nLimit)) return 0;
  (*c)++; /* (below 16: it was safe) */
  ckst_pend_write(d, hash, eType, iv, pItem, 0, 0); /* (no text: the top) */
  d->n++;
  d->nTallied = d->n;
  d->bNoKey = 1;
  return 1;
}

/* ckst_insert_later() for a plain row of a transaction, with items
** pending: the row of a load in a transaction, kept short too when it
** can be (ckst_txn_quick). */
static CUCKOO_NOINLINE int ckst_later_txn(ckstore *p, sqlite3_value *pItem,
                                          int eType, sqlite3_int64 iv,
                                          uint64_t hash, uint64_t *pHash) {
  ckst_defer *d = &p->defer;
  int bHashed = 0;
  if (d->bTxn && d->n < d->nAlloc && d->n < d->nSafe && d->n < d->nWindow &&
      d->nTallied == d->n && d->nTally >= 4 * d->nWindow &&
      eType != SQLITE_NULL) {
    if (eType != SQLITE_INTEGER) {
      int rc = cksql_item_hash_typed(pItem, eType, p->hasher.seed, &hash);
      if (rc != SQLITE_OK) return rc;
      bHashed = 1;
    }
    *pHash = hash;
    if (ckst_txn_quick(p, pItem, eType, iv, hash)) return SQLITE_OK;
  }
  return ckst_record(p, pItem, eType, CKST_LATER_TXN, iv, hash, bHashed,
                     pHash);
}

int ckst_insert_later(ckstore *p, sqlite3_value *pItem, int mFlags,
                      uint64_t *pHash) {
  ckst_defer *d = &p->defer;
  int eType;
  sqlite3_int64 iv = 0;
  uint64_t hash = 0;
  if (!p->bLoaded) return -1;
  eType = sqlite3_value_type(pItem);
  if (eType == SQLITE_INTEGER) {
    /* the bulk load's item: read once, hashed inline */
    iv = sqlite3_value_int64(pItem);
    hash = cksql_hash_int(&p->hasher, iv);
    if (mFlags == 0 && d->n > 0 && d->n < d->nAlloc) {
      /* An autocommit row with room: ckst_record()'s record, with
      ** nothing to check (the first pending item marked the statement;
      ** an autocommit row is not in the key set: bNoKey) and nothing
      ** kept but its value.  The bulk load's row, kept short. */
      *pHash = hash;
      ckst_pend_write(d, hash, SQLITE_INTEGER, iv, pItem, 0, 0);
      d->n++;
      d->bNoKey = 1;
      return SQLITE_OK;
    }
  }
  if (mFlags == CKST_LATER_TXN && d->n > 0) {
    return ckst_later_txn(p, pItem, eType, iv, hash, pHash);
  }
  return ckst_record(p, pItem, eType, mFlags, iv, hash, 0, pHash);
}

void ckst_defer_discard(ckstore *p, int bRollback) {
  ckst_defer *d = &p->defer;
  d->nDiscard++;
  /* the pending items are newer than the savepoint rolled back to, unless
  ** that savepoint's drain failed (see the top) */
  if (d->n > 0 && d->bStale) d->bLost = 1;
  if (d->bKeyUsed) {
    /* (cleared whole: the levels may have been forgotten already) */
    memset(d->aKey, 0, sizeof(uint64_t) * d->nKeySlot);
    d->bKeyUsed = 0;
  }
  ckst_tally_clear(p, 1);
  d->n = 0;
  d->nText = 0;
  d->bIfAbsent = 0;
  d->bNoKey = 0;
  d->iNoKey = 0;
  d->bFailed = 0;
  d->bStale = 0;
  if (bRollback) d->bLost = 0;
}

int ckst_defer_check_flush(ckstore *p) {
  if (!p->defer.bLost) return SQLITE_OK;
  /* A savepoint rollback discarded pending inserts older than the
  ** savepoint: only the whole transaction can be rolled back. */
  return ckst_error(p, SQLITE_ERROR,
                    "inserts that failed to be placed were discarded by a "
                    "savepoint's rollback; the transaction must be rolled "
                    "back");
}

void ckst_defer_free(ckstore *p) {
  sqlite3_free(p->defer.aKey);
  sqlite3_free(p->defer.aTally);
  sqlite3_free(p->defer.aText);
  sqlite3_free(p->defer.aVal);
  sqlite3_free(p->defer.aHash);
  memset(&p->defer, 0, sizeof(p->defer));
  p->defer.iItem = -1;
}
