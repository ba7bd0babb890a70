/*
** Copyright (c) 2026 the cuckoo authors.  MIT License: see LICENSE.
**
** cuckoo_store_io.c: a cuckoo table's shadow tables (their schema and
** rules: cuckoo_store.h; their format: docs/format.md#shadow-tables).
** Every statement the store runs on them is named here, with its
** parameters and result columns; reading and validating the rows (rule 6),
** creating them, writing levels, the flush (rule 4), the refresh (rule 5),
** rename and drop.
*/
#include "cuckoo_store_int.h"

#include <stdlib.h>
#include <string.h>

/* The suffixes of the shadow tables (xShadowName, rename, drop). */
static const char *const ckst_azShadow[] = {CKST_CONFIG, CKST_LEVELS,
                                            CKST_BLOCKS, CKST_LOG};
#define CKST_NSHADOW (int)(sizeof(ckst_azShadow) / sizeof(ckst_azShadow[0]))

/*
** The DDL, run once by ckst_create() (every "%w" pair gets the schema and
** the table name).
*/
#define CKST_DDL_CONFIG                                                        \
  "CREATE TABLE " CKST_TABLE(CKST_CONFIG) "(k TEXT PRIMARY KEY, v) "           \
                                          "WITHOUT ROWID;"
#define CKST_DDL_LEVELS                                                        \
  "CREATE TABLE " CKST_TABLE(                                                  \
      CKST_LEVELS) "(level INTEGER PRIMARY KEY, nbuckets INTEGER, "            \
                   "bucket_size INTEGER, fp_bits INTEGER, flags INTEGER, "     \
                   "capacity INTEGER, buckets_per_block INTEGER, "             \
                   "block_bytes INTEGER, count INTEGER);"
#define CKST_DDL_BLOCKS                                                        \
  "CREATE TABLE " CKST_TABLE(CKST_BLOCKS) "(id INTEGER PRIMARY KEY, "          \
                                          "data BLOB);"
/* Format 3 (cuckoo_store_log.c) */
#define CKST_DDL_LOG                                                           \
  "CREATE TABLE " CKST_TABLE(CKST_LOG) "(id INTEGER PRIMARY KEY, ops BLOB);"

/*
** One-off statements (prepared, run and finalized where they are used).
**
** CKST_SQL_WRITE_CONFIG  ?1 key, ?2 value: one row of T_config
**                        (ckst_create).
** CKST_SQL_CLEAR_LEVELS  every row of T_blocks and T_levels deleted
**                        (ckst_clear_levels: import, delete-all).
*/
#define CKST_SQL_WRITE_CONFIG                                                  \
  "INSERT INTO " CKST_TABLE(CKST_CONFIG) "(k, v) VALUES(?1, ?2)"
#define CKST_SQL_CLEAR_LEVELS                                                  \
  "DELETE FROM " CKST_TABLE(CKST_BLOCKS) ";"                                   \
                                         "DELETE FROM " CKST_TABLE(            \
                                             CKST_LEVELS) ";"

/*
** The statements kept prepared (ckst_stmt(): prepared on first use, reset
** after every use, finalized by ckst_finalize()), by their CKST_* index.
** Block ids are CKST_ID(level, j).  (Each entry is parenthesized: clang's
** -Wstring-concatenation.)
*/
static const char *const ckst_azSql[CKST_NSTMT] = {
    /* CKST_READ_BLOCK: ?1 block id -> data (ckst_read_block) */
    ("SELECT data FROM " CKST_TABLE(CKST_BLOCKS) " WHERE id=?1"),
    /* CKST_DATA_VERSION: -> data_version (ckst_read_data_version) */
    ("PRAGMA \"%w\".data_version"),
    /* CKST_READ_COOKIE: -> v, the cookie (ckst_refresh_full) */
    ("SELECT v FROM " CKST_TABLE(CKST_CONFIG) " WHERE k='cookie'"),
    /* CKST_WRITE_COOKIE: ?1 the new cookie (ckst_flush) */
    ("UPDATE " CKST_TABLE(CKST_CONFIG) " SET v=?1 WHERE k='cookie'"),
    /* CKST_WRITE_COUNT: ?1 level, ?2 its item count (ckst_flush) */
    ("UPDATE " CKST_TABLE(CKST_LEVELS) " SET count=?2 WHERE level=?1"),
    /* CKST_INSERT_BLOCK: ?1 block id, ?2 its bytes (ckst_write_level) */
    ("INSERT INTO " CKST_TABLE(CKST_BLOCKS) "(id, data) VALUES(?1, ?2)"),
    /* CKST_INSERT_LEVEL: ?1..?9 the columns of a T_levels row, in order
    ** (ckst_write_level) */
    ("INSERT INTO " CKST_TABLE(
        CKST_LEVELS) "(level, nbuckets, bucket_size, "
                     "fp_bits, flags, capacity, buckets_per_block, "
                     "block_bytes, count) "
                     "VALUES(?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)"),
    /* CKST_LAST_BLOCK: ?1 first id of a level, ?2 first id of the next ->
    ** id of the level's last block (ckst_check_extent) */
    ("SELECT id FROM " CKST_TABLE(CKST_BLOCKS) " WHERE id>=?1 AND id<?2 "
                                               "ORDER BY id DESC LIMIT 1"),
    /* CKST_FIRST_BLOCK: ?1, ?2 as above -> id of the first block in the
    ** range (ckst_check_free) */
    ("SELECT id FROM " CKST_TABLE(CKST_BLOCKS) " WHERE id>=?1 AND id<?2 "
                                               "ORDER BY id LIMIT 1"),
    /* CKST_READ_LEVEL: ?1, ?2 as above -> id, data of each of the level's
    ** blocks in order (ckst_level_image) */
    ("SELECT id, data FROM " CKST_TABLE(CKST_BLOCKS) " WHERE id>=?1 AND "
                                                     "id<?2 ORDER BY id"),
    /* CKST_INSERT_LOG: ?1 the operations of a flush (ckst_log_write) */
    ("INSERT INTO " CKST_TABLE(CKST_LOG) "(ops) VALUES(?1)"),
    /* The reads of a load and of cuckoo_check(), which run again after
    ** every change of another connection, every rollback and every
    ** check (ckst_read_stmt):
    ** CKST_READ_CONFIG: -> k, v of every row of T_config
    ** (ckst_read_config) */
    ("SELECT k, v FROM " CKST_TABLE(CKST_CONFIG)),
    /* CKST_READ_LEVELS: -> the nine columns of every row of T_levels, in
    ** level order (ckst_load_levels) */
    ("SELECT level, nbuckets, bucket_size, fp_bits, flags, capacity, "
     "buckets_per_block, block_bytes, count FROM " CKST_TABLE(
         CKST_LEVELS) " ORDER BY level"),
    /* CKST_READ_LOG: -> id, ops of every row of T_log, in id order
    ** (ckst_log_replay) */
    ("SELECT id, ops FROM " CKST_TABLE(CKST_LOG) " ORDER BY id"),
    /* CKST_ALL_BLOCKS: -> id, data of every row of T_blocks, in id order
    ** (cuckoo_check: ckst_check_blocks) */
    (CKST_SQL_ALL_BLOCKS),
};

/* ---------------------------------------------------------------------
** Statements
*/

/* xShadowName: is zSuffix one of ckst_azShadow[] (any case)? */
int ckst_is_shadow(const char *zSuffix) {
  int i;
  for (i = 0; i < CKST_NSHADOW; i++) {
    if (sqlite3_stricmp(zSuffix, ckst_azShadow[i]) == 0) return 1;
  }
  return 0;
}

/* A shadow table missing or unusable (the message of the statement that
** found it): T_zSuffix, or any when zSuffix is NULL. */
static int ckst_shadow_corrupt(ckstore *p, const char *zSuffix) {
  if (zSuffix == 0) {
    return ckst_corrupt(p, "cannot use its shadow tables (%s)",
                        sqlite3_errmsg(p->db));
  }
  return ckst_corrupt(p, "cannot read %s_%s (%s)", p->zName, zSuffix,
                      sqlite3_errmsg(p->db));
}

/* Prepare statement i of ckst_azSql into p->aStmt[i] unless it is
** there.  A failure to prepare it is a missing or unusable shadow table:
** SQLITE_ERROR for any statement, every code but SQLITE_NOMEM for one
** that reads T_zSuffix (zSuffix given). */
static int ckst_keep(ckstore *p, int i, const char *zSuffix) {
  char *zSql;
  int rc;
  if (p->aStmt[i]) return SQLITE_OK;
  zSql = sqlite3_mprintf(ckst_azSql[i], p->zDb, p->zName);
  if (zSql == 0) return SQLITE_NOMEM;
  rc = sqlite3_prepare_v3(p->db, zSql, -1, SQLITE_PREPARE_PERSISTENT,
                          &p->aStmt[i], 0);
  sqlite3_free(zSql);
  if (rc == SQLITE_OK || rc == SQLITE_NOMEM) return rc;
  if (zSuffix || rc == SQLITE_ERROR) return ckst_shadow_corrupt(p, zSuffix);
  return ckst_sqlerr(p, rc);
}

/* Prepared statement i of ckst_azSql (prepared on first use, kept in
** p->aStmt until ckst_finalize()); *pp is the store's, reset it after
** use.  A statement that cannot be prepared is a missing shadow table. */
int ckst_stmt(ckstore *p, int i, sqlite3_stmt **pp) {
  return ckst_read_stmt(p, i, 0, pp);
}

/* The same for a statement that reads T_zSuffix whole (a load, a check),
** whose failures name that table (ckst_read_fail); zSuffix NULL is
** ckst_stmt(). */
int ckst_read_stmt(ckstore *p, int i, const char *zSuffix,
                   sqlite3_stmt **pp) {
  int rc = ckst_keep(p, i, zSuffix);
  *pp = rc == SQLITE_OK ? p->aStmt[i] : 0;
  return rc;
}

/* The error of a statement of ckst_read_stmt() whose sqlite3_step()
** failed with rc (called before its reset, so that the message is its
** own).  SQLITE_ERROR is the statement, kept from an earlier load, not
** prepared again after a schema change (its shadow table dropped since):
** the same corruption as a failure to prepare it.  Other codes pass with
** their message. */
int ckst_read_fail(ckstore *p, const char *zSuffix, int rc) {
  return rc == SQLITE_ERROR ? ckst_shadow_corrupt(p, zSuffix)
                            : ckst_sqlerr(p, rc);
}

/* Prepare one-off SQL on the shadow table T_zSuffix (zFmt gets zDb and
** zName).  A failure to prepare means the shadow table is missing or
** unusable: SQLITE_CORRUPT_VTAB. */
int ckst_prepare_shadow(ckstore *p, const char *zFmt, const char *zSuffix,
                        sqlite3_stmt **ppStmt) {
  char *zSql = sqlite3_mprintf(zFmt, p->zDb, p->zName);
  int rc;
  *ppStmt = 0;
  if (zSql == 0) return SQLITE_NOMEM;
  rc = sqlite3_prepare_v2(p->db, zSql, -1, ppStmt, 0);
  sqlite3_free(zSql);
  if (rc == SQLITE_OK || rc == SQLITE_NOMEM) return rc;
  return ckst_corrupt(p, "cannot read %s_%s (%s)", p->zName, zSuffix,
                      sqlite3_errmsg(p->db));
}

/* Run a statement that returns no row; reset it. */
static int ckst_run(ckstore *p, sqlite3_stmt *pStmt) {
  unsigned u0 = (unsigned)sqlite3_total_changes(p->db);
  int rc = sqlite3_step(pStmt);
  p->uOwnChanges += (unsigned)sqlite3_total_changes(p->db) - u0;
  if (rc == SQLITE_DONE || rc == SQLITE_ROW) {
    rc = sqlite3_reset(pStmt);
    return rc == SQLITE_OK ? rc : ckst_sqlerr(p, rc);
  }
  rc = ckst_sqlerr(p, rc);
  sqlite3_reset(pStmt);
  return rc;
}

/* Run SQL built from zFmt (which gets zDb and zName, in that order, for
** every pair of "%w"s). */
static int ckst_exec(ckstore *p, const char *zFmt) {
  char *zSql = sqlite3_mprintf(zFmt, p->zDb, p->zName, p->zDb, p->zName, p->zDb,
                               p->zName);
  unsigned u0;
  int rc;
  if (zSql == 0) return SQLITE_NOMEM;
  u0 = (unsigned)sqlite3_total_changes(p->db);
  rc = sqlite3_exec(p->db, zSql, 0, 0, 0);
  p->uOwnChanges += (unsigned)sqlite3_total_changes(p->db) - u0;
  sqlite3_free(zSql);
  return rc == SQLITE_OK ? rc : ckst_sqlerr(p, rc);
}

/* Delete every level and block row, and every log row (the caller
** clears the cache). */
int ckst_clear_levels(ckstore *p) {
  int rc = ckst_exec(p, CKST_SQL_CLEAR_LEVELS);
  if (rc == SQLITE_OK && p->version >= 3) {
    rc = ckst_exec(p, "DELETE FROM " CKST_TABLE(CKST_LOG));
    if (rc == SQLITE_OK) ckst_log_reset(p);
  }
  return rc;
}

/* Finalize every kept statement (they are prepared again on use). */
void ckst_finalize(ckstore *p) {
  size_t i;
  for (i = 0; i < sizeof(p->aStmt) / sizeof(p->aStmt[0]); i++) {
    sqlite3_finalize(p->aStmt[i]);
    p->aStmt[i] = 0;
  }
}

/* Copy column iCol of pStmt's row, block j of level iLevel, into a[]
** after validating it (rule 6). */
int ckst_block_row(ckstore *p, sqlite3_stmt *pStmt, int iCol, int iLevel,
                   uint64_t j, uint8_t *a, uint32_t nBytes) {
  int eType = sqlite3_column_type(pStmt, iCol);
  int n = sqlite3_column_bytes(pStmt, iCol);
  const void *pData = sqlite3_column_blob(pStmt, iCol);
  if (eType != SQLITE_BLOB) {
    return ckst_corrupt_block(p, iLevel, j, "is %s, not a BLOB",
                              ckst_type_name(eType));
  }
  if ((uint32_t)n != nBytes) {
    return ckst_corrupt_block(p, iLevel, j, "has %d bytes, expected %u", n,
                              nBytes);
  }
  if (pData == 0) return SQLITE_NOMEM;
  memcpy(a, pData, nBytes);
  p->nBlockRead++;
  return SQLITE_OK;
}

/* A block without a row: empty in format 2, corruption in format 1
** (where every block has its row). */
int ckst_absent_block(ckstore *p, int iLevel, uint64_t j) {
  if (p->version >= 2) return SQLITE_OK;
  return ckst_corrupt_block(p, iLevel, j, "is missing");
}

/* Read block j of level iLevel from the shadow table into a[] (zeros and
** *pbAbsent set if it has no row, in format 2). */
int ckst_read_block(ckstore *p, int iLevel, uint64_t j, uint8_t *a,
                    uint32_t nBytes, int *pbAbsent) {
  sqlite3_stmt *pStmt = 0;
  int rc = ckst_stmt(p, CKST_READ_BLOCK, &pStmt);
  *pbAbsent = 0;
  if (rc != SQLITE_OK) return rc;
  sqlite3_bind_int64(pStmt, 1, (sqlite3_int64)CKST_ID(iLevel, j));
  rc = sqlite3_step(pStmt);
  if (rc == SQLITE_ROW) {
    rc = ckst_block_row(p, pStmt, 0, iLevel, j, a, nBytes);
  } else if (rc == SQLITE_DONE) {
    rc = ckst_absent_block(p, iLevel, j);
    if (rc == SQLITE_OK) {
      memset(a, 0, nBytes);
      *pbAbsent = 1;
    }
  } else {
    rc = ckst_sqlerr(p, rc);
  }
  sqlite3_reset(pStmt);
  return rc;
}

/* ---------------------------------------------------------------------
** Loading and validating the configuration
*/

enum {
  CKC_VERSION,
  CKC_SEED,
  CKC_BUCKET_SIZE,
  CKC_VARIANT,
  CKC_ERROR_RATE,
  CKC_GROWTH,
  CKC_CAPACITY,
  CKC_BLOCK_SIZE,
  CKC_CACHE_SIZE,
  CKC_COOKIE,
  CKC_N
};
static const char *const ckst_azKey[CKC_N] = {
    "version", "seed",     "bucket_size", "variant",    "error_rate",
    "growth",  "capacity", "block_size",  "cache_size", "cookie"};

typedef struct ckst_cval {
  int eType; /* 0: row missing */
  sqlite3_int64 i;
  double r;
  char z[16]; /* TEXT values up to 15 bytes (longer ones: zLong set) */
  int bLong;
} ckst_cval;

/* The validation of the configuration keeps a sticky rc, the way SQLite's
** rtree checker does: each step does nothing once a step has failed, so
** the loader reads as a list of rules. */

/* Config value k as an INTEGER in [lo, hi]; on any other value *pRc
** becomes SQLITE_CORRUPT_VTAB (message set) and 0 is returned. */
static sqlite3_int64 ckst_cint(ckstore *p, int *pRc, const ckst_cval *a, int k,
                               sqlite3_int64 lo, sqlite3_int64 hi) {
  if (*pRc != SQLITE_OK) return 0;
  if (a[k].eType == 0) {
    *pRc = ckst_corrupt(p, "config row '%s' is missing from %s_" CKST_CONFIG,
                        ckst_azKey[k], p->zName);
  } else if (a[k].eType != SQLITE_INTEGER) {
    *pRc = ckst_corrupt(p, "config value '%s' must be an INTEGER (it is %s)",
                        ckst_azKey[k], ckst_type_name(a[k].eType));
  } else if (a[k].i < lo || a[k].i > hi) {
    *pRc = ckst_corrupt(p,
                        "config value '%s' is %lld, out of range (%lld "
                        "to %lld)",
                        ckst_azKey[k], a[k].i, lo, hi);
  }
  return *pRc == SQLITE_OK ? a[k].i : 0;
}

/* Read T_config into a[] (one entry per known key; unknown keys are
** ignored).  TEXT values are copied, so nothing in a[] points into the
** statement. */
static int ckst_read_config(ckstore *p, ckst_cval *a) {
  sqlite3_stmt *pStmt = 0;
  int rc, k;
  memset(a, 0, sizeof(ckst_cval) * CKC_N);
  rc = ckst_read_stmt(p, CKST_READ_CONFIG, CKST_CONFIG, &pStmt);
  if (rc != SQLITE_OK) return rc;
  while ((rc = sqlite3_step(pStmt)) == SQLITE_ROW) {
    const char *zKey = (const char *)sqlite3_column_text(pStmt, 0);
    if (zKey == 0) {
      if (sqlite3_column_type(pStmt, 0) != SQLITE_NULL) rc = SQLITE_NOMEM;
      if (rc == SQLITE_NOMEM) break;
      continue;
    }
    for (k = 0; k < CKC_N; k++) {
      if (strcmp(zKey, ckst_azKey[k]) == 0) {
        a[k].eType = sqlite3_column_type(pStmt, 1);
        a[k].i = sqlite3_column_int64(pStmt, 1);
        a[k].r = sqlite3_column_double(pStmt, 1);
        if (a[k].eType == SQLITE_TEXT) {
          const char *z = (const char *)sqlite3_column_text(pStmt, 1);
          int n = sqlite3_column_bytes(pStmt, 1);
          if (z == 0) {
            rc = SQLITE_NOMEM;
            break;
          }
          a[k].bLong = n >= (int)sizeof(a[k].z);
          if (!a[k].bLong) memcpy(a[k].z, z, (size_t)n + 1);
        }
        break;
      }
    }
    if (rc == SQLITE_NOMEM) break;
  }
  if (rc == SQLITE_DONE) {
    rc = SQLITE_OK;
  } else if (rc != SQLITE_NOMEM) {
    rc = ckst_read_fail(p, CKST_CONFIG, rc);
  }
  sqlite3_reset(pStmt);
  return rc;
}

/* Load and validate the configuration into p (rule 6). */
static int ckst_load_config(ckstore *p) {
  ckst_cval a[CKC_N];
  const ckst_cval *pVar = &a[CKC_VARIANT], *pRate = &a[CKC_ERROR_RATE];
  int rc = ckst_read_config(p, a);
  if (rc != SQLITE_OK) return rc;

  /* The version first: a newer format may have other keys.  Format 1
  ** (every block has a row) is read and written as format 1. */
  if (a[CKC_VERSION].eType == SQLITE_INTEGER &&
      a[CKC_VERSION].i > CKST_FORMAT_VERSION) {
    return ckst_error(p, SQLITE_ERROR,
                      "created by a newer cuckoo (shadow-table format "
                      "version %lld; this build, cuckoo " CUCKOO_VERSION
                      ", reads version %d): load a newer cuckoo extension "
                      "to use it",
                      a[CKC_VERSION].i, CKST_FORMAT_VERSION);
  }
  p->version = (int)ckst_cint(p, &rc, a, CKC_VERSION, CKST_FORMAT_VERSION_MIN,
                              CKST_FORMAT_VERSION);
  cksql_hasher_init(&p->hasher, (uint64_t)ckst_cint(p, &rc, a, CKC_SEED,
                                                    INT64_MIN, INT64_MAX));
  p->bucketSize = (unsigned)ckst_cint(p, &rc, a, CKC_BUCKET_SIZE, 2, 8);
  if (rc == SQLITE_OK && !cf_bucket_size_ok(p->bucketSize)) {
    rc = ckst_corrupt(p,
                      "config value 'bucket_size' must be 2, 4 or 8 "
                      "(it is %u)",
                      p->bucketSize);
  }
  if (rc == SQLITE_OK &&
      (pVar->eType != SQLITE_TEXT || pVar->bLong ||
       (strcmp(pVar->z, "plain") != 0 && strcmp(pVar->z, "semisort") != 0))) {
    rc = ckst_corrupt(p,
                      "config value 'variant' must be 'plain' or "
                      "'semisort'%s",
                      pVar->eType ? "" : " (the row is missing)");
  }
  p->flags = pVar->z[0] == 's' ? CF_FLAG_SEMISORT : 0;
  if (rc == SQLITE_OK && p->flags && p->bucketSize != 4) {
    rc = ckst_corrupt(p, "variant 'semisort' needs bucket_size 4");
  }
  if (rc == SQLITE_OK && pRate->eType == 0) {
    rc = ckst_corrupt(
        p, "config row 'error_rate' is missing from %s_" CKST_CONFIG, p->zName);
  }
  if (rc == SQLITE_OK &&
      (pRate->eType != SQLITE_FLOAT || !(pRate->r > 0.0 && pRate->r < 1.0))) {
    rc = ckst_corrupt(p, "config value 'error_rate' must be a REAL "
                         "between 0 and 1");
  }
  p->errorRate = pRate->r;
  p->growth = (int)ckst_cint(p, &rc, a, CKC_GROWTH, 0, 1);
  p->capacity = ckst_cint(p, &rc, a, CKC_CAPACITY, 1, INT64_MAX);
  p->blockSize =
      (int)ckst_cint(p, &rc, a, CKC_BLOCK_SIZE, CKST_MIN_BLOCK, CKST_MAX_BLOCK);
  p->cacheKib = ckst_cint(p, &rc, a, CKC_CACHE_SIZE, 1, CKST_MAX_CACHE_KIB);
  p->cookie = ckst_cint(p, &rc, a, CKC_COOKIE, INT64_MIN, INT64_MAX);
  /* Reloaded inside the transaction that bumped the cookie (after a
  ** ROLLBACK TO, or cuckoo_check()): the value bumped to is still there
  ** only if what was undone did not include the bump (no other
  ** connection writes during this one's write transaction), and then
  ** the transaction's later changes need no other bump. */
  p->bCookieBumped = p->bCookieTxn && p->cookie == p->iCookieTxn;
  return rc;
}

/* Validate row n of T_levels (the current row of pStmt) into
** p->aLevel[n]; a row that breaks the rules sets *pRc (sticky). */
static void ckst_level_row(ckstore *p, sqlite3_stmt *pStmt, int n, int *pRc) {
  static const char *const azCol[] = {
      "level",    "nbuckets",          "bucket_size", "fp_bits", "flags",
      "capacity", "buckets_per_block", "block_bytes", "count"};
  sqlite3_int64 a[9];
  ckst_level *pL = &p->aLevel[n < CKST_MAX_LEVELS ? n : 0];
  int i;
  for (i = 0; *pRc == SQLITE_OK && i < 9; i++) {
    if (sqlite3_column_type(pStmt, i) != SQLITE_INTEGER) {
      *pRc = ckst_corrupt(p, "column %s of level row %d is %s, not an INTEGER",
                          azCol[i], n,
                          ckst_type_name(sqlite3_column_type(pStmt, i)));
    }
    a[i] = sqlite3_column_int64(pStmt, i);
  }
  if (*pRc != SQLITE_OK) return;
  if (a[0] != n || n >= CKST_MAX_LEVELS) {
    *pRc = ckst_corrupt(p,
                        "%s_" CKST_LEVELS " must number its rows 0, 1, 2, "
                        "... (at most %d; found level %lld where %d was "
                        "expected)",
                        p->zName, CKST_MAX_LEVELS, a[0], n);
    return;
  }
  memset(pL, 0, sizeof(*pL));
  pL->p.nbuckets = a[1] < 0 ? 0 : (uint64_t)a[1];
  pL->p.bucket_size = (a[2] < 0 || a[2] > 255) ? 0 : (uint32_t)a[2];
  pL->p.fp_bits = (a[3] < 0 || a[3] > 255) ? 0 : (uint32_t)a[3];
  pL->p.flags = (a[4] < 0 || a[4] > 255) ? 0xff : (uint32_t)a[4];
  pL->p.capacity = a[5] < 0 ? 0 : (uint64_t)a[5];
  pL->p.seed = p->hasher.seed;
  if (cf_params_check(&pL->p) != CF_OK) {
    *pRc = ckst_corrupt(p,
                        "level %d has an invalid geometry (nbuckets=%lld "
                        "bucket_size=%lld fp_bits=%lld flags=%lld "
                        "capacity=%lld)",
                        n, a[1], a[2], a[3], a[4], a[5]);
  } else if (a[6] < 8 || a[6] % 8 != 0 ||
             a[6] > (sqlite3_int64)((pL->p.nbuckets + 7) & ~(uint64_t)7) ||
             a[7] != a[6] * (sqlite3_int64)cf_bucket_bits(&pL->p) / 8 ||
             a[7] > 2 * CKST_MAX_BLOCK) {
    *pRc = ckst_corrupt(p,
                        "level %d has an invalid block geometry "
                        "(buckets_per_block=%lld block_bytes=%lld)",
                        n, a[6], a[7]);
  } else if (a[8] < 0 ||
             (uint64_t)a[8] > pL->p.nbuckets * (uint64_t)pL->p.bucket_size) {
    *pRc = ckst_corrupt(p,
                        "level %d has an item count of %lld, more than "
                        "its slots",
                        n, a[8]);
  } else {
    ckst_level_blocks(pL, (uint32_t)a[6]);
    pL->nCount = pL->nCountSaved = (uint64_t)a[8];
    pL->nCopyMax = CKST_COPIES_UNKNOWN; /* (its blocks are not read yet) */
  }
}

/* Load and validate every row of T_levels into p->aLevel (rule 6). */
static int ckst_load_levels(ckstore *p) {
  sqlite3_stmt *pStmt = 0;
  int rc, n = 0;

  rc = ckst_read_stmt(p, CKST_READ_LEVELS, CKST_LEVELS, &pStmt);
  while (rc == SQLITE_OK && (rc = sqlite3_step(pStmt)) == SQLITE_ROW) {
    rc = SQLITE_OK;
    ckst_level_row(p, pStmt, n, &rc);
    if (rc == SQLITE_OK) n++;
  }
  if (rc == SQLITE_DONE) {
    rc = SQLITE_OK;
  } else if (pStmt && rc != SQLITE_CORRUPT_VTAB && rc != SQLITE_NOMEM) {
    rc = ckst_read_fail(p, CKST_LEVELS, rc);
  }
  if (pStmt) sqlite3_reset(pStmt);
  if (rc == SQLITE_OK && n == 0) {
    rc = ckst_corrupt(p, "%s_" CKST_LEVELS " has no rows", p->zName);
  }
  if (rc == SQLITE_OK) p->nLevel = n;
  return rc;
}

/* The last block of every level must be where the level's geometry puts
** it, in both formats (one indexed probe per level; a missing block in
** the middle of a format-1 level is found when it is read, or by
** cuckoo_check; in format 2 it is an empty block). */
static int ckst_check_extent(ckstore *p) {
  sqlite3_stmt *pStmt = 0;
  int i, rc = ckst_stmt(p, CKST_LAST_BLOCK, &pStmt);
  for (i = 0; rc == SQLITE_OK && i < p->nLevel; i++) {
    const ckst_level *pL = &p->aLevel[i];
    sqlite3_int64 iWant = (sqlite3_int64)CKST_ID(i, pL->nBlock - 1);
    sqlite3_bind_int64(pStmt, 1, (sqlite3_int64)CKST_ID(i, 0));
    sqlite3_bind_int64(pStmt, 2, (sqlite3_int64)CKST_ID(i + 1, 0));
    rc = sqlite3_step(pStmt);
    if (rc == SQLITE_ROW && sqlite3_column_int64(pStmt, 0) == iWant) {
      rc = SQLITE_OK;
    } else if (rc == SQLITE_ROW || rc == SQLITE_DONE) {
      rc = ckst_corrupt(p,
                        "level %d should have %llu blocks in %s_" CKST_BLOCKS
                        " but its last "
                        "block is %s",
                        i, (unsigned long long)pL->nBlock, p->zName,
                        rc == SQLITE_DONE ? "missing"
                        : sqlite3_column_int64(pStmt, 0) < iWant
                            ? "missing"
                            : "followed by extra blocks");
    } else {
      rc = ckst_sqlerr(p, rc);
    }
    sqlite3_reset(pStmt);
  }
  return rc;
}

/* PRAGMA data_version of the table's schema into *pV. */
static int ckst_read_data_version(ckstore *p, sqlite3_int64 *pV) {
  sqlite3_stmt *pStmt = 0;
  int rc = ckst_stmt(p, CKST_DATA_VERSION, &pStmt);
  if (rc != SQLITE_OK) return rc;
  rc = sqlite3_step(pStmt);
  if (rc == SQLITE_ROW) {
    *pV = sqlite3_column_int64(pStmt, 0);
    rc = SQLITE_OK;
  } else {
    rc = ckst_sqlerr(p, rc == SQLITE_DONE ? SQLITE_ERROR : rc);
  }
  sqlite3_reset(pStmt);
  return rc;
}

/* Load configuration and levels from the shadow tables (rule 6) and mark
** the store loaded; on error the caller discards what was read. */
int ckst_load(ckstore *p) {
  int rc = ckst_read_data_version(p, &p->iDataVersion);
  if (rc == SQLITE_OK) rc = ckst_load_config(p);
  if (rc == SQLITE_OK) rc = ckst_load_levels(p);
  if (rc == SQLITE_OK) rc = ckst_check_extent(p);
  if (rc == SQLITE_OK) {
#ifndef NDEBUG
    int i;
    assert(p->nLevel >= 1 && p->nLevel <= CKST_MAX_LEVELS);
    for (i = 0; i < p->nLevel; i++) {
      const ckst_level *pL = &p->aLevel[i];
      assert(pL->nPer >= 8 && pL->nPer % 8 == 0);
      assert(pL->nBytes == (uint64_t)pL->nPer * cf_bucket_bits(&pL->p) / 8);
      assert(pL->nBlock * pL->nPer >= pL->p.nbuckets);
      assert(pL->nCount <= pL->p.nbuckets * pL->p.bucket_size);
    }
#endif
    p->bLoaded = 1;
    /* format 3: the blocks and counts with the log applied */
    rc = ckst_log_replay(p);
    if (rc != SQLITE_OK) {
      char *zErr = ckst_take_error(p);
      ckst_discard(p);
      p->zErr = zErr;
    }
  }
  return rc;
}

/* A new level's range of block ids must be free: a row there belongs to
** no level (only a damaged T_levels leaves one), and a format-2 level,
** which may write no block, would take it for its own. */
static int ckst_check_free(ckstore *p, int iLevel) {
  sqlite3_stmt *pStmt = 0;
  int rc = ckst_stmt(p, CKST_FIRST_BLOCK, &pStmt);
  if (rc != SQLITE_OK) return rc;
  sqlite3_bind_int64(pStmt, 1, (sqlite3_int64)CKST_ID(iLevel, 0));
  sqlite3_bind_int64(pStmt, 2, (sqlite3_int64)CKST_ID(iLevel + 1, 0));
  rc = sqlite3_step(pStmt);
  if (rc == SQLITE_ROW) {
    uint64_t id = (uint64_t)sqlite3_column_int64(pStmt, 0);
    rc = ckst_corrupt_block(p, iLevel, id & 0xffffffff,
                            "already exists but belongs to no level");
  } else {
    rc = rc == SQLITE_DONE ? SQLITE_OK : ckst_sqlerr(p, rc);
  }
  sqlite3_reset(pStmt);
  return rc;
}

/* Write level iLevel's row and its blocks: the bucket array aTable
** (nTable bytes), or zeros if aTable is NULL.  Format 2 writes only the
** blocks that are not all zero, and the last block, which marks the
** level's extent (an empty level: that block alone). */
int ckst_write_level(ckstore *p, int iLevel, const uint8_t *aTable,
                     uint64_t nTable) {
  const ckst_level *pL = &p->aLevel[iLevel];
  sqlite3_stmt *pStmt = 0;
  uint8_t *aBuf = 0;
  uint64_t j;
  int rc = ckst_check_free(p, iLevel);
  if (rc == SQLITE_OK) rc = ckst_stmt(p, CKST_INSERT_BLOCK, &pStmt);
  if (rc == SQLITE_OK && p->version >= 2 && aTable == 0) {
    j = pL->nBlock - 1; /* an empty level: its last block */
  } else {
    j = 0;
  }
  if (rc == SQLITE_OK && aTable) {
    aBuf = sqlite3_malloc64(pL->nBytes);
    if (aBuf == 0) rc = SQLITE_NOMEM;
  }
  for (; rc == SQLITE_OK && j < pL->nBlock; j++) {
    if (aTable) {
      uint64_t off = j * pL->nBytes;
      const uint8_t *a = aTable + off;
      if (nTable - off < pL->nBytes) {
        /* the last block: the array's end, then zeros */
        memset(aBuf, 0, pL->nBytes);
        memcpy(aBuf, a, (size_t)(nTable - off));
        a = aBuf;
      }
      if (p->version >= 2 && j + 1 < pL->nBlock && cf_zero(a, pL->nBytes)) {
        continue; /* an empty block of format 2 */
      }
      sqlite3_bind_blob(pStmt, 2, a, (int)pL->nBytes, SQLITE_STATIC);
    } else {
      sqlite3_bind_zeroblob(pStmt, 2, (int)pL->nBytes);
    }
    sqlite3_bind_int64(pStmt, 1, (sqlite3_int64)CKST_ID(iLevel, j));
    rc = ckst_run(p, pStmt);
    if ((rc & 0xff) == SQLITE_CONSTRAINT) {
      /* a row of no level sits where the new level's block goes */
      rc = ckst_corrupt_block(p, iLevel, j,
                              "already exists but belongs to no level");
    }
  }
  if (pStmt) sqlite3_clear_bindings(pStmt);
  sqlite3_free(aBuf);
  if (rc == SQLITE_OK) rc = ckst_stmt(p, CKST_INSERT_LEVEL, &pStmt);
  if (rc == SQLITE_OK) {
    sqlite3_bind_int(pStmt, 1, iLevel);
    sqlite3_bind_int64(pStmt, 2, (sqlite3_int64)pL->p.nbuckets);
    sqlite3_bind_int(pStmt, 3, (int)pL->p.bucket_size);
    sqlite3_bind_int(pStmt, 4, (int)pL->p.fp_bits);
    sqlite3_bind_int(pStmt, 5, (int)pL->p.flags);
    sqlite3_bind_int64(pStmt, 6, (sqlite3_int64)pL->p.capacity);
    sqlite3_bind_int64(pStmt, 7, (sqlite3_int64)pL->nPer);
    sqlite3_bind_int64(pStmt, 8, (sqlite3_int64)pL->nBytes);
    sqlite3_bind_int64(pStmt, 9, (sqlite3_int64)pL->nCount);
    rc = ckst_run(p, pStmt);
  }
  return rc;
}

/* CREATE VIRTUAL TABLE: validate the options, create the three shadow
** tables, write the configuration and an empty level 0, and leave the
** store loaded. */
int ckst_create(ckstore *p, const ckst_options *pOpt) {
  double er0 = pOpt->growth ? pOpt->error_rate / 2 : pOpt->error_rate;
  sqlite3_stmt *pStmt = 0;
  cf_params params;
  char *zErr = 0, *zSql;
  int rc, k;

  if (cf_fp_bits_for(er0, pOpt->o.bucket_size) == 0) {
    double lo = 2.0 * pOpt->o.bucket_size / 4294967296.0;
    return ckst_error(p, SQLITE_ERROR,
                      "error_rate %g needs more than 32-bit fingerprints "
                      "(smallest allowed with bucket_size=%u is %g%s)",
                      pOpt->error_rate, pOpt->o.bucket_size,
                      pOpt->growth ? 2 * lo : lo,
                      pOpt->growth ? ", or half that with growth=off" : "");
  }
  rc =
      cksql_params(0, p->zLabel, pOpt->capacity, er0, &pOpt->o, &params, &zErr);
  if (rc != SQLITE_OK) {
    if (zErr == 0) return SQLITE_NOMEM;
    sqlite3_free(p->zErr);
    p->zErr = zErr;
    return SQLITE_ERROR;
  }
  cksql_hasher_init(&p->hasher, pOpt->o.seed);
  p->bucketSize = pOpt->o.bucket_size;
  p->flags = pOpt->o.flags;
  p->errorRate = pOpt->error_rate;
  p->growth = pOpt->growth;
  p->capacity = pOpt->capacity;
  p->cacheKib = pOpt->cache_kib;
  p->cookie = 0;
  p->version = CKST_FORMAT_VERSION;
  p->blockSize = pOpt->block_size;
  if (p->blockSize == 0) {
    /* One block per b-tree leaf page: the page less the cell and record
    ** overhead, so that no block spills into an overflow page. */
    sqlite3_int64 nPage = 4096;
    zSql = sqlite3_mprintf("PRAGMA \"%w\".page_size", p->zDb);
    if (zSql == 0) return SQLITE_NOMEM;
    rc = sqlite3_prepare_v2(p->db, zSql, -1, &pStmt, 0);
    sqlite3_free(zSql);
    if (rc == SQLITE_OK && sqlite3_step(pStmt) == SQLITE_ROW) {
      nPage = sqlite3_column_int64(pStmt, 0);
    }
    rc = sqlite3_finalize(pStmt);
    if (rc != SQLITE_OK) return ckst_sqlerr(p, rc);
    p->blockSize = (int)(nPage - 64 < CKST_MIN_BLOCK   ? CKST_MIN_BLOCK
                         : nPage - 64 > CKST_MAX_BLOCK ? CKST_MAX_BLOCK
                                                       : nPage - 64);
  }

  rc = ckst_exec(p, CKST_DDL_CONFIG CKST_DDL_LEVELS CKST_DDL_BLOCKS);
  if (rc == SQLITE_OK && p->version >= 3) rc = ckst_exec(p, CKST_DDL_LOG);
  if (rc != SQLITE_OK) return rc;
  zSql = sqlite3_mprintf(CKST_SQL_WRITE_CONFIG, p->zDb, p->zName);
  if (zSql == 0) return SQLITE_NOMEM;
  rc = sqlite3_prepare_v2(p->db, zSql, -1, &pStmt, 0);
  sqlite3_free(zSql);
  if (rc != SQLITE_OK) return ckst_sqlerr(p, rc);
  for (k = 0; rc == SQLITE_OK && k < CKC_N; k++) {
    sqlite3_bind_text(pStmt, 1, ckst_azKey[k], -1, SQLITE_STATIC);
    switch (k) {
    case CKC_VERSION: sqlite3_bind_int(pStmt, 2, p->version); break;
    case CKC_SEED:
      sqlite3_bind_int64(pStmt, 2, (sqlite3_int64)p->hasher.seed);
      break;
    case CKC_BUCKET_SIZE: sqlite3_bind_int(pStmt, 2, (int)p->bucketSize); break;
    case CKC_VARIANT:
      sqlite3_bind_text(pStmt, 2, p->flags ? "semisort" : "plain", -1,
                        SQLITE_STATIC);
      break;
    case CKC_ERROR_RATE: sqlite3_bind_double(pStmt, 2, p->errorRate); break;
    case CKC_GROWTH: sqlite3_bind_int(pStmt, 2, p->growth); break;
    case CKC_CAPACITY: sqlite3_bind_int64(pStmt, 2, p->capacity); break;
    case CKC_BLOCK_SIZE: sqlite3_bind_int(pStmt, 2, p->blockSize); break;
    case CKC_CACHE_SIZE: sqlite3_bind_int64(pStmt, 2, p->cacheKib); break;
    default: sqlite3_bind_int64(pStmt, 2, p->cookie); break;
    }
    rc = ckst_run(p, pStmt);
  }
  sqlite3_finalize(pStmt);
  if (rc != SQLITE_OK) return rc;
  p->nLevel = 0;
  rc = ckst_append_level(p, &params, 0, 0, 0);
  if (rc == SQLITE_OK) rc = ckst_read_data_version(p, &p->iDataVersion);
  if (rc == SQLITE_OK) {
    p->bLoaded = 1;
    p->bChanged = 0;
  }
  return rc;
}

/* ---------------------------------------------------------------------
** Flush and refresh
*/

/* INSERT the row of every dirty block that has none (format 2: the
** first write of a block; in id order). */
static int ckst_flush_absent(ckstore *p) {
  sqlite3_stmt *pStmt = 0;
  uint32_t i;
  int rc = SQLITE_OK;
  for (i = 0; rc == SQLITE_OK && i < p->nDirty; i++) {
    uint64_t id = p->aDirty[i];
    ckst_block *b = ckst_cache_find(p, id);
    if (b == 0 || !b->bDirty || !b->bAbsent) continue;
    if (pStmt == 0) rc = ckst_stmt(p, CKST_INSERT_BLOCK, &pStmt);
    if (rc != SQLITE_OK) break;
    sqlite3_bind_int64(pStmt, 1, (sqlite3_int64)id);
    sqlite3_bind_blob(pStmt, 2, b->a, (int)b->nBytes, SQLITE_STATIC);
    rc = ckst_run(p, pStmt);
    if ((rc & 0xff) == SQLITE_CONSTRAINT) {
      rc = ckst_corrupt_block(p, (int)(id >> 32), id & 0xffffffff,
                              "was absent but now has a row");
    }
    if (rc == SQLITE_OK) {
      b->bAbsent = 0;
      b->bDirty = 0;
    }
  }
  if (pStmt) sqlite3_clear_bindings(pStmt);
  return rc;
}

/* Write every dirty block (in id order): into its row with incremental
** BLOB I/O, or, for a block without a row, by an INSERT first. */
int ckst_flush_blocks(ckstore *p) {
  sqlite3_blob *pBlob = 0;
  char *zTab;
  uint32_t i;
  int rc = SQLITE_OK, rc2;
  if (p->nDirty == 0) return SQLITE_OK;
  zTab = sqlite3_mprintf("%s_" CKST_BLOCKS, p->zName);
  if (zTab == 0) return SQLITE_NOMEM;
  ckst_dirty_sort(p);
  rc = ckst_flush_absent(p);
  for (i = 0; rc == SQLITE_OK && i < p->nDirty; i++) {
    uint64_t id = p->aDirty[i];
    ckst_block *b = ckst_cache_find(p, id);
    if (b == 0 || !b->bDirty) continue;
    assert(!b->bAbsent);
    if (pBlob == 0) {
      rc = sqlite3_blob_open(p->db, p->zDb, zTab, "data", (sqlite3_int64)id, 1,
                             &pBlob);
    } else {
      rc = sqlite3_blob_reopen(pBlob, (sqlite3_int64)id);
    }
    if (rc == SQLITE_ERROR) {
      rc = ckst_corrupt_block(p, (int)(id >> 32), id & 0xffffffff,
                              "cannot be written: %s", sqlite3_errmsg(p->db));
    } else if (rc != SQLITE_OK) {
      rc = ckst_sqlerr(p, rc);
    } else if ((uint32_t)sqlite3_blob_bytes(pBlob) != b->nBytes) {
      rc = ckst_corrupt_block(p, (int)(id >> 32), id & 0xffffffff,
                              "has %d bytes, expected %u",
                              sqlite3_blob_bytes(pBlob), b->nBytes);
    } else {
      rc = sqlite3_blob_write(pBlob, b->a, (int)b->nBytes, 0);
      if (rc == SQLITE_OK) {
        b->bDirty = 0;
      } else {
        rc = ckst_sqlerr(p, rc);
      }
    }
  }
  rc2 = sqlite3_blob_close(pBlob);
  if (rc == SQLITE_OK && rc2 != SQLITE_OK) rc = ckst_sqlerr(p, rc2);
  sqlite3_free(zTab);
  if (rc == SQLITE_OK) p->nDirty = 0;
  return rc;
}

/* Write the changed counts to T_levels. */
int ckst_flush_counts(ckstore *p) {
  sqlite3_stmt *pStmt = 0;
  int i, rc = SQLITE_OK;
  for (i = 0; rc == SQLITE_OK && i < p->nLevel; i++) {
    if (!p->aLevel[i].bCountDirty) continue;
    rc = ckst_stmt(p, CKST_WRITE_COUNT, &pStmt);
    if (rc != SQLITE_OK) break;
    sqlite3_bind_int(pStmt, 1, i);
    sqlite3_bind_int64(pStmt, 2, (sqlite3_int64)p->aLevel[i].nCount);
    rc = ckst_run(p, pStmt);
    if (rc == SQLITE_OK) {
      p->aLevel[i].bCountDirty = 0;
      p->aLevel[i].nCountSaved = p->aLevel[i].nCount;
    }
    p->bChanged = 1;
  }
  return rc;
}

/* Write dirty blocks and changed counts (format 3: a log row, or a merge)
** and (once per transaction) a new cookie to the shadow tables. */
int ckst_flush(ckstore *p) {
  /* the rows the store INSERTs (log rows, new blocks) are not the user's:
  ** last_insert_rowid() keeps what the user's statements made it */
  sqlite3_int64 iLastRowid = sqlite3_last_insert_rowid(p->db);
  sqlite3_stmt *pStmt = 0;
  int rc = ckst_sticky(p);
  if (rc == SQLITE_OK) rc = ckst_defer_check_flush(p);
  if (rc != SQLITE_OK || !p->bLoaded) return rc;
  rc = ckst_drain(p);
  if (rc == SQLITE_OK) rc = ckst_log_flush(p);
  sqlite3_set_last_insert_rowid(p->db, iLastRowid);
  if (rc == SQLITE_OK && p->bChanged && !p->bCookieBumped) {
    /* The cookie is only compared for equality: it wraps around (in
    ** unsigned arithmetic, so that a stored INT64_MAX is no overflow). */
    sqlite3_int64 iNext = (sqlite3_int64)((sqlite3_uint64)p->cookie + 1);
    rc = ckst_stmt(p, CKST_WRITE_COOKIE, &pStmt);
    if (rc == SQLITE_OK) {
      sqlite3_bind_int64(pStmt, 1, iNext);
      rc = ckst_run(p, pStmt);
    }
    if (rc == SQLITE_OK) {
      p->cookie = iNext;
      p->bCookieBumped = 1;
      p->bCookieTxn = 1;
      p->iCookieTxn = iNext;
    }
  }
  if (rc == SQLITE_OK) p->bChanged = 0;
  assert(rc != SQLITE_OK ||
         ((p->version >= 3 || p->nDirty == 0) && !ckst_defer_pending(p) &&
          !ckst_log_writing(p)));
  return rc;
}

/* SQLite drops the message of an error that xSavepoint returns when it
** opens a statement's savepoint (the statement fails with the bare code:
** "database disk image is malformed" for a corrupt block the drain
** read).  So a flush that fails here with an error whose message says
** what is wrong (SQLITE_CORRUPT, SQLITE_ERROR) is kept (rcSticky,
** zSticky) and returned, message and all, by the next operation on the
** table (ckst_ready, ckst_flush: the statement itself if it uses the
** table, else the commit), and by every one after it until the
** transaction rolls back: the items it failed to place are still
** pending, older than the savepoint.  Other errors (out of memory, I/O)
** fail this statement with SQLite's own message, as before. */
int ckst_savepoint(ckstore *p) {
  int rc;
  if (p->rcSticky) return SQLITE_OK;
  rc = ckst_flush(p);
  if (rc != SQLITE_OK && ckst_defer_pending(p)) p->defer.bStale = 1;
  if ((rc & 0xff) == SQLITE_CORRUPT || rc == SQLITE_ERROR) {
    p->zSticky = sqlite3_mprintf("%s", p->zErr ? p->zErr : sqlite3_errstr(rc));
    if (p->zSticky == 0) return SQLITE_NOMEM;
    p->rcSticky = rc;
    sqlite3_free(ckst_take_error(p)); /* kept in zSticky, not reported now */
    rc = SQLITE_OK;
  }
  return rc;
}

int ckst_sticky(ckstore *p) {
  if (p->rcSticky == SQLITE_OK) return SQLITE_OK;
  sqlite3_free(p->zErr);
  p->zErr = p->zSticky ? sqlite3_mprintf("%s", p->zSticky) : 0;
  return p->zErr || p->rcSticky == SQLITE_NOMEM ? p->rcSticky : SQLITE_NOMEM;
}

/* Another connection may have committed: compare data_version, then the
** cookie; on a change, drop the cache and reload. */
static int ckst_refresh_full(ckstore *p) {
  sqlite3_stmt *pStmt = 0;
  sqlite3_int64 v;
  int rc;
  rc = ckst_read_data_version(p, &v);
  if (rc != SQLITE_OK || v == p->iDataVersion) return rc;
  p->iDataVersion = v;
  rc = ckst_stmt(p, CKST_READ_COOKIE, &pStmt);
  if (rc != SQLITE_OK) return rc;
  rc = sqlite3_step(pStmt);
  if (rc == SQLITE_ROW) {
    int same = sqlite3_column_type(pStmt, 0) == SQLITE_INTEGER &&
               sqlite3_column_int64(pStmt, 0) == p->cookie;
    sqlite3_reset(pStmt);
    if (same) return SQLITE_OK;
    ckst_discard(p);
    return ckst_load(p);
  }
  sqlite3_reset(pStmt);
  if (rc == SQLITE_DONE) {
    return ckst_corrupt(
        p, "config row 'cookie' is missing from %s_" CKST_CONFIG, p->zName);
  }
  return ckst_sqlerr(p, rc);
}

/*
** The check above runs two statements; a cursor is opened for every
** evaluation of a correlated subquery, so it comes first a cheap test.
** Inside a read transaction on the table's schema (where no other
** connection's commit can appear any more), the pager's data version
** (SQLITE_FCNTL_DATA_VERSION, which moves on every change of the file,
** this connection's included) unchanged since the last full check means
** nothing to do.
*/
/* Whether db has a read transaction open on schema zDb.  Without
** sqlite3_txn_state() (SQLite 3.34) it says no: the full check runs. */
static int ckst_in_read_txn(sqlite3 *db, const char *zDb) {
#if SQLITE_VERSION_NUMBER >= 3034000
  if (sqlite3_libversion_number() >= 3034000) {
    return sqlite3_txn_state(db, zDb) >= SQLITE_TXN_READ;
  }
#else
  (void)db;
  (void)zDb;
#endif
  return 0;
}

int ckst_refresh(ckstore *p) {
  unsigned int v = 0;
  int rc, bPager;
  if ((p->version < 3 && p->nDirty) || ckst_log_writing(p)) {
    return SQLITE_OK; /* we are the writer */
  }
  /* (a NULL schema is "main" to sqlite3_file_control, without a lookup) */
  bPager = ckst_in_read_txn(p->db, p->zDb) &&
           sqlite3_file_control(p->db, p->bMain ? 0 : p->zDb,
                                SQLITE_FCNTL_DATA_VERSION, &v) == SQLITE_OK;
  if (bPager && p->bPagerVersion && v == p->uPagerVersion) return SQLITE_OK;
  rc = ckst_refresh_full(p);
  if (rc == SQLITE_OK && bPager && p->bLoaded) {
    p->uPagerVersion = v;
    p->bPagerVersion = 1;
  }
  return rc;
}

/* ---------------------------------------------------------------------
** Rename, drop, free
*/

/* Run zFmt once per shadow table; it gets the schema, the table name, the
** suffix, zNew and the suffix again (ALTER ... RENAME TO needs them all,
** DROP the first three).  Statements are finalized first. */
static int ckst_each_shadow(ckstore *p, const char *zFmt, const char *zNew) {
  /* T_log exists from format 3 on (whatever the store has loaded) */
  int i, rc = SQLITE_OK, n = CKST_NSHADOW;
  char *zLog = sqlite3_mprintf("%s_" CKST_LOG, p->zName);
  if (zLog == 0) return SQLITE_NOMEM;
  if (sqlite3_table_column_metadata(p->db, p->zDb, zLog, 0, 0, 0, 0, 0, 0) !=
      SQLITE_OK) {
    n--;
  }
  sqlite3_free(zLog);
  ckst_finalize(p);
  for (i = 0; rc == SQLITE_OK && i < n; i++) {
    char *zSql = sqlite3_mprintf(zFmt, p->zDb, p->zName, ckst_azShadow[i], zNew,
                                 ckst_azShadow[i]);
    if (zSql == 0) return SQLITE_NOMEM;
    rc = sqlite3_exec(p->db, zSql, 0, 0, 0);
    sqlite3_free(zSql);
  }
  return rc == SQLITE_OK ? rc : ckst_sqlerr(p, rc);
}

/* ALTER TABLE RENAME of each shadow table, then the store's names. */
int ckst_rename(ckstore *p, const char *zNewName) {
  int rc = ckst_each_shadow(
      p, "ALTER TABLE \"%w\".\"%w_%s\" RENAME TO \"%w_%s\"", zNewName);
  return rc == SQLITE_OK ? ckst_set_names(p, zNewName) : rc;
}

/* DROP TABLE IF EXISTS for each shadow table. */
int ckst_drop(ckstore *p) {
  return ckst_each_shadow(p, "DROP TABLE IF EXISTS \"%w\".\"%w_%s\"", "");
}
