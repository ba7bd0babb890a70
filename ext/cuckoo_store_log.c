/*
** Copyright (c) 2026 the cuckoo authors.  MIT License: see LICENSE.
**
** cuckoo_store_log.c: the operation log of a format-3 cuckoo table, so
** that a commit writes what its transaction changed, not every block it
** touched (docs/format.md#shadow-tables, docs/virtual-table.md "What a
** commit writes").
**
**   S.T_log(id INTEGER PRIMARY KEY, ops BLOB)
**       one row per flush that changed the table and did not merge: the
**       changes made since the previous row, in order, CKST_LOG_OP = 9
**       bytes each:
**
**         byte 0      op: bit 7 set = remove a copy, clear = insert one;
**                     bits 0-4 the level; bits 5-6 zero
**         bytes 1-8   the item's 64-bit hash, big-endian
**
** The table is its blocks and levels rows with the rows of T_log applied
** in id order.  Rules:
**   1. Placement is deterministic: an insert into a level (ckst_insert_level:
**      a free slot of the first bucket, then the second, then the core's
**      walk, whose choices are hashes of fingerprint, bucket and step) puts
**      the same fingerprint in the same slot given the same level, and a
**      removal clears the same slot.  The op names its level, so a replay
**      needs none of the choices that depend on other levels or on a
**      scan's pins; it is exact.  A failed insert (full, too many copies)
**      changes nothing and is not logged.
**   2. Growth, import and emptying write levels rows: the log is merged
**      first (ckst_append_level), so no row ever replays against levels
**      it was not made on.
**   3. A flush (xSync, xSavepoint) merges when the log, after this row,
**      would be at least 1/CKST_LOG_K of the dirty blocks' bytes (merging
**      then costs at most CKST_LOG_K times the log's bytes), when the
**      dirty blocks exceed half the cache budget (every connection that
**      replays the log must hold them), or when recording stopped (an
**      allocation failed, or the operations of this flush alone reach the
**      bound: a bulk load merges at once and writes no log).  Otherwise
**      it writes one row and the dirty blocks stay cached and dirty.
**   4. Every row is validated before it is applied: a BLOB, a whole
**      number of operations, known op bits, an existing level, an insert
**      that fits and a removal of a copy that is there; anything else is
**      SQLITE_CORRUPT_VTAB naming the row and the operation, and the load
**      fails (nothing is kept).
**   5. Crash safety is SQLite's: a row and a merge are written inside the
**      user's transaction.
*/
#include "cuckoo_store_int.h"

#include <math.h>
#include <string.h>

/* Merge when (log bytes) * CKST_LOG_K >= dirty block bytes: a merge
** writes the dirty blocks, so the blocks cost at most CKST_LOG_K bytes
** per byte of log, about 9 * CKST_LOG_K bytes per operation (twice that
** with the journal), and a replay reads at most 1/CKST_LOG_K of the
** blocks' bytes in log. */
#define CKST_LOG_K 4

static sqlite3_int64 ckst_dirty_bytes(const ckstore *p);

/* Bytes of all levels' blocks: no more than that can be dirty. */
static sqlite3_int64 ckst_level_bytes(const ckstore *p) {
  sqlite3_int64 n = 0;
  int i;
  for (i = 0; i < p->nLevel; i++)
    n += (sqlite3_int64)(p->aLevel[i].nBlock * p->aLevel[i].nBytes);
  return n;
}

int ckst_log_reserve(ckstore *p, uint32_t n) {
  ckst_log *g = &p->log;
  uint64_t nWant = (uint64_t)g->nOp + n, nNew;
  uint8_t *aNew;
  if (p->version < 3 || g->bReplay) return SQLITE_OK;
  /* The changed blocks (estimated) fill the cache budget: merge before
  ** the operation (every connection that replays must hold them).  The
  ** estimate is below the levels' bytes, so a table smaller than the
  ** budget skips it (an exp() per level, at every operation). */
  if (ckst_level_bytes(p) > p->cacheKib * 1024 &&
      ckst_dirty_bytes(p) > p->cacheKib * 1024) {
    int rc = ckst_log_merge(p);
    if (rc != SQLITE_OK) return rc;
    nWant = n;
  }
  if (g->bOff || nWant <= g->nAlloc) return SQLITE_OK;
  /* The flush merges once the log reaches the blocks' bytes over K:
  ** past that, recording is pointless (and the bound keeps aOp small). */
  if ((g->nBytes + (sqlite3_int64)nWant * CKST_LOG_OP) * CKST_LOG_K >=
          ckst_level_bytes(p) ||
      nWant > 0x10000000) {
    g->bOff = 1;
    g->nOp = 0;
    return SQLITE_OK;
  }
  for (nNew = g->nAlloc ? g->nAlloc : 1024; nNew < nWant; nNew *= 2) {
  }
  aNew = sqlite3_realloc64(g->aOp, nNew * CKST_LOG_OP);
  if (aNew == 0) return SQLITE_NOMEM;
  g->aOp = aNew;
  g->nAlloc = (uint32_t)nNew;
  return SQLITE_OK;
}

/* Append one operation to aOp (room reserved): the op byte, then the
** hash big-endian (a host of unknown order is taken as little-endian, as
** cuckoo_bucket.h does). */
static void ckst_log_put(ckst_log *g, int opLevel, uint64_t hash) {
  uint8_t *a = g->aOp + (size_t)g->nOp++ * CKST_LOG_OP;
#if !(defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__)
  hash = CF_BSWAP64(hash);
#endif
  a[0] = (uint8_t)opLevel;
  memcpy(a + 1, &hash, 8);
}

void ckst_log_add(ckstore *p, int op, int iLevel, uint64_t hash) {
  ckst_log *g = &p->log;
  if (p->version < 3) return;
  p->aLevel[iLevel].nLogOps++;
  if (g->bReplay || g->bOff) return;
  assert(iLevel >= 0 && iLevel <= CKST_OP_LEVEL && g->nOp < g->nAlloc);
  ckst_log_put(g, op | iLevel, hash);
}

void ckst_log_add_n(ckstore *p, int iLevel, const uint64_t *aHash,
                    size_t n) {
  size_t i;
  if (p->version < 3) return;
  if (p->log.bReplay || p->log.bOff) {
    p->aLevel[iLevel].nLogOps += n; /* (what ckst_log_add() counts) */
    return;
  }
  if (n == 0) return;
  assert(iLevel >= 0 && iLevel <= CKST_OP_LEVEL &&
         p->log.nOp + n <= p->log.nAlloc);
  p->aLevel[iLevel].nLogOps += n;
  for (i = 0; i < n; i++)
    ckst_log_put(&p->log, iLevel, aHash[i]); /* (ckst_log_add, op 0) */
}

void ckst_log_reset(ckstore *p) {
  ckst_log *g = &p->log;
  g->nOp = 0;
  g->bOff = 0;
  g->bReplay = 0;
  g->nBytes = 0;
  g->nRow = 0;
}

void ckst_log_free(ckstore *p) {
  sqlite3_free(p->log.aOp);
  memset(&p->log, 0, sizeof(p->log));
}

/* The bytes a merge would write: the blocks that the operations since
** the last merge changed, estimated from their number on each level (m
** operations on random buckets of a level of n blocks change about
** n * (1 - e^(-m/n)) of them; displacements touch a few more).  An
** estimate from the operations, not the cache's dirty marks, so that the
** choice between a log row and a merge, hence the bytes stored, is the
** same whichever way the operations were made: a bulk insert into a
** level's image marks every block dirty, and when the image cannot be
** allocated the same inserts, one by one, mark only theirs. */
static sqlite3_int64 ckst_dirty_bytes(const ckstore *p) {
  double n = 0;
  int i;
  for (i = 0; i < p->nLevel; i++) {
    const ckst_level *pL = &p->aLevel[i];
    double nb = (double)pL->nBlock;
    if (pL->nLogOps == 0 || nb == 0) continue;
    n += (double)pL->nBytes * nb * (1.0 - exp(-(double)pL->nLogOps / nb));
  }
  return (sqlite3_int64)n;
}

int ckst_log_merge(ckstore *p) {
  int rc = ckst_flush_blocks(p);
  if (rc == SQLITE_OK) rc = ckst_flush_counts(p);
  if (rc == SQLITE_OK && p->version >= 3 && p->log.nRow > 0) {
    sqlite3_stmt *pStmt = 0;
    rc = ckst_prepare_shadow(p, "DELETE FROM " CKST_TABLE(CKST_LOG), CKST_LOG,
                             &pStmt);
    if (rc == SQLITE_OK) {
      unsigned u0 = (unsigned)sqlite3_total_changes(p->db);
      rc = sqlite3_step(pStmt);
      p->uOwnChanges += (unsigned)sqlite3_total_changes(p->db) - u0;
      rc = rc == SQLITE_DONE ? SQLITE_OK : ckst_sqlerr(p, rc);
    }
    sqlite3_finalize(pStmt);
    if (rc == SQLITE_OK) p->bChanged = 1;
  }
  if (rc == SQLITE_OK) {
    int i;
    for (i = 0; i < p->nLevel; i++)
      p->aLevel[i].nLogOps = 0;
    p->nEvictAt = 0; /* the blocks are clean: evict them as usual */
    if (p->log.nRow > 0 || p->log.nOp > 0 || p->log.bOff) p->log.nMerge++;
    p->log.nOp = 0;
    p->log.bOff = 0;
    p->log.nBytes = 0;
    p->log.nRow = 0;
  }
  return rc;
}

/* INSERT the operations recorded since the last row as a new row. */
static int ckst_log_write(ckstore *p) {
  ckst_log *g = &p->log;
  sqlite3_stmt *pStmt = 0;
  sqlite3_int64 n = (sqlite3_int64)g->nOp * CKST_LOG_OP;
  int rc;
  if (g->nOp == 0) return SQLITE_OK;
  if (n > sqlite3_limit(p->db, SQLITE_LIMIT_LENGTH, -1)) {
    return ckst_log_merge(p);
  }
  rc = ckst_stmt(p, CKST_INSERT_LOG, &pStmt);
  if (rc != SQLITE_OK) return rc;
  sqlite3_bind_blob(pStmt, 1, g->aOp, (int)n, SQLITE_STATIC);
  {
    unsigned u0 = (unsigned)sqlite3_total_changes(p->db);
    rc = sqlite3_step(pStmt);
    p->uOwnChanges += (unsigned)sqlite3_total_changes(p->db) - u0;
  }
  if (rc == SQLITE_DONE) {
    rc = sqlite3_reset(pStmt);
  } else {
    rc = ckst_sqlerr(p, rc);
    sqlite3_reset(pStmt);
  }
  sqlite3_clear_bindings(pStmt);
  if (rc != SQLITE_OK) return rc;
  g->nBytes += n;
  g->nRow++;
  g->nOp = 0;
  p->bChanged = 1;
  return SQLITE_OK;
}

int ckst_log_flush(ckstore *p) {
  ckst_log *g = &p->log;
  sqlite3_int64 nDirty, nLog;
  if (p->version < 3) {
    int rc = ckst_flush_blocks(p);
    return rc == SQLITE_OK ? ckst_flush_counts(p) : rc;
  }
  if (g->nOp == 0 && !g->bOff) return SQLITE_OK; /* all in the log */
  nDirty = ckst_dirty_bytes(p);
  nLog = g->nBytes + (sqlite3_int64)g->nOp * CKST_LOG_OP;
  if (g->bOff || nLog * CKST_LOG_K >= nDirty ||
      nDirty > p->cacheKib * 1024 / 2) {
    return ckst_log_merge(p);
  }
  return ckst_log_write(p);
}

/* Apply operation k of log row iRow (a[0..8]); rule 4. */
static int ckst_log_apply(ckstore *p, sqlite3_int64 iRow, int k,
                          const uint8_t *a) {
  int iLevel = a[0] & CKST_OP_LEVEL, bRemove = (a[0] & CKST_OP_REMOVE) != 0;
  uint64_t hash = 0;
  int i, rc;
  if (a[0] & ~(CKST_OP_REMOVE | CKST_OP_LEVEL)) {
    return ckst_corrupt(p,
                        "row %lld of %s_" CKST_LOG " has op byte 0x%02x at "
                        "operation %d (allowed: bit 7 = remove, bits 0-4 = "
                        "the level)",
                        iRow, p->zName, a[0], k);
  }
  if (iLevel >= p->nLevel) {
    return ckst_corrupt(p,
                        "row %lld of %s_" CKST_LOG " names level %d at "
                        "operation %d, but the table has %d levels",
                        iRow, p->zName, iLevel, k, p->nLevel);
  }
  for (i = 0; i < 8; i++)
    hash = (hash << 8) | a[1 + i];
  rc = bRemove ? ckst_remove_level(p, iLevel, hash)
               : ckst_insert_level(p, iLevel, hash);
  if (rc == CF_OK) return SQLITE_OK;
  if (rc == CF_IOERR) return ckst_store_rc(p);
  if (rc == CF_CORRUPT) return SQLITE_CORRUPT_VTAB;
  sqlite3_free(ckst_take_error(p));
  return ckst_corrupt(p,
                      "row %lld of %s_" CKST_LOG " cannot be applied: "
                      "operation %d %s level %d (%s)",
                      iRow, p->zName, k,
                      bRemove ? "removes an item absent from" : "inserts into",
                      iLevel,
                      bRemove           ? "no such copy"
                      : rc == CF_FULL   ? "the level is full"
                                        : "too many copies");
}

/* Validate and apply one row (rule 4). */
static int ckst_log_row(ckstore *p, sqlite3_stmt *pStmt) {
  sqlite3_int64 iRow = sqlite3_column_int64(pStmt, 0);
  int eType = sqlite3_column_type(pStmt, 1);
  const uint8_t *a = (const uint8_t *)sqlite3_column_blob(pStmt, 1);
  int n = sqlite3_column_bytes(pStmt, 1), k, rc = SQLITE_OK;
  if (eType != SQLITE_BLOB || n == 0 || n % CKST_LOG_OP != 0) {
    return ckst_corrupt(p,
                        "row %lld of %s_" CKST_LOG " is %s of %d bytes; "
                        "allowed: a BLOB of a whole number of %d-byte "
                        "operations",
                        iRow, p->zName, ckst_type_name(eType), n, CKST_LOG_OP);
  }
  if (a == 0) return SQLITE_NOMEM;
  for (k = 0; rc == SQLITE_OK && k < n / CKST_LOG_OP; k++) {
    rc = ckst_log_apply(p, iRow, k, a + (size_t)k * CKST_LOG_OP);
  }
  if (rc == SQLITE_OK) {
    p->log.nBytes += n;
    p->log.nRow++;
    p->log.nReplayed += n / CKST_LOG_OP;
  }
  return rc;
}

int ckst_log_replay(ckstore *p) {
  sqlite3_stmt *pStmt = 0;
  int rc, bChanged = p->bChanged;
  ckst_log_reset(p);
  p->log.nReplayed = 0;
  if (p->version < 3) return SQLITE_OK;
  rc = ckst_read_stmt(p, CKST_READ_LOG, CKST_LOG, &pStmt);
  p->log.bReplay = 1;
  while (rc == SQLITE_OK && (rc = sqlite3_step(pStmt)) == SQLITE_ROW) {
    rc = ckst_log_row(p, pStmt);
  }
  p->log.bReplay = 0;
  if (rc == SQLITE_DONE) {
    rc = SQLITE_OK;
  } else if (pStmt && rc != SQLITE_OK && rc != SQLITE_CORRUPT_VTAB &&
             rc != SQLITE_NOMEM && p->zErr == 0) {
    rc = ckst_read_fail(p, CKST_LOG, rc);
  }
  if (pStmt) sqlite3_reset(pStmt);
  p->bChanged = bChanged;
  return rc;
}

int ckst_merge(ckstore *p) {
  int rc = ckst_drain(p);
  if (rc != SQLITE_OK || p->version < 3) return rc;
  rc = ckst_log_merge(p);
  if (rc == SQLITE_OK) p->bChanged = 1;
  return rc;
}
