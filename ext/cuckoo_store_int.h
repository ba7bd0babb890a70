/*
** Copyright (c) 2026 the cuckoo authors.  MIT License: see LICENSE.
**
** cuckoo_store_int.h: what the files of the block store share, and only
** they (cuckoo_vtab.c sees the store through cuckoo_store.h).
**
** The store's files, by concern (the rules are those of cuckoo_store.h):
**
**   cuckoo_store.c        the store itself: options, life cycle, messages,
**                         item operations (rules 1-3), transactions
**   cuckoo_store_io.c     the shadow tables: their DDL and statements,
**                         loading and validating rows (rule 6), writing
**                         levels, flush (rule 4), refresh (rule 5), rename
**   cuckoo_store_level.c  levels and growth (rule 2), the block cache,
**                         level images, export and import
**   cuckoo_store_defer.c  deferred inserts (ckst_insert_later, ckst_drain)
**   cuckoo_store_log.c    the operation log of format 3 (T_log): recording,
**                         writing a commit's row, merging, replaying
**   cuckoo_store_scan.c   browsing: scans, their rowids, copies per item
**   cuckoo_store_check.c  the integrity check and the JSON description
**
** struct ckstore is defined here.  Ownership: the store owns its names,
** its message (until ckst_take_error() hands it over), its prepared
** statements and every cached block; strings passed in are copied.
** Messages all start with the table's label: ckst_error() adds ": ",
** ckst_full() " is full", ckst_corrupt() " is corrupt: ".
**
** Invariants checked with assert() (compiled out with -DNDEBUG):
**   - 1 <= nLevel <= CKST_MAX_LEVELS whenever bLoaded;
**   - a level's nPer is a multiple of 8 and nBytes = nPer * B / 8;
**   - every cached block's nBytes is its level's, and b->a points at
**     them (after the header, or into the level's image);
**   - nEntry <= nSlot / 2 (the cache's load factor);
**   - a dirty block is in aDirty, and nDirty <= nDirtyAlloc.
*/
#ifndef CUCKOO_STORE_INT_H
#define CUCKOO_STORE_INT_H

#include "cuckoo_store.h"

#include <assert.h>

/* The shadow tables of table T are T_config, T_levels and T_blocks; each
** suffix is named here once.  CKST_TABLE(x) is "schema"."T_x" in SQL built
** with sqlite3_mprintf(zSql, zDb, zName). */
#define CKST_CONFIG "config"
#define CKST_LEVELS "levels"
#define CKST_BLOCKS "blocks"
#define CKST_LOG "log"
#define CKST_TABLE(x) "\"%w\".\"%w_" x "\""
/* Every row of T_blocks: id, data, in id order (cuckoo_check). */
#define CKST_SQL_ALL_BLOCKS                                                    \
  "SELECT id, data FROM " CKST_TABLE(CKST_BLOCKS) " ORDER BY id"

/* Statements kept prepared (reset after every use); their SQL, parameters
** and result columns are in cuckoo_store_io.c (ckst_azSql). */
enum {
  CKST_READ_BLOCK,
  CKST_DATA_VERSION,
  CKST_READ_COOKIE,
  CKST_WRITE_COOKIE,
  CKST_WRITE_COUNT,
  CKST_INSERT_BLOCK,
  CKST_INSERT_LEVEL,
  CKST_LAST_BLOCK,
  CKST_FIRST_BLOCK,
  CKST_READ_LEVEL,
  CKST_INSERT_LOG,
  CKST_READ_CONFIG,
  CKST_READ_LEVELS,
  CKST_READ_LOG,
  CKST_ALL_BLOCKS,
  CKST_NSTMT
};

/* Block j of level L has row id L*2^32 + j in T_blocks. */
#define CKST_ID(iLevel, j) (((uint64_t)(iLevel) << 32) | (uint64_t)(j))

/* One level: a filter of its own geometry cut into blocks. */
typedef struct ckst_level {
  cf_params p;
  uint32_t nPer;        /* buckets per block (a multiple of 8) */
  uint32_t nBytes;      /* bytes of each block */
  uint64_t nBlock;      /* blocks of the level */
  uint64_t nCount;      /* items stored */
  uint64_t nCountSaved; /* items as the levels row has them */
  int bCountDirty;      /* nCount differs from the levels row */
  cf_filter view;       /* a block of the level, for cf_view_*() */
  /* The image: every block of the level in one array (blocks laid end to
  ** end are the level's bucket array), so that the core's in-memory
  ** lookup and batched insert work on the cached level directly.  Built
  ** (ckst_level_image) when a bulk insert or many single block loads
  ** need most of the level and it fits in half the cache budget; each
  ** cached block of the level then points into it. */
  uint8_t *aImg; /* headers of nBlock blocks, CF header, blocks; or NULL */
  cf_filter img; /* the level as a filter over aImg (count unused) */
  uint64_t nGot; /* blocks of the level loaded one by one */
  uint64_t nLogOps; /* format 3: operations on the level since the last
                    ** merge (those of the log included) */
  /* An upper bound on the copies of one item on the level (the copies of
  ** a fingerprint in one pair of buckets: an item is refused as "too many
  ** copies" only where its pair holds 2b of them, or b where its two
  ** buckets are one), or CKST_COPIES_UNKNOWN.  0 for a level made empty
  ** in memory (a new table, growth); unknown for a level loaded from its
  ** row or imported, and after a bulk insert outside a transaction,
  ** until a transaction needs it and scans the level's image
  ** (ckst_copies_scan: twice the most copies of one fingerprint in a
  ** bucket).  Every other insert into the level raises it to its item's
  ** copies once placed (counted in the item's two buckets, which the
  ** insert just read); a removal or a displacement (a fingerprint moves
  ** within its pair) cannot raise a pair's count.  ckst_txn_check() skips
  ** the read of a row's buckets while it is below the item's limit. */
  uint32_t nCopyMax;
} ckst_level;
#define CKST_COPIES_UNKNOWN 0xffffffffu

/* A hash a scan pinned to a level (see ckst_scan_hash). */
typedef struct ckst_pin {
  uint64_t h;
  int iLevel; /* level + 1; 0: empty slot */
} ckst_pin;

/* A pending insert's value, for messages (its hash is in aHash). */
typedef struct ckst_pend {
  int eType;     /* SQLITE_INTEGER, SQLITE_FLOAT, SQLITE_TEXT or SQLITE_BLOB */
  unsigned char bIfAbsent; /* an OR IGNORE/REPLACE row: placed only if
                           ** still absent */
  unsigned char bKeyed;    /* its key is in the key set (ckst_defer.aKey) */
  union {
    sqlite3_int64 i;
    double r;
    uint32_t iOff; /* TEXT: its first bytes, NUL-terminated, at aText+iOff */
  } v;
} ckst_pend;

/* The deferred inserts of one table (cuckoo_store_defer.c): the items
** recorded by ckst_insert_later() and not yet placed, in order. */
typedef struct ckst_defer {
  uint64_t *aHash; /* their hashes */
  ckst_pend *aVal; /* and their values, to name them in messages */
  uint32_t n, nAlloc;
  int bIfAbsent; /* a pending item may be bIfAbsent (cleared when none is) */
  int bTxn;      /* the pending items were recorded in a transaction */
  char *aText; /* the TEXT items' first bytes (CKST_PEND_TEXT_MAX at most) */
  uint32_t nText, nTextAlloc;
  uint64_t nSafe; /* in a transaction: items that may be pending (ckst_safe) */
  int nSafeLevels; /* levels and newest capacity bGrowOk was found for */
  uint64_t nSafeCap;
  int bGrowOk; /* the table can add CKST_DEFER_SPARE levels */
  /* The key set: the keys (fingerprint, smaller bucket) on the newest
  ** level of the pending items marked bKeyed, each once; open addressing,
  ** 0 is an empty slot (cuckoo_store_defer.c, "Copies of one item"). */
  uint64_t *aKey;
  uint32_t nKeySlot; /* power of two, or 0 */
  uint32_t nWindow;  /* how many rows with keys may be pending (ckst_window) */
  int bKeyUsed;      /* a key may be in the set */
  int bNoKey;        /* a pending item may be neither bKeyed nor have its
                     ** key in the set (ckst_keys_fill adds them) */
  uint32_t iNoKey;   /* the items before it are not such items */
  /* The tally (in a transaction): for the pending items from 0 to
  ** nTallied, how many have a key that falls in each counter; at least
  ** the number of pending items with a given key (cuckoo_store_defer.c,
  ** "Copies of one item"). */
  uint8_t *aTally;
  uint32_t nTally;   /* counters: power of two, 4 per item of the window */
  uint32_t nTallied;
  int iItem;          /* >= 0: the pending item being placed (messages) */
  int bFailed;        /* the last drain failed: its items are pending */
  int bStale;         /* a savepoint's drain failed: items predate it */
  int bLost;          /* a discard dropped pending items older than it */
  unsigned nDiscard;  /* ckst_discard() calls, to notice one in a drain */
} ckst_defer;

/*
** The operation log of a format-3 table (cuckoo_store_log.c).  What the
** table holds is its stored blocks and counts with the rows of T_log
** applied in id order; in memory, blocks changed since the last merge
** stay cached and dirty ("logged-dirty") across commits.  aOp holds the
** operations made since the last row was written, CKST_LOG_OP bytes each
** (the op byte, then the item hash big-endian); a flush writes them as one
** row, or merges (writes the dirty blocks and counts and deletes every
** row).  bOff: recording stopped because the next flush merges anyway.
*/
#define CKST_LOG_OP 9
typedef struct ckst_log {
  uint8_t *aOp;
  uint32_t nOp, nAlloc; /* operations in aOp, and its room (operations) */
  int bOff;
  int bReplay;          /* replaying: nothing is recorded */
  int bInOp;            /* an operation is under way: its blocks may hold
                        ** half of it, so no merge (ckst_block_load) */
  sqlite3_int64 nBytes; /* bytes of the rows in T_log */
  sqlite3_int64 nRow;   /* rows in T_log */
  sqlite3_int64 nReplayed; /* operations replayed by the last load */
  sqlite3_int64 nMerge;    /* merges made by this connection */
} ckst_log;

/* A cached block: its bytes at a, right after this header (allocated
** with it) or in its level's image (iImg: the level + 1; the header is
** then part of the image's allocation too). */
typedef struct ckst_block {
  uint64_t id;
  int bDirty;
  int bAbsent; /* no row in T_blocks yet (format 2): a flush INSERTs it */
  uint32_t nBytes;
  int iImg;
  uint8_t *a;
} ckst_block;

struct ckstore {
  sqlite3 *db;
  char *zDb;    /* schema name */
  char *zName;  /* table name */
  char *zLabel; /* "cuckoo table NAME" or "cuckoo table SCHEMA.NAME" */
  char *zErr;   /* message of the last error */
  /* A savepoint's flush failed (ckst_savepoint): its code and message,
  ** returned by every later operation until the transaction rolls back */
  int rcSticky;
  char *zSticky;
  int bMain;    /* zDb is "main" */
  /* Configuration (valid when bLoaded) */
  int bLoaded;
  int version;         /* the table's shadow-table format version (1 or 2) */
  cksql_hasher hasher; /* the table's seed, and the item hash under it */
  unsigned bucketSize;
  uint32_t flags;
  double errorRate;
  int growth;
  sqlite3_int64 capacity;
  int blockSize;
  sqlite3_int64 cacheKib;
  sqlite3_int64 cookie;
  int nLevel;
  ckst_level aLevel[CKST_MAX_LEVELS];
  sqlite3_int64 iDataVersion;
  unsigned int uPagerVersion; /* pager data version at the last full check */
  int bPagerVersion;          /* uPagerVersion is valid */
  /* Block cache: open addressing on block id */
  ckst_block **aSlot;
  uint32_t nSlot;  /* power of two, or 0 */
  uint32_t nEntry; /* blocks cached */
  sqlite3_int64 nCacheBytes;
  sqlite3_int64 nEvictAt; /* > budget: evict only past this (the dirty
                          ** blocks of format 3 fill the budget) */
  ckst_block *pLast; /* most recently used block */
  uint64_t *aDirty;  /* ids of dirty blocks */
  uint32_t nDirty, nDirtyAlloc;
  int bDirtyUnsorted; /* aDirty may be out of id order (ckst_dirty_sort) */
  int bChanged;             /* changed since the cookie was last bumped */
  int bCookieBumped;        /* the cookie was bumped in this transaction */
  /* The value this transaction bumped the cookie to (bCookieTxn: it did),
  ** kept across a ROLLBACK TO: the reload that follows finds it still
  ** there if the rollback did not undo the bump (ckst_load_config). */
  int bCookieTxn;
  sqlite3_int64 iCookieTxn;
  sqlite3_int64 nBlockRead; /* blocks read from the shadow table */
  int rcStore;              /* error code of a failed cf_store callback */
  const ckst_namer *pName;  /* names the item being inserted (messages) */
  ckst_defer defer;         /* deferred inserts (cuckoo_store_defer.c) */
  /* The statement making changes (ckst_mark_statement) */
  unsigned uOwnChanges; /* total_changes() added by the store's own SQL */
  unsigned uMark;       /* total_changes() - uOwnChanges at the mark */
  int bMarked;          /* uMark and nMarkStored are valid */
  uint64_t nMarkStored; /* items stored when that statement began */
  sqlite3_stmt *aStmt[CKST_NSTMT];
  ckst_log log; /* the operation log (format 3; cuckoo_store_log.c) */
  /* Hashes pinned by scans: open addressing, until ckst_scan_end() */
  ckst_pin *aPin;
  uint32_t nPin, nPinSlot;
};

/* ---------------------------------------------------------------------
** Messages (cuckoo_store.c).  Each sets the store's message and returns
** the result code (SQLITE_NOMEM if the message could not be built).
*/
CUCKOO_PRIVATE int ckst_error(ckstore *p, int rc, const char *zFmt, ...);
CUCKOO_PRIVATE int ckst_full(ckstore *p, const char *zFmt, ...);
CUCKOO_PRIVATE int ckst_corrupt(ckstore *p, const char *zFmt, ...);
CUCKOO_PRIVATE int ckst_corrupt_block(ckstore *p, int iLevel, uint64_t j,
                                      const char *zFmt, ...);
CUCKOO_PRIVATE int ckst_sqlerr(ckstore *p, int rc);
CUCKOO_PRIVATE const char *ckst_type_name(int eType);
CUCKOO_PRIVATE int ckst_set_names(ckstore *p, const char *zName);

/* ---------------------------------------------------------------------
** Item operations on levels (cuckoo_store.c)
*/

/* The level's key of an item. */
static inline cf_key ckst_key(const ckst_level *pL, uint64_t hash) {
  return cf_key_in(&pL->p, hash);
}
/* Does level iLevel hold a fingerprint matching hash?  (-1: error, the
** code in p->rcStore for ckst_store_rc()) */
CUCKOO_PRIVATE int ckst_match(ckstore *p, int iLevel, uint64_t hash);
/* The result code a failed store operation leaves (message set). */
CUCKOO_PRIVATE int ckst_store_rc(ckstore *p);
/* ckst_insert() of a hash, pending ones not drained first. */
CUCKOO_PRIVATE int ckst_insert_hash(ckstore *p, uint64_t hash);
/* Read bucket iBucket of level iLevel (decoded) through the cache. */
CUCKOO_PRIVATE int ckst_get_bucket(ckstore *p, int iLevel, uint64_t iBucket,
                                   uint32_t *fps);

/* ---------------------------------------------------------------------
** Shadow tables (cuckoo_store_io.c)
*/
CUCKOO_PRIVATE int ckst_stmt(ckstore *p, int i, sqlite3_stmt **pp);
CUCKOO_PRIVATE int ckst_read_stmt(ckstore *p, int i, const char *zSuffix,
                                  sqlite3_stmt **pp);
CUCKOO_PRIVATE int ckst_read_fail(ckstore *p, const char *zSuffix, int rc);
CUCKOO_PRIVATE int ckst_prepare_shadow(ckstore *p, const char *zFmt,
                                       const char *zSuffix,
                                       sqlite3_stmt **ppStmt);
CUCKOO_PRIVATE int ckst_block_row(ckstore *p, sqlite3_stmt *pStmt, int iCol,
                                  int iLevel, uint64_t j, uint8_t *a,
                                  uint32_t nBytes);
/* Block j of level iLevel into a[]: an absent row (format 2) reads as
** zeros and sets *pbAbsent; in a format-1 table it is corruption. */
CUCKOO_PRIVATE int ckst_read_block(ckstore *p, int iLevel, uint64_t j,
                                   uint8_t *a, uint32_t nBytes, int *pbAbsent);
/* An absent block j of level iLevel: zeros in a format-2 table, else
** SQLITE_CORRUPT_VTAB "is missing". */
CUCKOO_PRIVATE int ckst_absent_block(ckstore *p, int iLevel, uint64_t j);
CUCKOO_PRIVATE int ckst_load(ckstore *p);
CUCKOO_PRIVATE int ckst_write_level(ckstore *p, int iLevel,
                                    const uint8_t *aTable, uint64_t nTable);
CUCKOO_PRIVATE int ckst_clear_levels(ckstore *p);
CUCKOO_PRIVATE int ckst_flush_blocks(ckstore *p);
CUCKOO_PRIVATE int ckst_refresh(ckstore *p);

/* ---------------------------------------------------------------------
** Levels and the block cache (cuckoo_store_level.c)
*/

static inline uint32_t ckst_slot_of(uint64_t id, uint32_t nSlot) {
  return (uint32_t)((id * 0x9E3779B97F4A7C15ULL) >> 32) & (nSlot - 1);
}

/* The cached block of id, or NULL (the cache keeps ownership). */
static inline ckst_block *ckst_cache_find(const ckstore *p, uint64_t id) {
  uint32_t i;
  if (p->nSlot == 0) return 0;
  assert((p->nSlot & (p->nSlot - 1)) == 0 && p->nEntry * 2 <= p->nSlot);
  for (i = ckst_slot_of(id, p->nSlot);; i = (i + 1) & (p->nSlot - 1)) {
    ckst_block *b = p->aSlot[i];
    if (b == 0 || b->id == id) return b;
  }
}

/* The cached copy of block j of level iLevel, loaded on a miss (out of
** line: ckst_block_load). */
CUCKOO_PRIVATE int ckst_block_load(ckstore *p, int iLevel, uint64_t j,
                                   ckst_block **ppB);
static inline int ckst_block_get(ckstore *p, int iLevel, uint64_t j,
                                 ckst_block **ppB) {
  uint64_t id = CKST_ID(iLevel, j);
  ckst_block *b;
  assert(iLevel >= 0 && iLevel < p->nLevel && j < p->aLevel[iLevel].nBlock);
  if (p->pLast && p->pLast->id == id) {
    *ppB = p->pLast;
    return SQLITE_OK;
  }
  b = ckst_cache_find(p, id);
  if (b == 0) return ckst_block_load(p, iLevel, j, ppB);
  assert(b->nBytes == p->aLevel[iLevel].nBytes);
  p->pLast = b;
  *ppB = b;
  return SQLITE_OK;
}
CUCKOO_PRIVATE int ckst_cache_reserve_n(ckstore *p, uint64_t n);
CUCKOO_PRIVATE void ckst_cache_clear(ckstore *p);
CUCKOO_PRIVATE int ckst_mark_dirty(ckstore *p, ckst_block *b);
CUCKOO_PRIVATE void ckst_dirty_sort(ckstore *p);
CUCKOO_PRIVATE int ckst_level_image(ckstore *p, int iLevel);
CUCKOO_PRIVATE uint32_t ckst_copies_scan(const ckst_level *pL);
CUCKOO_PRIVATE void ckst_level_blocks(ckst_level *pL, uint32_t nPer);
CUCKOO_PRIVATE int ckst_append_level(ckstore *p, const cf_params *pp,
                                     const uint8_t *aTable, uint64_t nTable,
                                     uint64_t nCount);
CUCKOO_PRIVATE int ckst_level_params(ckstore *p, sqlite3_int64 capacity,
                                     double er, cf_params *pp, char **pzErr);
CUCKOO_PRIVATE double ckst_level_rate(const ckstore *p, int k);
CUCKOO_PRIVATE int ckst_grow(ckstore *p);
/* True if a[] has only zero bits from bit iBit on (n bytes in all). */
CUCKOO_PRIVATE int ckst_zero_from(const uint8_t *a, uint64_t n, uint64_t iBit);
/* Buckets of level pL that live in block j. */
CUCKOO_PRIVATE uint64_t ckst_buckets_in(const ckst_level *pL, uint64_t j);

/* ---------------------------------------------------------------------
** Deferred inserts (cuckoo_store_defer.c): ckst_insert_later() and
** ckst_drain() are the API (cuckoo_store.h); the store's side is below.
*/

/* Note what the table holds when a statement makes its first change
** (for the "full" message; cuckoo_store.c). */
CUCKOO_PRIVATE void ckst_mark_statement(ckstore *p);

/* Items are pending (every reader drains them first). */
static inline int ckst_defer_pending(const ckstore *p) {
  return p->defer.n > 0;
}
/* The store forgets what it holds in memory (ckst_discard): drop the
** pending items, remembering it when they were those of a failed drain;
** bRollback (the whole transaction's rollback) forgets that too. */
CUCKOO_PRIVATE void ckst_defer_discard(ckstore *p, int bRollback);
/* Before a flush: an error if a savepoint rollback dropped the pending
** items of a failed drain (only the transaction's rollback may follow). */
CUCKOO_PRIVATE int ckst_defer_check_flush(ckstore *p);
/* The error a savepoint's flush kept (ckst_savepoint), or SQLITE_OK. */
CUCKOO_PRIVATE int ckst_sticky(ckstore *p);
CUCKOO_PRIVATE void ckst_defer_free(ckstore *p);

/* ---------------------------------------------------------------------
** The operation log (cuckoo_store_log.c); every function is a no-op on a
** table of format 1 or 2, which writes its blocks at every flush.
*/

/* Op bytes: bit 7 set for a removal, bits 0-4 the level. */
#define CKST_OP_REMOVE 0x80
#define CKST_OP_LEVEL 0x1f
/* Make room to record n more changes, before they are made (an
** operation that cannot be recorded is not made: SQLITE_NOMEM); when the
** log would reach the bound at which the next flush merges anyway,
** recording stops instead (log.bOff). */
CUCKOO_PRIVATE int ckst_log_reserve(ckstore *p, uint32_t n);
/* Record a change made to level iLevel (the insert or removal of a copy
** of hash), in the room reserved. */
CUCKOO_PRIVATE void ckst_log_add(ckstore *p, int op, int iLevel, uint64_t hash);
/* ckst_log_add() of n inserts into level iLevel, of aHash[0..n) (a
** batch). */
CUCKOO_PRIVATE void ckst_log_add_n(ckstore *p, int iLevel,
                                   const uint64_t *aHash, size_t n);
/* This connection holds changes not yet in the shadow tables (it is the
** writer: no other connection can have committed).  Inline: every cursor
** asks (ckst_refresh). */
static inline int ckst_log_writing(const ckstore *p) {
  return p->log.nOp > 0 || p->log.bOff || p->bChanged ||
         ckst_defer_pending(p);
}
/* The flush of rule 4 for the blocks: a log row, or a merge. */
CUCKOO_PRIVATE int ckst_log_flush(ckstore *p);
/* Write every dirty block and changed count, delete every log row: the
** shadow tables then hold the table without a log. */
CUCKOO_PRIVATE int ckst_log_merge(ckstore *p);
/* Read T_log (at load), validate and apply every row in order. */
CUCKOO_PRIVATE int ckst_log_replay(ckstore *p);
/* Forget the log's state in memory (discard, and after the rows are
** deleted with the levels). */
CUCKOO_PRIVATE void ckst_log_reset(ckstore *p);
CUCKOO_PRIVATE void ckst_log_free(ckstore *p);
/* Insert a copy into one level, or remove one from it (shared with
** cuckoo_store.c): CF_* codes; a removal gives CF_FULL when the level holds
** no copy. */
CUCKOO_PRIVATE int ckst_insert_level(ckstore *p, int iLevel, uint64_t hash);
CUCKOO_PRIVATE int ckst_remove_level(ckstore *p, int iLevel, uint64_t hash);
/* Write the changed counts (levels rows). */
CUCKOO_PRIVATE int ckst_flush_counts(ckstore *p);
/* Drop every clean cached block, keep the dirty ones (a reader's cache
** over its budget, which cannot write). */
CUCKOO_PRIVATE void ckst_cache_evict_clean(ckstore *p);

/* ---------------------------------------------------------------------
** Scans (cuckoo_store_scan.c)
*/

/* The level pinned to hash h by a scan, or -1. */
CUCKOO_PRIVATE int ckst_pin_find(const ckstore *p, uint64_t h);

#endif /* CUCKOO_STORE_INT_H */
