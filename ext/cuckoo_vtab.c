/*
** Copyright (c) 2026 the cuckoo authors.  MIT License: see LICENSE.
**
** cuckoo_vtab.c: the cuckoo virtual table, a named, persistent,
** transactional filter kept in shadow tables (cuckoo_store.h is its
** interface to the storage and documents the shadow-table schema); its
** companion functions are in cuckoo_vtab_func.c.
**
**   CREATE VIRTUAL TABLE seen USING cuckoo(capacity=1000000,
**                                          error_rate=0.001);
**   INSERT INTO seen(item) VALUES ('a@b.c');          -- add one copy
**   INSERT OR IGNORE INTO seen(item) VALUES ('a@b.c'); -- add if absent
**   SELECT count(*) FROM seen WHERE item = 'a@b.c';   -- 1 or 0
**   DELETE FROM seen WHERE item = 'a@b.c';            -- remove one copy
**   INSERT INTO seen(filter) VALUES (:blob);          -- import a BLOB
**   SELECT cuckoo_export('seen');                     -- export a BLOB
**   SELECT cuckoo_check('seen');                      -- 'ok' or problems
**   SELECT cuckoo_table_info('seen');                 -- JSON
**   SELECT count(*) FROM seen;                        -- items stored
**   SELECT level, bucket, fingerprint, copies FROM seen; -- what is stored
**   INSERT INTO seen(seen) VALUES ('delete-all');     -- empty it
**   INSERT INTO seen(seen) VALUES ('merge');          -- write the log out
**
** Options (module arguments): capacity, error_rate, growth=on|off,
** bucket_size, seed, variant=plain|semisort (or semisort), block_size,
** cache_size.  Columns: item; hidden: filter (import), level, bucket,
** fingerprint, copies (read-only), and the command column named like the
** table (declared unless the table is named like another column).
**
** Rules:
**   1. A lookup row is a probably-present item (one per item, whatever
**      its copies); its rowid is the item's 64-bit hash under the table's
**      seed, which is all a DELETE needs (xUpdate gets only the rowid).
**      Its hidden columns: the newest level where it matched, the bucket
**      and fingerprint there, and copies (its fingerprint's copies in its
**      two buckets, summed over levels: like RedisBloom's CF.COUNT).
**   2. Plans: item = ? (unique), item IN (...) (all values in one xFilter
**      with sqlite3_vtab_in; a SQLite older than 3.38 has no
**      sqlite3_vtab_in and calls xFilter once per value, with the same
**      rows), rowid = ? (a lookup by hash: no item), and
**      a scan.  A scan row is one stored fingerprint (item NULL); its
**      rowid is a hash that maps to it (ckst_scan_hash), so DELETE FROM
**      without WHERE empties the table through the scan.  A scan that
**      reads no column (count(*)) takes its row count from the levels and
**      reads no block until a rowid is asked for.  A condition on item
**      other than a BINARY item = ? or IN (unusable, another operator or
**      collation) gets a plan so costly that any lookup wins, and fails in
**      xFilter with a message saying how to query instead: a scan cannot
**      answer it, its rows have no items.
**   3. INSERT adds one copy (multiset).  OR IGNORE skips an item that is
**      probably present (SQLITE_CONSTRAINT with constraint support, so
**      changes() does not count it); OR REPLACE skips it too but counts
**      it.  A NULL item is ignored.  UPDATE deletes the old item and
**      inserts the new one.  A rowid cannot be chosen.  INSERT INTO
**      t(t) VALUES ('delete-all') resets the shadow tables (the fts5
**      idiom; SQLite has no truncate call for virtual tables).
**   4. Transactions: the store's changes stay in memory until xSync or
**      xSavepoint flushes them; xRollback and xRollbackTo discard them
**      (the journal restores the shadow tables).  So ROLLBACK, ROLLBACK
**      TO and a failed statement leave the table as it was.  xOpen and
**      xBegin check for other connections' commits.
**   5. Registered INNOCUOUS: the table reads and writes only its own
**      shadow tables in its own database, as an ordinary table would, so
**      it is safe in triggers and views under trusted_schema=OFF.
**   6. PRAGMA integrity_check and quick_check run cuckoo_check() on every
**      cuckoo table (xIntegrity, registered only on SQLite 3.44 or later,
**      which knows it).
**   7. cuckoo_check(), cuckoo_export() and cuckoo_table_info() take a
**      table name (schema "main") or a schema and a table name, find the
**      table's open store on this connection (connecting it if needed)
**      and so see this connection's unflushed changes.
**   8. Inserts are deferred: an INSERT row of an item (any conflict mode
**      but FAIL) only records the item's hash and what names it
**      (ckst_insert_later(), cuckoo_store.h: at most CKST_PEND_MAX = 65536
**      items and 4 MiB of TEXT per table), and the store places them in
**      order, with overlapped memory accesses, before any read of the
**      table (xOpen, xFilter, the companion functions), at xSync and
**      xSavepoint, and at those bounds.  Every savepoint places what is
**      pending, so ROLLBACK TO and a failed statement's rollback drop
**      exactly the items inserted since.  Outside an explicit transaction
**      the statement is its own transaction: a "full" table fails it as
**      a whole wherever the failure is found.  Inside one, the store
**      records an item only where a later placement cannot refuse it
**      (growth on, room in the newest level for every pending item, and
**      fewer than 2b copies in its buckets there, with none pending), and
**      otherwise places it at once (cuckoo_store_defer.c).
**      OR IGNORE and OR REPLACE answer at once from the levels and the
**      pending items.
*/
#include "cuckoo_vtab_int.h"

#include <assert.h>
#include <string.h>

/* A row of a lookup: a probably-present item (eType SQLITE_NULL for a
** lookup by rowid, which knows the hash but not the item). */
typedef struct ckvt_row {
  sqlite3_int64 iHash;
  int eType;
  sqlite3_int64 iVal;
  double rVal;
  sqlite3_int64 iOff; /* TEXT/BLOB bytes at aBuf + iOff */
  int n;
} ckvt_row;

typedef struct ckvt_cursor {
  sqlite3_vtab_cursor base;
  int ePlan;
  /* Lookups: the rows found */
  ckvt_row *aRow;
  int nRow, nRowAlloc, iRow;
  unsigned char *aBuf;
  sqlite3_int64 nBuf, nBufAlloc;
  /* Scans: the current stored fingerprint, or, while bCountOnly, only the
  ** ordinal iOrd of the current row of nOrd */
  ckst_scan scan;
  int bScanned; /* counted in the table's nScan */
  int bCountOnly;
  sqlite3_int64 iOrd, nOrd;
} ckvt_cursor;

/* Columns.  The command column, named like the table, is declared only
** when no other column has that name. */
#define CKVT_COL_ITEM 0
#define CKVT_COL_FILTER 1
#define CKVT_COL_LEVEL 2
#define CKVT_COL_BUCKET 3
#define CKVT_COL_FINGERPRINT 4
#define CKVT_COL_COPIES 5
#define CKVT_COL_CMD 6

#define CKVT_PLAN_ERROR 0 /* needs the items: fails in xFilter */
#define CKVT_PLAN_EQ 1
#define CKVT_PLAN_IN 2
#define CKVT_PLAN_ROWID 3
#define CKVT_PLAN_SCAN 4
#define CKVT_PLAN_COUNT 5 /* a scan that reads no column */

/* Move the store's error message into the vtab; returns rc. */
static int ckvt_err(ckvt_table *pTab, int rc) {
  char *z = ckst_take_error(pTab->pStore);
  if (z) {
    sqlite3_free(pTab->base.zErrMsg);
    pTab->base.zErrMsg = z;
  }
  return rc;
}

static int ckvt_errmsg(ckvt_table *pTab, char *zMsg) {
  if (zMsg == 0) return SQLITE_NOMEM;
  sqlite3_free(pTab->base.zErrMsg);
  pTab->base.zErrMsg = zMsg;
  return SQLITE_ERROR;
}

/* ---------------------------------------------------------------------
** Create, connect, disconnect, destroy, rename
*/

static int ckvtInit(sqlite3 *db, void *pAux, int argc, const char *const *argv,
                    sqlite3_vtab **ppVtab, char **pzErr, int isCreate) {
  ckvt_global *pGlobal = (ckvt_global *)pAux;
  ckvt_table *pTab = 0;
  ckstore *pStore = 0;
  int rc;

  static const char *const azCol[] = {"item",   "filter",      "level",
                                      "bucket", "fingerprint", "copies"};
  int bCmd = 1;
  size_t i;
  char *zDecl;

  *ppVtab = 0;
  for (i = 0; i < sizeof(azCol) / sizeof(azCol[0]); i++) {
    if (sqlite3_stricmp(argv[2], azCol[i]) == 0) bCmd = 0;
  }
  zDecl = sqlite3_mprintf("CREATE TABLE x(item, filter HIDDEN, level HIDDEN, "
                          "bucket HIDDEN, fingerprint HIDDEN, copies HIDDEN"
                          "%s%w%s)",
                          bCmd ? ", \"" : "", bCmd ? argv[2] : "",
                          bCmd ? "\" HIDDEN" : "");
  if (zDecl == 0) return SQLITE_NOMEM;
  rc = sqlite3_declare_vtab(db, zDecl);
  sqlite3_free(zDecl);
  if (rc == SQLITE_OK) rc = ckst_new(db, argv[1], argv[2], &pStore);
  if (rc == SQLITE_OK && isCreate) {
    ckst_options opt;
    char *zErr = 0;
    rc = ckst_parse_args(ckst_label(pStore), argc - 3, argv + 3, &opt, &zErr);
    if (rc == SQLITE_OK) {
      rc = ckst_create(pStore, &opt);
      zErr = ckst_take_error(pStore);
    }
    if (rc != SQLITE_OK)
      *pzErr = zErr;
    else
      sqlite3_free(zErr);
  }
  if (rc == SQLITE_OK) {
    rc = sqlite3_vtab_config(db, SQLITE_VTAB_CONSTRAINT_SUPPORT, 1);
  }
  if (rc == SQLITE_OK) rc = sqlite3_vtab_config(db, SQLITE_VTAB_INNOCUOUS);
  if (rc == SQLITE_OK) {
    pTab = sqlite3_malloc64(sizeof(*pTab));
    if (pTab == 0) rc = SQLITE_NOMEM;
  }
  if (rc != SQLITE_OK) {
    ckst_free(pStore);
    return rc;
  }
  memset(pTab, 0, sizeof(*pTab));
  pTab->db = db;
  pTab->pGlobal = pGlobal;
  pTab->pStore = pStore;
  pTab->pHasher = ckst_hasher(pStore);
  pTab->bCmd = bCmd;
  pTab->pNext = pGlobal->pList;
  pGlobal->pList = pTab;
  *ppVtab = &pTab->base;
  return SQLITE_OK;
}

static int ckvtCreate(sqlite3 *db, void *pAux, int argc,
                      const char *const *argv, sqlite3_vtab **ppVtab,
                      char **pzErr) {
  return ckvtInit(db, pAux, argc, argv, ppVtab, pzErr, 1);
}

/* Connecting reads nothing: the configuration is loaded (and validated)
** on first use, so that a damaged table can still be dropped or checked. */
static int ckvtConnect(sqlite3 *db, void *pAux, int argc,
                       const char *const *argv, sqlite3_vtab **ppVtab,
                       char **pzErr) {
  return ckvtInit(db, pAux, argc, argv, ppVtab, pzErr, 0);
}

static void ckvt_cursor_free(struct ckvt_cursor *pCur);

static int ckvtDisconnect(sqlite3_vtab *pVtab) {
  ckvt_table *pTab = (ckvt_table *)pVtab;
  ckvt_table **pp = &pTab->pGlobal->pList;
  ckvt_cursor_free(pTab->pSpare);
  while (*pp && *pp != pTab)
    pp = &(*pp)->pNext;
  if (*pp) *pp = pTab->pNext;
  ckst_free(pTab->pStore);
  sqlite3_free(pTab->base.zErrMsg); /* (a message SQLite did not take) */
  sqlite3_free(pTab);
  return SQLITE_OK;
}

static int ckvtDestroy(sqlite3_vtab *pVtab) {
  ckvt_table *pTab = (ckvt_table *)pVtab;
  int rc = ckst_drop(pTab->pStore);
  if (rc != SQLITE_OK) return ckvt_err(pTab, rc);
  return ckvtDisconnect(pVtab);
}

static int ckvtRename(sqlite3_vtab *pVtab, const char *zNew) {
  ckvt_table *pTab = (ckvt_table *)pVtab;
  return ckvt_err(pTab, ckst_rename(pTab->pStore, zNew));
}

static int ckvtShadowName(const char *zName) { return ckst_is_shadow(zName); }

/* ---------------------------------------------------------------------
** Planning
*/

/* LIMIT and OFFSET constraints are passed from SQLite 3.38 on; built
** against an older sqlite3.h, their codes are defined here. */
#ifndef SQLITE_INDEX_CONSTRAINT_LIMIT
#define SQLITE_INDEX_CONSTRAINT_LIMIT 73
#define SQLITE_INDEX_CONSTRAINT_OFFSET 74
#endif

/* Is op a comparison of a column with a value (not LIMIT or OFFSET)? */
static int ckvt_is_comparison(unsigned char op) {
  return op != SQLITE_INDEX_CONSTRAINT_LIMIT &&
         op != SQLITE_INDEX_CONSTRAINT_OFFSET;
}

/* Whether constraint i is an IN list that xFilter can take whole. */
static int ckvt_in_whole(ckvt_table *pTab, sqlite3_index_info *p, int i) {
#if SQLITE_VERSION_NUMBER >= 3038000
  if (pTab->pGlobal->bVtabIn) return sqlite3_vtab_in(p, i, -1);
#else
  (void)p;
  (void)i;
#endif
  (void)pTab;
  return 0;
}

static int ckvtBestIndex(sqlite3_vtab *pVtab, sqlite3_index_info *p) {
  ckvt_table *pTab = (ckvt_table *)pVtab;
  int i, iEq = -1, iIn = -1, iRowid = -1, bNeedItems = 0;
  for (i = 0; i < p->nConstraint; i++) {
    const struct sqlite3_index_constraint *c = &p->aConstraint[i];
    const char *zColl;
    if (c->iColumn == -1 && c->usable && c->op == SQLITE_INDEX_CONSTRAINT_EQ) {
      if (iRowid < 0) iRowid = i;
      continue;
    }
    if (c->iColumn != CKVT_COL_ITEM || !ckvt_is_comparison(c->op)) continue;
    zColl = sqlite3_vtab_collation(p, i);
    if (!c->usable || c->op != SQLITE_INDEX_CONSTRAINT_EQ ||
        (zColl && sqlite3_stricmp(zColl, "BINARY") != 0)) {
      /* A scan cannot answer it: items are not stored. */
      bNeedItems = 1;
      continue;
    }
    if (ckvt_in_whole(pTab, p, i)) {
      if (iIn < 0) iIn = i;
    } else if (iEq < 0) {
      iEq = i;
    }
  }
  if (iEq >= 0) {
    p->aConstraintUsage[iEq].argvIndex = 1;
    p->aConstraintUsage[iEq].omit = 1;
    p->idxNum = CKVT_PLAN_EQ;
    p->idxStr = "item=?";
    p->estimatedCost = 1.0;
    p->estimatedRows = 1;
    p->idxFlags = SQLITE_INDEX_SCAN_UNIQUE;
  } else if (iIn >= 0) {
    p->aConstraintUsage[iIn].argvIndex = 1;
    p->aConstraintUsage[iIn].omit = 1;
#if SQLITE_VERSION_NUMBER >= 3038000
    sqlite3_vtab_in(p, iIn, 1); /* only reached when bVtabIn */
#endif
    p->idxNum = CKVT_PLAN_IN;
    p->idxStr = "item IN (...)";
    p->estimatedCost = 10.0;
    p->estimatedRows = 10;
  } else if (bNeedItems) {
    /* A condition on item that is not a lookup: a scan cannot answer it
    ** (its rows have no items).  Make sure any lookup plan wins, and fail
    ** in xFilter if this plan runs. */
    p->idxNum = CKVT_PLAN_ERROR;
    p->idxStr = "cannot list items";
    p->estimatedCost = 1e18;
    p->estimatedRows = (sqlite3_int64)1 << 60;
  } else if (iRowid >= 0) {
    p->aConstraintUsage[iRowid].argvIndex = 1;
    p->aConstraintUsage[iRowid].omit = 1;
    p->idxNum = CKVT_PLAN_ROWID;
    p->idxStr = "rowid=?";
    p->estimatedCost = 1.0;
    p->estimatedRows = 1;
    p->idxFlags = SQLITE_INDEX_SCAN_UNIQUE;
  } else {
    /* Every stored fingerprint.  A scan that reads no column (count(*))
    ** counts rows from the levels' item counts without reading blocks. */
    p->idxNum = p->colUsed == 0 ? CKVT_PLAN_COUNT : CKVT_PLAN_SCAN;
    p->idxStr = p->colUsed == 0 ? "scan (count only)" : "scan";
    p->estimatedCost = 1e12;
    p->estimatedRows = 1000000;
  }
  return SQLITE_OK;
}

/* ---------------------------------------------------------------------
** Cursors
*/

static void ckvt_cursor_free(ckvt_cursor *pCur) {
  if (pCur == 0) return;
  sqlite3_free(pCur->aRow);
  sqlite3_free(pCur->aBuf);
  sqlite3_free(pCur);
}

/* A correlated subquery (EXISTS (SELECT 1 FROM t WHERE item = p.x)) opens
** and closes a cursor per outer row: the table keeps the last closed
** cursor, with its row and value buffers, for the next xOpen. */
static int ckvtOpen(sqlite3_vtab *pVtab, sqlite3_vtab_cursor **ppCursor) {
  ckvt_table *pTab = (ckvt_table *)pVtab;
  ckvt_cursor *pCur;
  int rc = ckst_ready(pTab->pStore, 1);
  if (rc != SQLITE_OK) return ckvt_err(pTab, rc);
  pCur = pTab->pSpare;
  if (pCur) {
    pTab->pSpare = 0;
  } else {
    pCur = sqlite3_malloc64(sizeof(*pCur));
    if (pCur == 0) return SQLITE_NOMEM;
    memset(pCur, 0, sizeof(*pCur));
  }
  *ppCursor = &pCur->base;
  return SQLITE_OK;
}

static int ckvtClose(sqlite3_vtab_cursor *cur) {
  ckvt_cursor *pCur = (ckvt_cursor *)cur;
  ckvt_table *pTab = (ckvt_table *)cur->pVtab;
  /* Rowids of scan rows stay valid (for DELETE) while a scan is open. */
  assert(!pCur->bScanned || pTab->nScan > 0);
  if (pCur->bScanned && --pTab->nScan == 0) ckst_scan_end(pTab->pStore);
  if (pTab->pSpare == 0) {
    /* kept: everything but the buffers (and their sizes) starts over */
    ckvt_row *aRow = pCur->aRow;
    unsigned char *aBuf = pCur->aBuf;
    int nRowAlloc = pCur->nRowAlloc;
    sqlite3_int64 nBufAlloc = pCur->nBufAlloc;
    memset(pCur, 0, sizeof(*pCur));
    pCur->aRow = aRow;
    pCur->nRowAlloc = nRowAlloc;
    pCur->aBuf = aBuf;
    pCur->nBufAlloc = nBufAlloc;
    pTab->pSpare = pCur;
    return SQLITE_OK;
  }
  ckvt_cursor_free(pCur);
  return SQLITE_OK;
}

/* Append item v (hash h) as a row, copying its value. */
static int ckvt_add_row(ckvt_cursor *pCur, sqlite3_value *v, uint64_t h) {
  ckvt_row *r;
  if (pCur->nRow == pCur->nRowAlloc) {
    int nNew = pCur->nRowAlloc ? pCur->nRowAlloc * 2 : 4;
    ckvt_row *aNew =
        sqlite3_realloc64(pCur->aRow, sizeof(ckvt_row) * (sqlite3_uint64)nNew);
    if (aNew == 0) return SQLITE_NOMEM;
    pCur->aRow = aNew;
    pCur->nRowAlloc = nNew;
  }
  assert(pCur->nRow < pCur->nRowAlloc);
  r = &pCur->aRow[pCur->nRow];
  memset(r, 0, sizeof(*r));
  r->iHash = (sqlite3_int64)h;
  r->eType = sqlite3_value_type(v);
  if (r->eType == SQLITE_INTEGER) {
    r->iVal = sqlite3_value_int64(v);
  } else if (r->eType == SQLITE_FLOAT) {
    r->rVal = sqlite3_value_double(v);
  } else {
    const void *z = r->eType == SQLITE_TEXT
                        ? (const void *)sqlite3_value_text(v)
                        : sqlite3_value_blob(v);
    int n = sqlite3_value_bytes(v);
    if (z == 0 && n > 0) return SQLITE_NOMEM;
    if (pCur->nBuf + n > pCur->nBufAlloc) {
      sqlite3_int64 nNew = 2 * (pCur->nBuf + n) + 64;
      unsigned char *aNew = sqlite3_realloc64(pCur->aBuf, nNew);
      if (aNew == 0) return SQLITE_NOMEM;
      pCur->aBuf = aNew;
      pCur->nBufAlloc = nNew;
    }
    if (n > 0) memcpy(pCur->aBuf + pCur->nBuf, z, (size_t)n);
    r->iOff = pCur->nBuf;
    r->n = n;
    pCur->nBuf += n;
  }
  pCur->nRow++;
  return SQLITE_OK;
}

/* Look v up; a probably-present item becomes a row. */
static int ckvt_lookup(ckvt_cursor *pCur, ckvt_table *pTab, sqlite3_value *v) {
  uint64_t h;
  int found, rc = cksql_item_hash(pTab->pHasher, v, &h);
  if (rc == SQLITE_DONE) return SQLITE_OK; /* NULL matches nothing */
  if (rc != SQLITE_OK) return rc;
  rc = ckst_contains(pTab->pStore, h, &found);
  if (rc == SQLITE_OK && found) rc = ckvt_add_row(pCur, v, h);
  return rc;
}

/* Look a rowid (an item hash) up; a match becomes a row without item. */
static int ckvt_lookup_rowid(ckvt_cursor *pCur, ckstore *pStore,
                             sqlite3_value *v) {
  int found, rc;
  if (sqlite3_value_numeric_type(v) != SQLITE_INTEGER) return SQLITE_OK;
  rc = ckst_contains(pStore, (uint64_t)sqlite3_value_int64(v), &found);
  if (rc == SQLITE_OK && found) {
    rc = ckvt_add_row(pCur, v, (uint64_t)sqlite3_value_int64(v));
    if (rc == SQLITE_OK) pCur->aRow[pCur->nRow - 1].eType = SQLITE_NULL;
  }
  return rc;
}

static int ckvt_is_scan_plan(int ePlan) {
  return ePlan == CKVT_PLAN_SCAN || ePlan == CKVT_PLAN_COUNT;
}

static int ckvtFilter(sqlite3_vtab_cursor *cur, int idxNum, const char *idxStr,
                      int argc, sqlite3_value **argv) {
  ckvt_cursor *pCur = (ckvt_cursor *)cur;
  ckvt_table *pTab = (ckvt_table *)cur->pVtab;
  ckstore *pStore = pTab->pStore;
  int rc = SQLITE_OK;
  (void)idxStr;
  assert(idxNum >= CKVT_PLAN_ERROR && idxNum <= CKVT_PLAN_COUNT);
  pCur->ePlan = idxNum;
  pCur->nRow = 0;
  pCur->iRow = 0;
  pCur->nBuf = 0;
  pCur->bCountOnly = 0;
  pCur->iOrd = pCur->nOrd = 0;
  ckst_scan_start(&pCur->scan);
  if (idxNum == CKVT_PLAN_ERROR ||
      (argc < 1 && idxNum != CKVT_PLAN_SCAN && idxNum != CKVT_PLAN_COUNT)) {
    return ckvt_errmsg(
        pTab,
        sqlite3_mprintf("%s cannot list its items (it stores fingerprints, "
                        "not items), so a condition on item other than "
                        "item = ? or item IN (...) (with the default BINARY "
                        "collation) cannot be answered; look items up with "
                        "those, or join on item",
                        ckst_label(pStore)));
  }
  rc = ckst_ready(pStore, 0);
  if (rc == SQLITE_OK && ckvt_is_scan_plan(idxNum)) {
    rc = ckst_drain(pStore); /* reads see pending items (a lookup drains) */
  }
  if (rc != SQLITE_OK) return ckvt_err(pTab, rc);
  switch (idxNum) {
  case CKVT_PLAN_EQ: rc = ckvt_lookup(pCur, pTab, argv[0]); break;
  case CKVT_PLAN_ROWID: rc = ckvt_lookup_rowid(pCur, pStore, argv[0]); break;
#if SQLITE_VERSION_NUMBER >= 3038000
  case CKVT_PLAN_IN: {
    /* planned only when sqlite3_vtab_in() exists */
    sqlite3_value *v = 0;
    for (rc = sqlite3_vtab_in_first(argv[0], &v); rc == SQLITE_OK && v;
         rc = sqlite3_vtab_in_next(argv[0], &v)) {
      rc = ckvt_lookup(pCur, pTab, v);
      if (rc != SQLITE_OK) break;
    }
    if (rc == SQLITE_DONE) rc = SQLITE_OK;
    break;
  }
#endif
  case CKVT_PLAN_COUNT:
    if (!pCur->bScanned) pTab->nScan++;
    pCur->bScanned = 1;
    pCur->bCountOnly = 1;
    pCur->nOrd = ckst_total(pStore);
    break;
  default:
    if (!pCur->bScanned) pTab->nScan++;
    pCur->bScanned = 1;
    rc = ckst_scan_next(pStore, &pCur->scan);
    break;
  }
  return ckvt_err(pTab, rc);
}

static int ckvt_is_scan(const ckvt_cursor *pCur) {
  return ckvt_is_scan_plan(pCur->ePlan);
}

static int ckvtNext(sqlite3_vtab_cursor *cur) {
  ckvt_cursor *pCur = (ckvt_cursor *)cur;
  ckvt_table *pTab = (ckvt_table *)cur->pVtab;
  if (!ckvt_is_scan(pCur)) {
    pCur->iRow++;
    return SQLITE_OK;
  }
  pCur->iOrd++;
  if (pCur->bCountOnly) return SQLITE_OK;
  return ckvt_err(pTab, ckst_scan_next(pTab->pStore, &pCur->scan));
}

static int ckvtEof(sqlite3_vtab_cursor *cur) {
  ckvt_cursor *pCur = (ckvt_cursor *)cur;
  if (!ckvt_is_scan(pCur)) return pCur->iRow >= pCur->nRow;
  if (pCur->bCountOnly) return pCur->iOrd >= pCur->nOrd;
  return pCur->scan.bEof;
}

/* A counting scan asked for more than the count: read the blocks up to the
** current row (its ordinal), and go on as a plain scan. */
static int ckvt_materialize(ckvt_cursor *pCur) {
  ckvt_table *pTab = (ckvt_table *)pCur->base.pVtab;
  ckstore *pStore = pTab->pStore;
  sqlite3_int64 i;
  int rc = SQLITE_OK;
  if (!pCur->bCountOnly) return SQLITE_OK;
  ckst_scan_start(&pCur->scan);
  for (i = 0; rc == SQLITE_OK && i <= pCur->iOrd; i++) {
    rc = ckst_scan_next(pStore, &pCur->scan);
    if (rc == SQLITE_OK && pCur->scan.bEof) {
      rc =
          ckvt_errmsg(pTab, sqlite3_mprintf("%s is corrupt: its levels "
                                            "count %lld items but its "
                                            "blocks hold %lld; run "
                                            "cuckoo_check() on it",
                                            ckst_label(pStore), pCur->nOrd, i));
      return rc == SQLITE_NOMEM ? rc : SQLITE_CORRUPT_VTAB;
    }
  }
  if (rc != SQLITE_OK) return ckvt_err(pTab, rc);
  pCur->bCountOnly = 0;
  return SQLITE_OK;
}

/* Columns of a scan row: a stored fingerprint, where it is, and its
** copies; no item. */
static int ckvt_scan_column(ckvt_cursor *pCur, sqlite3_context *ctx, int iCol) {
  ckvt_table *pTab = (ckvt_table *)pCur->base.pVtab;
  const ckst_scan *s = &pCur->scan;
  sqlite3_int64 n;
  int rc = ckvt_materialize(pCur);
  if (rc != SQLITE_OK) return rc;
  switch (iCol) {
  case CKVT_COL_LEVEL: sqlite3_result_int(ctx, s->iLevel); break;
  case CKVT_COL_BUCKET:
    sqlite3_result_int64(ctx, (sqlite3_int64)s->iBucket);
    break;
  case CKVT_COL_FINGERPRINT: sqlite3_result_int64(ctx, s->aFp[s->iSlot]); break;
  case CKVT_COL_COPIES:
    rc = ckst_scan_copies(pTab->pStore, s, &n);
    if (rc != SQLITE_OK) return ckvt_err(pTab, rc);
    sqlite3_result_int64(ctx, n);
    break;
  default: break; /* item, filter, command: NULL */
  }
  return SQLITE_OK;
}

/* The hidden columns of a lookup row: where its fingerprint matched (the
** newest level), and its copies on every level. */
static int ckvt_row_column(ckvt_cursor *pCur, sqlite3_context *ctx, int iCol) {
  ckvt_table *pTab = (ckvt_table *)pCur->base.pVtab;
  uint64_t h;
  ckst_scan s;
  sqlite3_int64 n;
  int rc;
  assert(pCur->iRow >= 0 && pCur->iRow < pCur->nRow);
  h = (uint64_t)pCur->aRow[pCur->iRow].iHash;
  if (iCol == CKVT_COL_COPIES) {
    rc = ckst_copies(pTab->pStore, h, &n);
    if (rc == SQLITE_OK) sqlite3_result_int64(ctx, n);
    return ckvt_err(pTab, rc);
  }
  rc = ckst_locate(pTab->pStore, h, &s);
  if (rc != SQLITE_OK) return ckvt_err(pTab, rc);
  if (s.bEof) return SQLITE_OK; /* removed since it was found */
  if (iCol == CKVT_COL_LEVEL) sqlite3_result_int(ctx, s.iLevel);
  if (iCol == CKVT_COL_BUCKET)
    sqlite3_result_int64(ctx, (sqlite3_int64)s.iBucket);
  if (iCol == CKVT_COL_FINGERPRINT) sqlite3_result_int64(ctx, s.aFp[s.iSlot]);
  return SQLITE_OK;
}

static int ckvtColumn(sqlite3_vtab_cursor *cur, sqlite3_context *ctx,
                      int iCol) {
  ckvt_cursor *pCur = (ckvt_cursor *)cur;
  const ckvt_row *r;
  assert(iCol >= CKVT_COL_ITEM && iCol <= CKVT_COL_CMD);
  if (iCol >= CKVT_COL_LEVEL && sqlite3_vtab_nochange(ctx)) {
    return SQLITE_OK; /* an UPDATE that leaves it alone */
  }
  if (ckvt_is_scan(pCur)) return ckvt_scan_column(pCur, ctx, iCol);
  if (iCol >= CKVT_COL_LEVEL && iCol <= CKVT_COL_COPIES) {
    return ckvt_row_column(pCur, ctx, iCol);
  }
  assert(pCur->iRow >= 0 && pCur->iRow < pCur->nRow);
  r = &pCur->aRow[pCur->iRow];
  assert(r->eType == SQLITE_NULL || r->eType == SQLITE_INTEGER ||
         r->eType == SQLITE_FLOAT || r->iOff + r->n <= pCur->nBuf);
  if (iCol != CKVT_COL_ITEM) return SQLITE_OK; /* filter, command: NULL */
  switch (r->eType) {
  case SQLITE_NULL: break;
  case SQLITE_INTEGER: sqlite3_result_int64(ctx, r->iVal); break;
  case SQLITE_FLOAT: sqlite3_result_double(ctx, r->rVal); break;
  case SQLITE_TEXT:
    sqlite3_result_text(ctx, (const char *)pCur->aBuf + r->iOff, r->n,
                        SQLITE_TRANSIENT);
    break;
  default:
    sqlite3_result_blob(ctx, pCur->aBuf + r->iOff, r->n, SQLITE_TRANSIENT);
    break;
  }
  return SQLITE_OK;
}

static int ckvtRowid(sqlite3_vtab_cursor *cur, sqlite3_int64 *pRowid) {
  ckvt_cursor *pCur = (ckvt_cursor *)cur;
  ckvt_table *pTab = (ckvt_table *)cur->pVtab;
  uint64_t h = 0;
  int rc;
  if (!ckvt_is_scan(pCur)) {
    /* rule 1: a lookup row's rowid is the item's hash */
    assert(pCur->iRow >= 0 && pCur->iRow < pCur->nRow);
    *pRowid = pCur->aRow[pCur->iRow].iHash;
    return SQLITE_OK;
  }
  rc = ckvt_materialize(pCur);
  if (rc != SQLITE_OK) return rc;
  rc = ckst_scan_hash(pTab->pStore, &pCur->scan, &h);
  if (rc != SQLITE_OK) return ckvt_err(pTab, rc);
  *pRowid = (sqlite3_int64)h;
  return SQLITE_OK;
}

/* ---------------------------------------------------------------------
** Writes
*/

static CUCKOO_NOINLINE int ckvt_import(ckvt_table *pTab, sqlite3_value *pItem,
                                       sqlite3_value *pFilter) {
  ckstore *p = pTab->pStore;
  if (sqlite3_value_type(pItem) != SQLITE_NULL) {
    return ckvt_errmsg(pTab, sqlite3_mprintf("%s: give either item or "
                                             "filter in one row, not both",
                                             ckst_label(p)));
  }
  if (sqlite3_value_type(pFilter) != SQLITE_BLOB) {
    return ckvt_errmsg(pTab,
                       sqlite3_mprintf("%s: filter must be a cuckoo filter "
                                       "BLOB, for example from cuckoo_new(),"
                                       " cuckoo_agg() or cuckoo_export()",
                                       ckst_label(p)));
  }
  return ckvt_err(pTab, ckst_import(p, sqlite3_value_blob(pFilter),
                                    sqlite3_value_bytes(pFilter)));
}

/* The columns level, bucket, fingerprint and copies describe stored
** fingerprints: they cannot be written. */
static int ckvt_check_readonly(ckvt_table *pTab, sqlite3_value **argv,
                               int isInsert) {
  static const char *const azName[] = {"level", "bucket", "fingerprint",
                                       "copies"};
  int i;
  for (i = CKVT_COL_LEVEL; i <= CKVT_COL_COPIES; i++) {
    sqlite3_value *v = argv[2 + i];
    if (isInsert ? sqlite3_value_type(v) == SQLITE_NULL
                 : sqlite3_value_nochange(v)) {
      continue;
    }
    return ckvt_errmsg(pTab,
                       sqlite3_mprintf("%s: the column %s is read-only (it "
                                       "describes a stored fingerprint); "
                                       "write item instead",
                                       ckst_label(pTab->pStore),
                                       azName[i - CKVT_COL_LEVEL]));
  }
  return SQLITE_OK;
}

/* Names an item in the store's messages (ckst_namer). */
static char *ckvt_name_value(void *pArg) {
  return cksql_describe_value((sqlite3_value *)pArg);
}

/* Is this row the command row, INSERT INTO t(t) VALUES(command)? */
static int ckvt_has_command(const ckvt_table *pTab, int argc,
                            sqlite3_value **argv) {
  return pTab->bCmd && argc > 2 + CKVT_COL_CMD &&
         sqlite3_value_type(argv[2 + CKVT_COL_CMD]) != SQLITE_NULL;
}

/* DELETE: one copy of the item whose hash is the rowid (rule 3). */
static int ckvt_delete(ckvt_table *pTab, sqlite3_value *pRowid) {
  int removed, rc = ckst_ready(pTab->pStore, 0);
  if (rc == SQLITE_OK) {
    rc = ckst_remove(pTab->pStore, (uint64_t)sqlite3_value_int64(pRowid),
                     &removed);
  }
  return ckvt_err(pTab, rc);
}

/* INSERT of a filter to import or of an item (rule 3), every row but the
** bulk-load row of ckvt_insert(). */
static CUCKOO_NOINLINE int
ckvt_insert_row(ckvt_table *pTab, sqlite3_value **argv, sqlite3_int64 *pRowid) {
  ckstore *p = pTab->pStore;
  uint64_t h;
  ckst_namer nm;
  int rc, eConflict, found;

  rc = ckst_ready(p, 0);
  if (rc != SQLITE_OK) return ckvt_err(pTab, rc);
  rc = ckvt_check_readonly(pTab, argv, 1);
  if (rc != SQLITE_OK) return rc;
  if (sqlite3_value_type(argv[3]) != SQLITE_NULL) {
    return ckvt_import(pTab, argv[2], argv[3]);
  }
  rc = cksql_item_hash(pTab->pHasher, argv[2], &h);
  if (rc == SQLITE_DONE) return SQLITE_OK; /* NULL item: ignored */
  if (rc != SQLITE_OK) return rc;
  if (sqlite3_value_type(argv[1]) != SQLITE_NULL &&
      sqlite3_value_int64(argv[1]) != (sqlite3_int64)h) {
    return ckvt_errmsg(pTab, sqlite3_mprintf("%s: the rowid is the item's "
                                             "hash and cannot be chosen",
                                             ckst_label(p)));
  }
  *pRowid = (sqlite3_int64)h; /* rule 1 */
  eConflict = sqlite3_vtab_on_conflict(pTab->db);
  if (eConflict == SQLITE_IGNORE || eConflict == SQLITE_REPLACE) {
    rc = ckst_contains(p, h, &found);
    if (rc != SQLITE_OK) return ckvt_err(pTab, rc);
    if (found) return eConflict == SQLITE_IGNORE ? SQLITE_CONSTRAINT : rc;
  }
  nm.xName = ckvt_name_value;
  nm.pArg = argv[2];
  return ckvt_err(pTab, ckst_insert(p, h, &nm));
}

/* INSERT.  An item row first, with the fewest calls: every column but
** item NULL, any conflict mode but FAIL, is offered to the store's
** deferral (rule 8), which records it, answers an OR IGNORE / OR REPLACE
** row whose item is probably present, or declines (-1).  The same checks
** and outcome as ckvt_insert_row(), which takes every other row (and a
** declined one: it places the item at once). */
static int ckvt_insert(ckvt_table *pTab, sqlite3_value **argv,
                       sqlite3_int64 *pRowid) {
  uint64_t h = 0;
  int i, rc, eConflict, mFlags;
  for (i = 3; i <= 2 + CKVT_COL_COPIES; i++) {
    if (sqlite3_value_type(argv[i]) != SQLITE_NULL) break;
  }
  if (i > 2 + CKVT_COL_COPIES && sqlite3_value_type(argv[1]) == SQLITE_NULL) {
    eConflict = sqlite3_vtab_on_conflict(pTab->db);
    if (eConflict != SQLITE_FAIL) {
      mFlags = sqlite3_get_autocommit(pTab->db) ? 0 : CKST_LATER_TXN;
      if (eConflict == SQLITE_IGNORE || eConflict == SQLITE_REPLACE) {
        mFlags |= CKST_LATER_IF_ABSENT;
      }
      rc = ckst_insert_later(pTab->pStore, argv[2], mFlags, &h);
      if (rc == SQLITE_DONE) {
        /* probably present: skipped (OR REPLACE counts it, rule 3) */
        if (eConflict == SQLITE_IGNORE) return SQLITE_CONSTRAINT;
        *pRowid = (sqlite3_int64)h;
        return SQLITE_OK;
      }
      if (rc == SQLITE_OK) {
        *pRowid = (sqlite3_int64)h; /* rule 1 */
        return SQLITE_OK;
      }
      if (rc > 0) return ckvt_err(pTab, rc);
    }
  }
  return ckvt_insert_row(pTab, argv, pRowid);
}

/* UPDATE: the old item out, the new one in (rule 3). */
static CUCKOO_NOINLINE int ckvt_update(ckvt_table *pTab, int argc,
                                       sqlite3_value **argv) {
  ckstore *p = pTab->pStore;
  uint64_t hOld = (uint64_t)sqlite3_value_int64(argv[0]), hNew;
  ckst_namer nm;
  int rc = ckst_ready(p, 0);
  if (rc != SQLITE_OK) return ckvt_err(pTab, rc);
  if (ckvt_has_command(pTab, argc, argv)) {
    return ckvt_errmsg(pTab, sqlite3_mprintf("%s: a command is given with "
                                             "INSERT INTO %s(%s) VALUES(...)",
                                             ckst_label(p), ckst_name(p),
                                             ckst_name(p)));
  }
  rc = ckvt_check_readonly(pTab, argv, 0);
  if (rc != SQLITE_OK) return rc;
  if (sqlite3_value_type(argv[3]) != SQLITE_NULL) {
    return ckvt_errmsg(pTab, sqlite3_mprintf("%s: a filter can only be "
                                             "imported with INSERT INTO "
                                             "%s(filter) VALUES(...)",
                                             ckst_label(p), ckst_name(p)));
  }
  if (sqlite3_value_int64(argv[1]) != (sqlite3_int64)hOld) {
    return ckvt_errmsg(pTab, sqlite3_mprintf("%s: the rowid is the item's "
                                             "hash and cannot be changed",
                                             ckst_label(p)));
  }
  rc = cksql_item_hash(pTab->pHasher, argv[2], &hNew);
  if (rc == SQLITE_DONE) {
    return ckvt_errmsg(pTab, sqlite3_mprintf("%s: an item cannot be set to "
                                             "NULL; DELETE it instead",
                                             ckst_label(p)));
  }
  if (rc != SQLITE_OK || hNew == hOld) return rc;
  nm.xName = ckvt_name_value;
  nm.pArg = argv[2];
  return ckvt_err(pTab, ckst_replace(p, hOld, hNew, &nm));
}

/* INSERT INTO t(t) VALUES(command): 'delete-all', or 'merge' (format 3:
** write the blocks and counts the log changed, and empty the log). */
static CUCKOO_NOINLINE int ckvt_command(ckvt_table *pTab,
                                        sqlite3_value **argv) {
  ckstore *p = pTab->pStore;
  const char *z;
  int i, rc = ckst_ready(p, 0);
  if (rc != SQLITE_OK) return ckvt_err(pTab, rc);
  z = (const char *)sqlite3_value_text(argv[2 + CKVT_COL_CMD]);
  for (i = 0; i < CKVT_COL_CMD; i++) {
    if (sqlite3_value_type(argv[2 + i]) != SQLITE_NULL) {
      return ckvt_errmsg(pTab, sqlite3_mprintf("%s: a command is a row of "
                                               "its own: give only the "
                                               "column %s",
                                               ckst_label(p), ckst_name(p)));
    }
  }
  if (z == 0) return SQLITE_NOMEM;
  if (strcmp(z, "merge") == 0) return ckvt_err(pTab, ckst_merge(p));
  if (strcmp(z, "delete-all") != 0) {
    return ckvt_errmsg(pTab, sqlite3_mprintf("%s: unknown command '%s'; the "
                                             "commands are 'delete-all' (it "
                                             "empties the table) and 'merge' "
                                             "(it writes the log out)",
                                             ckst_label(p), z));
  }
  return ckvt_err(pTab, ckst_delete_all(p));
}

/*
** xUpdate, dispatched by what the row does, as SQLite says it: DELETE
** (one argument, the rowid), UPDATE (an old rowid), the command row, and
** INSERT (rule 3).  Each branch makes the store ready (ckst_ready).
*/
static int ckvtUpdate(sqlite3_vtab *pVtab, int argc, sqlite3_value **argv,
                      sqlite3_int64 *pRowid) {
  ckvt_table *pTab = (ckvt_table *)pVtab;
  if (argc == 1) return ckvt_delete(pTab, argv[0]);
  if (sqlite3_value_type(argv[0]) != SQLITE_NULL) {
    return ckvt_update(pTab, argc, argv);
  }
  if (ckvt_has_command(pTab, argc, argv)) return ckvt_command(pTab, argv);
  return ckvt_insert(pTab, argv, pRowid);
}

/* ---------------------------------------------------------------------
** Transactions
*/

static int ckvtBegin(sqlite3_vtab *pVtab) {
  ckvt_table *pTab = (ckvt_table *)pVtab;
  return ckvt_err(pTab, ckst_ready(pTab->pStore, 1));
}

static int ckvtSync(sqlite3_vtab *pVtab) {
  ckvt_table *pTab = (ckvt_table *)pVtab;
  return ckvt_err(pTab, ckst_flush(pTab->pStore));
}

static int ckvtCommit(sqlite3_vtab *pVtab) {
  ckst_commit(((ckvt_table *)pVtab)->pStore);
  return SQLITE_OK;
}

static int ckvtRollback(sqlite3_vtab *pVtab) {
  ckst_rollback(((ckvt_table *)pVtab)->pStore);
  return SQLITE_OK;
}

static int ckvtSavepoint(sqlite3_vtab *pVtab, int iSavepoint) {
  ckvt_table *pTab = (ckvt_table *)pVtab;
  (void)iSavepoint;
  return ckvt_err(pTab, ckst_savepoint(pTab->pStore));
}

static int ckvtRelease(sqlite3_vtab *pVtab, int iSavepoint) {
  (void)pVtab;
  (void)iSavepoint;
  return SQLITE_OK;
}

static int ckvtRollbackTo(sqlite3_vtab *pVtab, int iSavepoint) {
  (void)iSavepoint;
  ckst_discard(((ckvt_table *)pVtab)->pStore);
  return SQLITE_OK;
}

/*
** PRAGMA integrity_check and quick_check (SQLite 3.44+): the problems
** cuckoo_check() finds, in *pzErr, or nothing when the table is sound.
*/
static int ckvtIntegrity(sqlite3_vtab *pVtab, const char *zSchema,
                         const char *zTabName, int mFlags, char **pzErr) {
  ckvt_table *pTab = (ckvt_table *)pVtab;
  char *zReport = 0;
  int rc;
  (void)zSchema;
  (void)zTabName;
  (void)mFlags; /* quick_check checks as much: the check reads every row */
  rc = ckst_check(pTab->pStore, &zReport);
  if (rc != SQLITE_OK) {
    sqlite3_free(ckst_take_error(pTab->pStore));
    return rc;
  }
  if (strcmp(zReport, "ok") == 0) {
    sqlite3_free(zReport);
  } else {
    *pzErr = zReport;
  }
  return SQLITE_OK;
}

/* The version-3 module; cuckoo_register_vtab() copies it into the
** connection's ckvt_global and adds xIntegrity when SQLite knows it. */
static const sqlite3_module ckvtModule = {
    3,              /* iVersion: xShadowName */
    ckvtCreate,     /* xCreate */
    ckvtConnect,    /* xConnect */
    ckvtBestIndex,  /* xBestIndex */
    ckvtDisconnect, /* xDisconnect */
    ckvtDestroy,    /* xDestroy */
    ckvtOpen,       /* xOpen */
    ckvtClose,      /* xClose */
    ckvtFilter,     /* xFilter */
    ckvtNext,       /* xNext */
    ckvtEof,        /* xEof */
    ckvtColumn,     /* xColumn */
    ckvtRowid,      /* xRowid */
    ckvtUpdate,     /* xUpdate */
    ckvtBegin,      /* xBegin */
    ckvtSync,       /* xSync */
    ckvtCommit,     /* xCommit */
    ckvtRollback,   /* xRollback */
    0,              /* xFindFunction */
    ckvtRename,     /* xRename */
    ckvtSavepoint,  /* xSavepoint */
    ckvtRelease,    /* xRelease */
    ckvtRollbackTo, /* xRollbackTo */
    ckvtShadowName, /* xShadowName */
#if SQLITE_VERSION_NUMBER >= 3044000
    0, /* xIntegrity: set by cuckoo_register_vtab() on SQLite 3.44+ */
#endif
};

static void ckvt_global_free(void *p) { sqlite3_free(p); }

int cuckoo_register_vtab(sqlite3 *db) {
  ckvt_global *g = sqlite3_malloc64(sizeof(*g));
  sqlite3_module *pMod;
  int rc;
  if (g == 0) return SQLITE_NOMEM;
  memset(g, 0, sizeof(*g));
  g->bVtabIn = sqlite3_libversion_number() >= 3038000;
  pMod = CKVT_MODULE(g->module);
  *pMod = ckvtModule;
  if (sqlite3_libversion_number() >= 3044000) {
    g->module.xIntegrity = ckvtIntegrity;
    pMod->iVersion = 4;
  }
  /* On failure sqlite3_create_module_v2() calls the destructor itself. */
  rc = sqlite3_create_module_v2(db, "cuckoo", pMod, g, ckvt_global_free);
  if (rc == SQLITE_OK) rc = ckvt_register_functions(db, g);
  return rc;
}
