/*
** Copyright (c) 2026 the cuckoo authors.  MIT License: see LICENSE.
**
** cuckoo_store.c: the block store behind the cuckoo virtual table (see
** cuckoo_store.h for the shadow-table schema and the rules it keeps).
**
** Layout of this file: options; errors and statements; the block cache;
** loading and validating the configuration; levels (creation, growth);
** item operations over cf_store callbacks; flush, discard, refresh;
** export and import; the integrity check; the JSON description.
**
** struct ckstore is private to this file; the virtual table sees it
** through the accessors declared in cuckoo_store.h.  Ownership: the store
** owns its names, its message (until ckst_take_error() hands it over), its
** prepared statements and every cached block; strings passed in are
** copied.  Messages all start with the table's label: ckst_error() adds
** ": ", ckst_full() " is full", ckst_corrupt() " is corrupt: ".
*/
#include "cuckoo_store.h"

#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

/* The shadow tables of table T are T_config, T_levels and T_blocks; each
** suffix is named here once.  CKST_TABLE(x) is "schema"."T_x" in SQL built
** with sqlite3_mprintf(zSql, zDb, zName). */
#define CKST_CONFIG "config"
#define CKST_LEVELS "levels"
#define CKST_BLOCKS "blocks"
#define CKST_TABLE(x) "\"%w\".\"%w_" x "\""
static const char *const ckst_azShadow[] = {CKST_CONFIG, CKST_LEVELS,
                                            CKST_BLOCKS};
#define CKST_NSHADOW (int)(sizeof(ckst_azShadow) / sizeof(ckst_azShadow[0]))

/* Statements kept prepared (reset after every use). */
#define CKST_READ_BLOCK 0
#define CKST_DATA_VERSION 1
#define CKST_READ_COOKIE 2
#define CKST_WRITE_COOKIE 3
#define CKST_WRITE_COUNT 4
#define CKST_INSERT_BLOCK 5
#define CKST_INSERT_LEVEL 6
#define CKST_LAST_BLOCK 7
#define CKST_READ_LEVEL 8
#define CKST_NSTMT 9

/* (each entry parenthesized: clang -Wstring-concatenation) */
static const char *const ckst_azSql[CKST_NSTMT] = {
    ("SELECT data FROM " CKST_TABLE(CKST_BLOCKS) " WHERE id=?1"),
    ("PRAGMA \"%w\".data_version"),
    ("SELECT v FROM " CKST_TABLE(CKST_CONFIG) " WHERE k='cookie'"),
    ("UPDATE " CKST_TABLE(CKST_CONFIG) " SET v=?1 WHERE k='cookie'"),
    ("UPDATE " CKST_TABLE(CKST_LEVELS) " SET count=?2 WHERE level=?1"),
    ("INSERT INTO " CKST_TABLE(CKST_BLOCKS) "(id, data) VALUES(?1, ?2)"),
    ("INSERT INTO " CKST_TABLE(
        CKST_LEVELS) "(level, nbuckets, bucket_size, "
                     "fp_bits, flags, capacity, buckets_per_block, "
                     "block_bytes, count) "
                     "VALUES(?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)"),
    ("SELECT id FROM " CKST_TABLE(CKST_BLOCKS) " WHERE id>=?1 AND id<?2 "
                                               "ORDER BY id DESC LIMIT 1"),
    ("SELECT id, data FROM " CKST_TABLE(CKST_BLOCKS) " WHERE id>=?1 AND "
                                                     "id<?2 ORDER BY id"),
};

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
} ckst_level;

/* A hash a scan pinned to a level (see ckst_scan_hash). */
typedef struct ckst_pin {
  uint64_t h;
  int iLevel; /* level + 1; 0: empty slot */
} ckst_pin;

/* A pending insert's value, for messages (its hash is in aPendHash). */
typedef struct ckst_pend {
  int eType; /* SQLITE_INTEGER or SQLITE_FLOAT */
  union {
    sqlite3_int64 i;
    double r;
  } v;
} ckst_pend;

/* A cached block: its bytes at a, right after this header (allocated
** with it) or in its level's image (iImg: the level + 1; the header is
** then part of the image's allocation too). */
typedef struct ckst_block {
  uint64_t id;
  int bDirty;
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
  int bMain;    /* zDb is "main" */
  /* Configuration (valid when bLoaded) */
  int bLoaded;
  uint64_t seed;
  uint64_t keyInt; /* cf_int_key(seed): INTEGER items hash inline */
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
  ckst_block *pLast; /* most recently used block */
  uint64_t *aDirty;  /* ids of dirty blocks */
  uint32_t nDirty, nDirtyAlloc;
  int bChanged;             /* changed since the cookie was last bumped */
  int bCookieBumped;        /* the cookie was bumped in this transaction */
  sqlite3_int64 nBlockRead; /* blocks read from the shadow table */
  int rcStore;              /* error code of a failed cf_store callback */
  sqlite3_value *pItem;     /* the item ckst_insert() is inserting */
  uint64_t *aPendHash;      /* pending inserts' hashes (ckst_insert_later) */
  ckst_pend *aPend;         /* and their values */
  uint32_t nPend, nPendAlloc;
  int iPendItem;     /* >= 0: the pending item being placed (messages) */
  int bDrainFailed;  /* the last drain failed: its items are pending */
  int bLostPending;  /* a discard dropped pending items of a failed drain */
  unsigned nDiscard; /* ckst_discard() calls, to notice one in a drain */
  sqlite3_stmt *aStmt[CKST_NSTMT];
  /* Hashes pinned by scans: open addressing, until ckst_scan_end() */
  ckst_pin *aPin;
  uint32_t nPin, nPinSlot;
};

#define CKST_ID(iLevel, j) (((uint64_t)(iLevel) << 32) | (uint64_t)(j))

/* ---------------------------------------------------------------------
** Options
*/

#define CKST_VALID_OPTIONS                                                     \
  "capacity=<integer>, error_rate=<number between 0 and 1>, "                  \
  "growth=on|off, " CKSQL_VALID_OPTIONS ", block_size=<bytes>, "               \
  "cache_size=<KiB>"

/* Copy [z, zEnd) with surrounding white space and quotes removed. */
static char *ckst_trim(const char *z, const char *zEnd) {
  while (z < zEnd && (*z == ' ' || *z == '\t' || *z == '\n'))
    z++;
  while (zEnd > z &&
         (zEnd[-1] == ' ' || zEnd[-1] == '\t' || zEnd[-1] == '\n')) {
    zEnd--;
  }
  if (zEnd - z >= 2 && (z[0] == '\'' || z[0] == '"') && zEnd[-1] == z[0]) {
    z++;
    zEnd--;
  }
  return sqlite3_mprintf("%.*s", (int)(zEnd - z), z);
}

/* Parse a whole string as a number; 0 if it is not one. */
static int ckst_number(const char *z, double *pR) {
  char *zStop = 0;
  if (z[0] == 0) return 0;
  *pR = strtod(z, &zStop);
  return zStop && *zStop == 0;
}

/* Parse an on/off word into *pV; 0 if z is not one. */
static int ckst_onoff(const char *z, int *pV) {
  static const char *const azOn[] = {"on", "1", "true", "yes"};
  static const char *const azOff[] = {"off", "0", "false", "no"};
  int i;
  for (i = 0; i < 4; i++) {
    if (sqlite3_stricmp(z, azOn[i]) == 0) return (*pV = 1), 1;
    if (sqlite3_stricmp(z, azOff[i]) == 0) return (*pV = 0), 1;
  }
  return 0;
}

/* One module argument "key=value" (or a bare word). */
static int ckst_parse_one(const char *zLabel, const char *zArg,
                          ckst_options *pOpt, char **pzErr) {
  const char *zEq = strchr(zArg, '=');
  char *zKey = ckst_trim(zArg, zEq ? zEq : zArg + strlen(zArg));
  char *zVal = zEq ? ckst_trim(zEq + 1, zEq + 1 + strlen(zEq + 1)) : 0;
  int rc = SQLITE_OK;
  double r;
  int v;

  if (zKey == 0 || (zEq && zVal == 0)) {
    rc = SQLITE_NOMEM;
  } else if (sqlite3_stricmp(zKey, "capacity") == 0) {
    if (!zVal || !ckst_number(zVal, &r) || r < 1 || r > 4.0e18 ||
        r != floor(r)) {
      *pzErr = sqlite3_mprintf("%s: capacity must be a positive integer "
                               "(got %s)",
                               zLabel, zVal ? zVal : "nothing");
      rc = SQLITE_ERROR;
    } else {
      pOpt->capacity = (sqlite3_int64)r;
    }
  } else if (sqlite3_stricmp(zKey, "error_rate") == 0) {
    if (!zVal || !ckst_number(zVal, &r) || !(r > 0.0 && r < 1.0)) {
      *pzErr = sqlite3_mprintf("%s: error_rate must be > 0 and < 1 (got %s)",
                               zLabel, zVal ? zVal : "nothing");
      rc = SQLITE_ERROR;
    } else {
      pOpt->error_rate = r;
    }
  } else if (sqlite3_stricmp(zKey, "growth") == 0) {
    if (!zVal || !ckst_onoff(zVal, &v)) {
      *pzErr = sqlite3_mprintf("%s: growth must be on or off (got %s)", zLabel,
                               zVal ? zVal : "nothing");
      rc = SQLITE_ERROR;
    } else {
      pOpt->growth = v;
    }
  } else if (sqlite3_stricmp(zKey, "block_size") == 0) {
    if (!zVal || !ckst_number(zVal, &r) || r != floor(r) ||
        r < CKST_MIN_BLOCK || r > CKST_MAX_BLOCK) {
      *pzErr = sqlite3_mprintf("%s: block_size must be an integer from %d "
                               "to %d bytes (got %s)",
                               zLabel, CKST_MIN_BLOCK, CKST_MAX_BLOCK,
                               zVal ? zVal : "nothing");
      rc = SQLITE_ERROR;
    } else {
      pOpt->block_size = (int)r;
    }
  } else if (sqlite3_stricmp(zKey, "cache_size") == 0) {
    if (!zVal || !ckst_number(zVal, &r) || r != floor(r) || r < 1 ||
        r > (double)CKST_MAX_CACHE_KIB) {
      *pzErr =
          sqlite3_mprintf("%s: cache_size must be an integer number of "
                          "KiB from 1 to %lld (got %s)",
                          zLabel, CKST_MAX_CACHE_KIB, zVal ? zVal : "nothing");
      rc = SQLITE_ERROR;
    } else {
      pOpt->cache_kib = (sqlite3_int64)r;
    }
  } else if (sqlite3_stricmp(zKey, "bucket_size") == 0 ||
             sqlite3_stricmp(zKey, "seed") == 0 ||
             sqlite3_stricmp(zKey, "variant") == 0 ||
             (!zEq && (sqlite3_stricmp(zKey, "semisort") == 0 ||
                       sqlite3_stricmp(zKey, "plain") == 0))) {
    char *zOne = zEq ? sqlite3_mprintf("%s=%s", zKey, zVal)
                     : sqlite3_mprintf("%s", zKey);
    if (zOne == 0) {
      rc = SQLITE_NOMEM;
    } else {
      rc = cksql_parse_options(zLabel, zOne, &pOpt->o, pzErr);
      sqlite3_free(zOne);
    }
  } else if (!zEq) {
    /* A positional argument, as in USING cuckoo(1000000): show the form. */
    int bNum = ckst_number(zKey, &r);
    *pzErr = sqlite3_mprintf(
        "%s: options are key=value, for example "
        "%s=%s (got \"%s\"; valid options: " CKST_VALID_OPTIONS ")",
        zLabel, bNum ? "capacity" : "variant", bNum ? zKey : "semisort", zKey);
    rc = SQLITE_ERROR;
  } else {
    *pzErr = sqlite3_mprintf(
        "%s: unknown option \"%s\" (valid options: " CKST_VALID_OPTIONS ")",
        zLabel, zKey);
    rc = SQLITE_ERROR;
  }
  sqlite3_free(zKey);
  sqlite3_free(zVal);
  if (rc == SQLITE_ERROR && *pzErr == 0) rc = SQLITE_NOMEM;
  return rc;
}

/* Defaults, then each argument in turn (the first error stops). */
int ckst_parse_args(const char *zLabel, int argc, const char *const *argv,
                    ckst_options *pOpt, char **pzErr) {
  int i, rc = SQLITE_OK;
  *pzErr = 0;
  memset(pOpt, 0, sizeof(*pOpt));
  pOpt->capacity = CKST_DEFAULT_CAPACITY;
  pOpt->error_rate = CF_DEFAULT_ERROR_RATE;
  pOpt->growth = 1;
  pOpt->cache_kib = CKST_DEFAULT_CACHE_KIB;
  cksql_options_default(&pOpt->o);
  for (i = 0; rc == SQLITE_OK && i < argc; i++) {
    rc = ckst_parse_one(zLabel, argv[i], pOpt, pzErr);
  }
  return rc;
}

/* "cuckoo table NAME" (schema main) or "cuckoo table SCHEMA.NAME", the
** subject of every message (sqlite3_mprintf'd, caller frees). */
static char *ckst_make_label(const char *zDb, const char *zName) {
  if (sqlite3_stricmp(zDb, "main") == 0) {
    return sqlite3_mprintf("cuckoo table %s", zName);
  }
  return sqlite3_mprintf("cuckoo table %s.%s", zDb, zName);
}

/* ---------------------------------------------------------------------
** Errors and statements
*/

/* Replace the store's message with "LABEL<zSep><message><zTail>" (the
** message built from zFmt, ap) and return rc, or SQLITE_NOMEM if the
** message could not be built.  The store owns the message. */
static int ckst_vmessage(ckstore *p, int rc, const char *zSep,
                         const char *zTail, const char *zFmt, va_list ap) {
  char *z = sqlite3_vmprintf(zFmt, ap);
  sqlite3_free(p->zErr);
  p->zErr = z ? sqlite3_mprintf("%s%s%s%s", p->zLabel, zSep, z, zTail) : 0;
  sqlite3_free(z);
  return p->zErr ? rc : SQLITE_NOMEM;
}

/* An error: "LABEL: message"; returns rc (or SQLITE_NOMEM). */
static int ckst_error(ckstore *p, int rc, const char *zFmt, ...) {
  va_list ap;
  va_start(ap, zFmt);
  rc = ckst_vmessage(p, rc, ": ", "", zFmt, ap);
  va_end(ap);
  return rc;
}

/* A refused insert, in the SQL layer's one wording (cksql_full_message):
** "LABEL: filter is full (N items stored, capacity C): item X did not fit;
** <zFmt...>".  N is what the levels rows hold: the table as it was when
** the statement began (the failed statement is undone), not the items the
** statement added before this one.  C is the capacity of all levels.
** Returns SQLITE_ERROR (or SQLITE_NOMEM). */
static int ckst_full(ckstore *p, const char *zFmt, ...) {
  va_list ap;
  uint64_t nStored = 0, nCapacity = 0;
  char *zRest, *zItem = 0, *zWhat;
  int i;
  for (i = 0; i < p->nLevel; i++) {
    nStored += p->aLevel[i].nCountSaved;
    nCapacity += p->aLevel[i].p.capacity;
  }
  va_start(ap, zFmt);
  zRest = sqlite3_vmprintf(zFmt, ap);
  va_end(ap);
  if (p->pItem) {
    zItem = cksql_describe_value(p->pItem);
  } else if (p->iPendItem >= 0) {
    const ckst_pend *e = &p->aPend[p->iPendItem];
    zItem = e->eType == SQLITE_INTEGER ? sqlite3_mprintf("%lld", e->v.i)
                                       : sqlite3_mprintf("%!.15g", e->v.r);
  }
  zWhat = p->pItem || p->iPendItem >= 0
              ? (zItem ? sqlite3_mprintf("item %s", zItem) : 0)
              : sqlite3_mprintf("an item");
  sqlite3_free(p->zErr);
  p->zErr = zRest && zWhat ? cksql_full_message(p->zLabel, nStored, nCapacity,
                                                zWhat, zRest)
                           : 0;
  sqlite3_free(zRest);
  sqlite3_free(zItem);
  sqlite3_free(zWhat);
  return p->zErr ? SQLITE_ERROR : SQLITE_NOMEM;
}

/* A shadow row that breaks the rules: "LABEL is corrupt: message; run
** cuckoo_check() on it"; returns SQLITE_CORRUPT_VTAB (or SQLITE_NOMEM). */
static int ckst_corrupt(ckstore *p, const char *zFmt, ...) {
  va_list ap;
  int rc;
  va_start(ap, zFmt);
  rc = ckst_vmessage(p, SQLITE_CORRUPT_VTAB,
                     " is corrupt: ", "; run cuckoo_check() on it", zFmt, ap);
  va_end(ap);
  return rc;
}

/* A row of T_blocks that breaks the rules: "LABEL is corrupt: block L.J
** (id N of T_blocks) <message>; ..."; returns SQLITE_CORRUPT_VTAB (or
** SQLITE_NOMEM). */
static int ckst_corrupt_block(ckstore *p, int iLevel, uint64_t j,
                              const char *zFmt, ...) {
  va_list ap;
  char *z;
  int rc;
  va_start(ap, zFmt);
  z = sqlite3_vmprintf(zFmt, ap);
  va_end(ap);
  if (z == 0) return SQLITE_NOMEM;
  rc = ckst_corrupt(p, "block %d.%llu (id %lld of %s_" CKST_BLOCKS ") %s",
                    iLevel, (unsigned long long)j,
                    (sqlite3_int64)CKST_ID(iLevel, j), p->zName, z);
  sqlite3_free(z);
  return rc;
}

/* "an INTEGER", "a REAL", "TEXT", "a BLOB" or "NULL": a value's type in
** messages. */
static const char *ckst_type_name(int eType) {
  switch (eType) {
  case SQLITE_INTEGER: return "an INTEGER";
  case SQLITE_FLOAT: return "a REAL";
  case SQLITE_TEXT: return "TEXT";
  case SQLITE_BLOB: return "a BLOB";
  default: return "NULL";
  }
}

/* An error from SQLite itself, with the connection's message; returns rc.
** SQLITE_NOMEM is returned as it is (no message is built). */
static int ckst_sqlerr(ckstore *p, int rc) {
  if (rc == SQLITE_NOMEM) return rc;
  return ckst_error(p, rc, "%s", sqlite3_errmsg(p->db));
}

/* The message passes to the caller, who frees it. */
char *ckst_take_error(ckstore *p) {
  char *z = p->zErr;
  p->zErr = 0;
  return z;
}

/* zErr passes to the store (an earlier message is freed). */
void ckst_put_error(ckstore *p, char *zErr) {
  sqlite3_free(p->zErr);
  p->zErr = zErr;
}

/* Accessors for the virtual table: nothing is copied; the strings stay
** the store's (valid until ckst_rename() or ckst_free()). */
sqlite3 *ckst_db(const ckstore *p) { return p->db; }
const char *ckst_schema(const ckstore *p) { return p->zDb; }
const char *ckst_name(const ckstore *p) { return p->zName; }
const char *ckst_label(const ckstore *p) { return p->zLabel; }
uint64_t ckst_seed(const ckstore *p) { return p->seed; }
uint64_t ckst_hash_int(const ckstore *p, sqlite3_int64 v) {
  return cf_xxh3_8((uint64_t)v, p->keyInt);
}
int ckst_levels(const ckstore *p) { return p->nLevel; }

/* xShadowName: is zSuffix one of ckst_azShadow[] (any case)? */
int ckst_is_shadow(const char *zSuffix) {
  int i;
  for (i = 0; i < CKST_NSHADOW; i++) {
    if (sqlite3_stricmp(zSuffix, ckst_azShadow[i]) == 0) return 1;
  }
  return 0;
}

/* Prepared statement i of ckst_azSql (prepared on first use, kept in
** p->aStmt until ckst_finalize()); *pp is the store's, reset it after
** use.  A statement that cannot be prepared is a missing shadow table. */
static int ckst_stmt(ckstore *p, int i, sqlite3_stmt **pp) {
  if (p->aStmt[i] == 0) {
    char *zSql = sqlite3_mprintf(ckst_azSql[i], p->zDb, p->zName);
    int rc;
    if (zSql == 0) return SQLITE_NOMEM;
    rc = sqlite3_prepare_v3(p->db, zSql, -1, SQLITE_PREPARE_PERSISTENT,
                            &p->aStmt[i], 0);
    sqlite3_free(zSql);
    if (rc == SQLITE_ERROR) {
      /* A shadow table is missing (or unusable). */
      return ckst_corrupt(p, "cannot use its shadow tables (%s)",
                          sqlite3_errmsg(p->db));
    }
    if (rc != SQLITE_OK) return ckst_sqlerr(p, rc);
  }
  *pp = p->aStmt[i];
  return SQLITE_OK;
}

/* Prepare one-off SQL on the shadow table T_zSuffix (zFmt gets zDb and
** zName).  A failure to prepare means the shadow table is missing or
** unusable: SQLITE_CORRUPT_VTAB. */
static int ckst_prepare_shadow(ckstore *p, const char *zFmt,
                               const char *zSuffix, sqlite3_stmt **ppStmt) {
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
  int rc = sqlite3_step(pStmt);
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
  int rc;
  if (zSql == 0) return SQLITE_NOMEM;
  rc = sqlite3_exec(p->db, zSql, 0, 0, 0);
  sqlite3_free(zSql);
  return rc == SQLITE_OK ? rc : ckst_sqlerr(p, rc);
}

/* Finalize every kept statement (they are prepared again on use). */
void ckst_finalize(ckstore *p) {
  size_t i;
  for (i = 0; i < sizeof(p->aStmt) / sizeof(p->aStmt[0]); i++) {
    sqlite3_finalize(p->aStmt[i]);
    p->aStmt[i] = 0;
  }
}

/* Replace the table name and the label (copies; p owns them).  On
** SQLITE_NOMEM the old names stay. */
static int ckst_set_names(ckstore *p, const char *zName) {
  char *zNew = sqlite3_mprintf("%s", zName);
  char *zLabel = ckst_make_label(p->zDb, zName);
  if (zNew == 0 || zLabel == 0) {
    sqlite3_free(zNew);
    sqlite3_free(zLabel);
    return SQLITE_NOMEM;
  }
  sqlite3_free(p->zName);
  sqlite3_free(p->zLabel);
  p->zName = zNew;
  p->zLabel = zLabel;
  return SQLITE_OK;
}

/* A store that owns copies of zDb and zName; nothing is read yet. */
int ckst_new(sqlite3 *db, const char *zDb, const char *zName,
             ckstore **ppStore) {
  ckstore *p = sqlite3_malloc64(sizeof(*p));
  *ppStore = 0;
  if (p == 0) return SQLITE_NOMEM;
  memset(p, 0, sizeof(*p));
  p->iPendItem = -1;
  p->db = db;
  p->zDb = sqlite3_mprintf("%s", zDb);
  p->bMain = sqlite3_stricmp(zDb, "main") == 0;
  if (p->zDb == 0 || ckst_set_names(p, zName) != SQLITE_OK) {
    ckst_free(p);
    return SQLITE_NOMEM;
  }
  *ppStore = p;
  return SQLITE_OK;
}

/* ---------------------------------------------------------------------
** The block cache
*/

static uint32_t ckst_slot_of(uint64_t id, uint32_t nSlot) {
  return (uint32_t)((id * 0x9E3779B97F4A7C15ULL) >> 32) & (nSlot - 1);
}

static uint32_t ckst_slot(const ckstore *p, uint64_t id) {
  return ckst_slot_of(id, p->nSlot);
}

/* The cached block of id, or NULL (the cache keeps ownership). */
static ckst_block *ckst_cache_find(const ckstore *p, uint64_t id) {
  uint32_t i;
  if (p->nSlot == 0) return 0;
  for (i = ckst_slot(p, id);; i = (i + 1) & (p->nSlot - 1)) {
    ckst_block *b = p->aSlot[i];
    if (b == 0 || b->id == id) return b;
  }
}

/* Insert b (the cache takes ownership; room was reserved). */
static void ckst_cache_put(ckstore *p, ckst_block *b) {
  uint32_t i = ckst_slot(p, b->id);
  while (p->aSlot[i])
    i = (i + 1) & (p->nSlot - 1);
  p->aSlot[i] = b;
}

/* Make room for n more entries (load factor at most 1/2). */
static int ckst_cache_reserve_n(ckstore *p, uint64_t n) {
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

static int ckst_cache_reserve(ckstore *p) { return ckst_cache_reserve_n(p, 1); }

/* Drop every cached block, dirty ones included (callers flush first
** when the changes must be kept). */
static void ckst_cache_clear(ckstore *p) {
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
  p->pLast = 0;
  p->nDirty = 0;
}

/* Record that b must be written by the next flush (its id goes into
** p->aDirty, grown as needed); SQLITE_NOMEM leaves b clean. */
static int ckst_mark_dirty(ckstore *p, ckst_block *b) {
  if (b->bDirty) return SQLITE_OK;
  if (p->nDirty == p->nDirtyAlloc) {
    uint32_t nNew = p->nDirtyAlloc ? p->nDirtyAlloc * 2 : 64;
    uint64_t *aNew = sqlite3_realloc64(p->aDirty, sizeof(uint64_t) * nNew);
    if (aNew == 0) return SQLITE_NOMEM;
    p->aDirty = aNew;
    p->nDirtyAlloc = nNew;
  }
  p->aDirty[p->nDirty++] = b->id;
  b->bDirty = 1;
  p->bChanged = 1;
  return SQLITE_OK;
}

/* Copy column iCol of pStmt's row, block j of level iLevel, into a[]
** after validating it (rule 6). */
static int ckst_block_row(ckstore *p, sqlite3_stmt *pStmt, int iCol, int iLevel,
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

/* Read block j of level iLevel from the shadow table into a[]. */
static int ckst_read_block(ckstore *p, int iLevel, uint64_t j, uint8_t *a,
                           uint32_t nBytes) {
  sqlite3_stmt *pStmt = 0;
  int rc = ckst_stmt(p, CKST_READ_BLOCK, &pStmt);
  if (rc != SQLITE_OK) return rc;
  sqlite3_bind_int64(pStmt, 1, (sqlite3_int64)CKST_ID(iLevel, j));
  rc = sqlite3_step(pStmt);
  if (rc == SQLITE_ROW) {
    rc = ckst_block_row(p, pStmt, 0, iLevel, j, a, nBytes);
  } else if (rc == SQLITE_DONE) {
    rc = ckst_corrupt_block(p, iLevel, j, "is missing");
  } else {
    rc = ckst_sqlerr(p, rc);
  }
  sqlite3_reset(pStmt);
  return rc;
}

static int ckst_flush_blocks(ckstore *p);

/*
** Build the image of level iLevel (see ckst_level): the blocks not cached
** are read with one range query (each row validated as ckst_read_block()
** does), cached ones (which may hold unflushed changes) are copied in and
** then point into it.  A level larger than half the cache budget, or
** than the budget left, or an allocation that fails, gets no image: that
** is no error (the blocks work one by one as before).  On an error
** nothing changes.
*/
static int ckst_level_image(ckstore *p, int iLevel) {
  ckst_level *pL = &p->aLevel[iLevel];
  uint64_t nData = pL->nBlock * pL->nBytes, j, jNext = 0;
  uint64_t nHead = pL->nBlock * sizeof(ckst_block);
  sqlite3_int64 nAll = (sqlite3_int64)(nHead + CF_HEADER_SIZE + nData);
  sqlite3_int64 nBudget = p->cacheKib * 1024;
  sqlite3_stmt *pStmt = 0;
  ckst_block *aHead;
  uint8_t *aImg, *aData;
  int rc;
  if (pL->aImg) return SQLITE_OK;
  if (nAll > nBudget / 2 || p->nCacheBytes + nAll > nBudget) return SQLITE_OK;
  if (ckst_cache_reserve_n(p, pL->nBlock) != SQLITE_OK) return SQLITE_OK;
  aImg = sqlite3_malloc64((sqlite3_uint64)nAll);
  if (aImg == 0) return SQLITE_OK;
  aHead = (ckst_block *)aImg;
  aData = aImg + nHead + CF_HEADER_SIZE;
  /* cannot fail: the level's geometry was checked */
  (void)cf_init(&pL->img, &pL->p, aImg + nHead);
  rc = ckst_stmt(p, CKST_READ_LEVEL, &pStmt);
  if (rc == SQLITE_OK) {
    sqlite3_bind_int64(pStmt, 1, (sqlite3_int64)CKST_ID(iLevel, 0));
    sqlite3_bind_int64(pStmt, 2, (sqlite3_int64)CKST_ID(iLevel, pL->nBlock));
    while ((rc = sqlite3_step(pStmt)) == SQLITE_ROW) {
      j = (uint64_t)sqlite3_column_int64(pStmt, 0) & 0xffffffff;
      if (j != jNext) break; /* block jNext is missing */
      rc = ckst_cache_find(p, CKST_ID(iLevel, j))
               ? SQLITE_OK
               : ckst_block_row(p, pStmt, 1, iLevel, j, aData + j * pL->nBytes,
                                pL->nBytes);
      if (rc != SQLITE_OK) break;
      jNext++;
    }
    if (rc == SQLITE_DONE || rc == SQLITE_ROW) {
      rc = jNext == pL->nBlock
               ? SQLITE_OK
               : ckst_corrupt_block(p, iLevel, jNext, "is missing");
    } else if (rc != SQLITE_OK && rc != SQLITE_CORRUPT_VTAB &&
               rc != SQLITE_NOMEM) {
      rc = ckst_sqlerr(p, rc);
    }
    sqlite3_reset(pStmt);
  }
  if (rc != SQLITE_OK) {
    sqlite3_free(aImg);
    return rc;
  }
  /* From here on nothing can fail. */
  for (j = 0; j < pL->nBlock; j++) {
    ckst_block *b = ckst_cache_find(p, CKST_ID(iLevel, j));
    uint8_t *a = aData + j * pL->nBytes;
    if (b) {
      memcpy(a, b->a, pL->nBytes);
    } else {
      b = &aHead[j];
      b->id = CKST_ID(iLevel, j);
      b->bDirty = 0;
      b->nBytes = pL->nBytes;
      b->iImg = iLevel + 1;
      ckst_cache_put(p, b);
      p->nEntry++;
    }
    b->a = a;
  }
  p->nCacheBytes += nAll;
  pL->aImg = aImg;
  return SQLITE_OK;
}

/* The cached copy of block j of level iLevel, loaded if needed.  When the
** cache would exceed its budget it is flushed and emptied first. */
static int ckst_block_get(ckstore *p, int iLevel, uint64_t j,
                          ckst_block **ppB) {
  uint64_t id = CKST_ID(iLevel, j);
  uint32_t nBytes = p->aLevel[iLevel].nBytes;
  sqlite3_int64 nNeed = (sqlite3_int64)(sizeof(ckst_block) + nBytes);
  ckst_block *b;
  int rc;

  if (p->pLast && p->pLast->id == id) {
    *ppB = p->pLast;
    return SQLITE_OK;
  }
  b = ckst_cache_find(p, id);
  if (b == 0 && p->aLevel[iLevel].aImg == 0 &&
      ++p->aLevel[iLevel].nGot * 8 >= p->aLevel[iLevel].nBlock) {
    /* an eighth of the level loaded block by block: load the rest at once */
    rc = ckst_level_image(p, iLevel);
    if (rc != SQLITE_OK) return rc;
    b = ckst_cache_find(p, id);
  }
  if (b == 0) {
    if (p->nEntry > 0 && p->nCacheBytes + nNeed > p->cacheKib * 1024) {
      rc = ckst_flush_blocks(p);
      if (rc != SQLITE_OK) return rc;
      ckst_cache_clear(p);
    }
    rc = ckst_cache_reserve(p);
    if (rc != SQLITE_OK) return rc;
    b = sqlite3_malloc64((sqlite3_uint64)nNeed);
    if (b == 0) return SQLITE_NOMEM;
    b->id = id;
    b->bDirty = 0;
    b->nBytes = nBytes;
    b->iImg = 0;
    b->a = (uint8_t *)(b + 1);
    rc = ckst_read_block(p, iLevel, j, b->a, nBytes);
    if (rc != SQLITE_OK) {
      sqlite3_free(b);
      return rc;
    }
    ckst_cache_put(p, b);
    p->nEntry++;
    p->nCacheBytes += nNeed;
  }
  p->pLast = b;
  *ppB = b;
  return SQLITE_OK;
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
  rc = ckst_prepare_shadow(p, "SELECT k, v FROM " CKST_TABLE(CKST_CONFIG),
                           CKST_CONFIG, &pStmt);
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
    rc = ckst_sqlerr(p, rc);
  }
  sqlite3_finalize(pStmt);
  return rc;
}

/* Load and validate the configuration into p (rule 6). */
static int ckst_load_config(ckstore *p) {
  ckst_cval a[CKC_N];
  const ckst_cval *pVar = &a[CKC_VARIANT], *pRate = &a[CKC_ERROR_RATE];
  int rc = ckst_read_config(p, a);
  if (rc != SQLITE_OK) return rc;

  /* The version first: a newer format may have other keys. */
  if (a[CKC_VERSION].eType == SQLITE_INTEGER &&
      a[CKC_VERSION].i > CKST_FORMAT_VERSION) {
    return ckst_error(p, SQLITE_ERROR,
                      "created by a newer cuckoo (shadow-table format "
                      "version %lld; this build, cuckoo " CUCKOO_VERSION
                      ", reads version %d): load a newer cuckoo extension "
                      "to use it",
                      a[CKC_VERSION].i, CKST_FORMAT_VERSION);
  }
  ckst_cint(p, &rc, a, CKC_VERSION, CKST_FORMAT_VERSION, CKST_FORMAT_VERSION);
  p->seed = (uint64_t)ckst_cint(p, &rc, a, CKC_SEED, INT64_MIN, INT64_MAX);
  p->keyInt = cf_int_key(p->seed);
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
  return rc;
}

/* Derived block geometry of a level from its buckets per block. */
static void ckst_level_blocks(ckst_level *pL, uint32_t nPer) {
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
  pL->p.seed = p->seed;
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
  }
}

/* Load and validate every row of T_levels into p->aLevel (rule 6). */
static int ckst_load_levels(ckstore *p) {
  sqlite3_stmt *pStmt = 0;
  int rc, n = 0;

  rc = ckst_prepare_shadow(
      p,
      "SELECT level, nbuckets, bucket_size, fp_bits, flags, capacity, "
      "buckets_per_block, block_bytes, count FROM " CKST_TABLE(
          CKST_LEVELS) " ORDER BY level",
      CKST_LEVELS, &pStmt);
  while (rc == SQLITE_OK && (rc = sqlite3_step(pStmt)) == SQLITE_ROW) {
    rc = SQLITE_OK;
    ckst_level_row(p, pStmt, n, &rc);
    if (rc == SQLITE_OK) n++;
  }
  if (rc == SQLITE_DONE) {
    rc = SQLITE_OK;
  } else if (pStmt && rc != SQLITE_CORRUPT_VTAB && rc != SQLITE_NOMEM) {
    rc = ckst_sqlerr(p, rc);
  }
  sqlite3_finalize(pStmt);
  if (rc == SQLITE_OK && n == 0) {
    rc = ckst_corrupt(p, "%s_" CKST_LEVELS " has no rows", p->zName);
  }
  if (rc == SQLITE_OK) p->nLevel = n;
  return rc;
}

/* The last block of every level must be where the level's geometry puts
** it (one indexed probe per level; a missing block in the middle is found
** when it is read, or by cuckoo_check). */
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
static int ckst_load(ckstore *p) {
  int rc = ckst_read_data_version(p, &p->iDataVersion);
  if (rc == SQLITE_OK) rc = ckst_load_config(p);
  if (rc == SQLITE_OK) rc = ckst_load_levels(p);
  if (rc == SQLITE_OK) rc = ckst_check_extent(p);
  if (rc == SQLITE_OK) p->bLoaded = 1;
  return rc;
}

/* ---------------------------------------------------------------------
** Levels
*/

/* Write level iLevel's row and its blocks: the bucket array aTable
** (nTable bytes), or zeros if aTable is NULL. */
static int ckst_write_level(ckstore *p, int iLevel, const uint8_t *aTable,
                            uint64_t nTable) {
  const ckst_level *pL = &p->aLevel[iLevel];
  sqlite3_stmt *pStmt = 0;
  uint8_t *aBuf = 0;
  uint64_t j;
  int rc = ckst_stmt(p, CKST_INSERT_BLOCK, &pStmt);
  if (rc == SQLITE_OK && aTable) {
    aBuf = sqlite3_malloc64(pL->nBytes);
    if (aBuf == 0) rc = SQLITE_NOMEM;
  }
  for (j = 0; rc == SQLITE_OK && j < pL->nBlock; j++) {
    sqlite3_bind_int64(pStmt, 1, (sqlite3_int64)CKST_ID(iLevel, j));
    if (aTable) {
      uint64_t off = j * pL->nBytes;
      uint64_t n = nTable - off < pL->nBytes ? nTable - off : pL->nBytes;
      memset(aBuf, 0, pL->nBytes);
      memcpy(aBuf, aTable + off, (size_t)n);
      sqlite3_bind_blob(pStmt, 2, aBuf, (int)pL->nBytes, SQLITE_STATIC);
    } else {
      sqlite3_bind_zeroblob(pStmt, 2, (int)pL->nBytes);
    }
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

/* Append a level of geometry *pp holding nCount items (its bucket array
** aTable, or empty).  The in-memory level is added only on success. */
static int ckst_append_level(ckstore *p, const cf_params *pp,
                             const uint8_t *aTable, uint64_t nTable,
                             uint64_t nCount) {
  int iLevel = p->nLevel;
  ckst_level *pL = &p->aLevel[iLevel];
  int rc;
  memset(pL, 0, sizeof(*pL));
  pL->p = *pp;
  pL->nCount = pL->nCountSaved = nCount;
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
static int ckst_level_params(ckstore *p, sqlite3_int64 capacity, double er,
                             cf_params *pp, char **pzErr) {
  cksql_options o;
  o.bucket_size = p->bucketSize;
  o.seed = p->seed;
  o.flags = p->flags;
  return cksql_params(0, p->zLabel, capacity, er, &o, pp, pzErr);
}

/* Error rate level k is built for (see rule 2 of cuckoo_store.h). */
static double ckst_level_rate(const ckstore *p, int k) {
  return p->growth ? ldexp(p->errorRate, -(k + 1)) : p->errorRate;
}

/* Append a level of twice the last one's capacity at the next error
** rate (rule 2); a "full ... cannot grow" error when that is impossible. */
static int ckst_grow(ckstore *p) {
  int k = p->nLevel;
  const ckst_level *pPrev = &p->aLevel[k - 1];
  double er = ckst_level_rate(p, k);
  cf_params params;
  char *zErr = 0;
  int rc;
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

/* CREATE VIRTUAL TABLE: validate the options, create the three shadow
** tables, write the configuration and an empty level 0, and leave the
** store loaded. */
int ckst_create(ckstore *p, const ckst_options *pOpt) {
  static const char *const azCreate = "CREATE TABLE " CKST_TABLE(
      CKST_CONFIG) "(k TEXT PRIMARY KEY, v) WITHOUT "
                   "ROWID;"
                   "CREATE TABLE " CKST_TABLE(
                       CKST_LEVELS) "(level INTEGER PRIMARY KEY, "
                                    "nbuckets INTEGER, bucket_size INTEGER, "
                                    "fp_bits INTEGER, flags "
                                    "INTEGER, capacity INTEGER, "
                                    "buckets_per_block INTEGER, block_bytes "
                                    "INTEGER, count INTEGER);"
                                    "CREATE TABLE " CKST_TABLE(
                                        CKST_BLOCKS) "(id INTEGER PRIMARY KEY, "
                                                     "data BLOB);";
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
  p->seed = pOpt->o.seed;
  p->keyInt = cf_int_key(p->seed);
  p->bucketSize = pOpt->o.bucket_size;
  p->flags = pOpt->o.flags;
  p->errorRate = pOpt->error_rate;
  p->growth = pOpt->growth;
  p->capacity = pOpt->capacity;
  p->cacheKib = pOpt->cache_kib;
  p->cookie = 0;
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

  rc = ckst_exec(p, azCreate);
  if (rc != SQLITE_OK) return rc;
  zSql =
      sqlite3_mprintf("INSERT INTO " CKST_TABLE(CKST_CONFIG) "(k, v) "
                                                             "VALUES(?1, ?2)",
                      p->zDb, p->zName);
  if (zSql == 0) return SQLITE_NOMEM;
  rc = sqlite3_prepare_v2(p->db, zSql, -1, &pStmt, 0);
  sqlite3_free(zSql);
  if (rc != SQLITE_OK) return ckst_sqlerr(p, rc);
  for (k = 0; rc == SQLITE_OK && k < CKC_N; k++) {
    sqlite3_bind_text(pStmt, 1, ckst_azKey[k], -1, SQLITE_STATIC);
    switch (k) {
    case CKC_VERSION: sqlite3_bind_int(pStmt, 2, CKST_FORMAT_VERSION); break;
    case CKC_SEED: sqlite3_bind_int64(pStmt, 2, (sqlite3_int64)p->seed); break;
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
** Item operations: the core's algorithms over cf_store callbacks that
** read and write buckets of cached blocks.
*/

typedef struct ckst_access {
  ckstore *p;
  int iLevel;
  const ckst_level *pL;
} ckst_access;

/* cf_store read: bucket of the level into fps (1 on error, code kept in
** p->rcStore with its message). */
static int ckst_read_cb(void *ctx, uint32_t bucket, uint32_t *fps) {
  ckst_access *x = (ckst_access *)ctx;
  uint64_t j = bucket / x->pL->nPer;
  ckst_block *b;
  int rc = ckst_block_get(x->p, x->iLevel, j, &b);
  if (rc != SQLITE_OK) {
    x->p->rcStore = rc;
    return 1;
  }
  cf_region_get(&x->pL->p, b->a, b->nBytes, bucket - j * x->pL->nPer, fps);
  return 0;
}

/* cf_store write: fps into the bucket of the cached block, marking it
** dirty (1 on error, as ckst_read_cb). */
static int ckst_write_cb(void *ctx, uint32_t bucket, const uint32_t *fps) {
  ckst_access *x = (ckst_access *)ctx;
  uint64_t j = bucket / x->pL->nPer;
  ckst_block *b;
  int rc = ckst_block_get(x->p, x->iLevel, j, &b);
  if (rc == SQLITE_OK) rc = ckst_mark_dirty(x->p, b);
  if (rc != SQLITE_OK) {
    x->p->rcStore = rc;
    return 1;
  }
  cf_region_set(&x->pL->p, b->a, b->nBytes, bucket - j * x->pL->nPer, fps);
  return 0;
}

/* Set up *st to read and write level iLevel through the cache (x lives
** on the caller's stack for the length of one operation). */
static void ckst_access_init(ckstore *p, int iLevel, ckst_access *x,
                             cf_store *st) {
  x->p = p;
  x->iLevel = iLevel;
  x->pL = &p->aLevel[iLevel];
  st->ctx = x;
  st->read = ckst_read_cb;
  st->write = ckst_write_cb;
}

/* The result code a failed store operation leaves (message set). */
static int ckst_store_rc(ckstore *p) {
  int rc = p->rcStore ? p->rcStore : SQLITE_ERROR;
  p->rcStore = 0;
  if (rc != SQLITE_NOMEM && p->zErr == 0) {
    rc = ckst_error(p, rc, "I/O error in the block store");
  }
  return rc;
}

/*
** The common cases work on bucket words of cached blocks through the
** level's block view (cf_view_*): a lookup, an insert into a free slot of
** one of the two candidate buckets, a removal.  They take the slots and
** write the bytes the callback algorithms would (the core guarantees it),
** so only an insert that must displace fingerprints runs
** cf_store_insert() over the callbacks.
*/

/* The level's key of an item. */
static cf_key ckst_key(const ckst_level *pL, uint64_t hash) {
  return cf_split(pL->p.nbuckets, pL->view.fp_mask, hash);
}

/* Load the block of bucket `bucket` of level iLevel and point the level's
** view at it; *pj = the bucket's index in the block.  On error, the code
** is also left in p->rcStore (for ckst_store_rc()). */
static int ckst_bucket(ckstore *p, int iLevel, uint32_t bucket,
                       ckst_block **ppB, uint32_t *pj) {
  ckst_level *pL = &p->aLevel[iLevel];
  uint32_t j = bucket / pL->nPer;
  int rc = ckst_block_get(p, iLevel, j, ppB);
  if (rc != SQLITE_OK) {
    p->rcStore = rc;
    return rc;
  }
  pL->view.table = (*ppB)->a;
  *pj = bucket - j * pL->nPer;
  return SQLITE_OK;
}

/* Does level iLevel hold a fingerprint matching hash?  (-1: error) */
static int ckst_match(ckstore *p, int iLevel, uint64_t hash) {
  ckst_level *pL = &p->aLevel[iLevel];
  cf_key k;
  ckst_block *b;
  uint32_t i2, j;
  if (pL->aImg) return cf_contains_hash(&pL->img, hash);
  k = ckst_key(pL, hash);
  if (ckst_bucket(p, iLevel, k.i1, &b, &j)) return -1;
  if (cf_view_has(&pL->view, j, k.fp)) return 1;
  i2 = cf_alt(pL->p.nbuckets, k.i1, k.fp);
  if (i2 == k.i1) return 0;
  if (ckst_bucket(p, iLevel, i2, &b, &j)) return -1;
  return cf_view_has(&pL->view, j, k.fp);
}

/* Put fp into a free slot of bucket i of level iLevel: 1 if it did, 0 if
** the bucket is full, -1 on error. */
static int ckst_put_free(ckstore *p, int iLevel, uint32_t i, uint32_t fp) {
  ckst_level *pL = &p->aLevel[iLevel];
  ckst_block *b;
  uint32_t j;
  int rc;
  if (ckst_bucket(p, iLevel, i, &b, &j)) return -1;
  /* a dirty block takes fp or stays as it is in one call */
  if (b->bDirty) return cf_view_put(&pL->view, j, fp);
  if (!cf_view_free(&pL->view, j)) return 0;
  rc = ckst_mark_dirty(p, b);
  if (rc != SQLITE_OK) {
    p->rcStore = rc;
    return -1;
  }
  return cf_view_put(&pL->view, j, fp);
}

/* Clear one copy of fp from bucket i of level iLevel: 1 if it did, 0 if
** there is none, -1 on error. */
static int ckst_del(ckstore *p, int iLevel, uint32_t i, uint32_t fp) {
  ckst_level *pL = &p->aLevel[iLevel];
  ckst_block *b;
  uint32_t j;
  int rc;
  if (ckst_bucket(p, iLevel, i, &b, &j)) return -1;
  if (!cf_view_has(&pL->view, j, fp)) return 0;
  rc = ckst_mark_dirty(p, b);
  if (rc != SQLITE_OK) {
    p->rcStore = rc;
    return -1;
  }
  return cf_view_del(&pL->view, j, fp);
}

/* Probe every level, newest first (rule 3). */
int ckst_contains(ckstore *p, uint64_t hash, int *pFound) {
  int i, rc;
  *pFound = 0;
  rc = ckst_drain(p);
  if (rc != SQLITE_OK) return rc;
  for (i = p->nLevel - 1; i >= 0; i--) {
    int m = ckst_match(p, i, hash);
    if (m < 0) return ckst_store_rc(p);
    if (m) {
      *pFound = 1;
      break;
    }
  }
  return SQLITE_OK;
}

/* Insert into one level and count it; returns a CF_* code (CF_FULL and
** CF_TOO_MANY change nothing). */
static int ckst_insert_level(ckstore *p, int iLevel, uint64_t hash) {
  ckst_level *pL = &p->aLevel[iLevel];
  cf_key k = ckst_key(pL, hash);
  uint32_t i2 = cf_alt(pL->p.nbuckets, k.i1, k.fp);
  int rc = ckst_put_free(p, iLevel, k.i1, k.fp);
  if (rc == 0 && i2 != k.i1) rc = ckst_put_free(p, iLevel, i2, k.fp);
  if (rc < 0) return CF_IOERR;
  if (rc == 1) {
    rc = CF_OK;
  } else {
    /* both buckets full: the insertion walk over the callbacks */
    ckst_access x;
    cf_store st;
    ckst_access_init(p, iLevel, &x, &st);
    rc = cf_store_insert(&pL->p, &st, k);
  }
  if (rc == CF_OK) {
    p->aLevel[iLevel].nCount++;
    p->aLevel[iLevel].bCountDirty = 1;
  }
  return rc;
}

static int ckst_insert_hash(ckstore *p, uint64_t hash);

/* Insert one copy (rules 2 and 3), after the pending ones; on error
** nothing was changed.  pItem (may be NULL) only names the item in a
** "full" message. */
int ckst_insert(ckstore *p, uint64_t hash, sqlite3_value *pItem) {
  int rc = ckst_drain(p);
  if (rc != SQLITE_OK) return rc;
  p->pItem = pItem;
  rc = ckst_insert_hash(p, hash);
  p->pItem = 0;
  return rc;
}

/* ckst_insert() of a hash (p->pItem names it in messages). */
static int ckst_insert_hash(ckstore *p, uint64_t hash) {
  int rc, i, iLast = p->nLevel - 1;
  const ckst_level *pL;
  /* An item that already matches on an older level gets its new copy
  ** there (rule 3), so that copies of one item stay on one level. */
  for (i = iLast - 1; i >= 0; i--) {
    int m = ckst_match(p, i, hash);
    if (m < 0) return ckst_store_rc(p);
    if (m == 0) continue;
    rc = ckst_insert_level(p, i, hash);
    if (rc == CF_FULL) break; /* no room there: the last level takes it */
    iLast = i;
    goto done;
  }
  pL = &p->aLevel[iLast];
  if (p->growth && pL->nCount >= pL->p.capacity) {
    rc = ckst_grow(p);
    if (rc != SQLITE_OK) return rc;
    iLast++;
  }
  rc = ckst_insert_level(p, iLast, hash);
  if (rc == CF_FULL && p->growth) {
    int rc2 = ckst_grow(p);
    if (rc2 != SQLITE_OK) return rc2;
    rc = ckst_insert_level(p, ++iLast, hash);
  }
done:
  pL = &p->aLevel[iLast];
  switch (rc) {
  case CF_OK: return SQLITE_OK;
  case CF_FULL:
    return ckst_full(p, p->growth ? "nothing was changed"
                                  : "growth is off; nothing was changed; "
                                    "create it with a larger capacity, or with "
                                    "growth on (the default)");
  case CF_TOO_MANY:
    sqlite3_free(p->zErr);
    p->zErr = cksql_too_many_message(p->zLabel, 2 * pL->p.bucket_size);
    return p->zErr ? SQLITE_ERROR : SQLITE_NOMEM;
  default: return ckst_store_rc(p);
  }
}

/*
** Pending inserts.  ckst_insert_later() appends the hash to p->aPend;
** ckst_drain() places the pending items in order, each exactly as
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
#if defined(__GNUC__) || defined(__clang__)
    __builtin_prefetch(b->a + (bit >> 3), 1);
#else
    (void)bit;
#endif
  }
}

static void ckst_prefetch(const ckstore *p, uint64_t hash) {
  int i;
  for (i = 0; i < p->nLevel; i++) {
    const ckst_level *pL = &p->aLevel[i];
    cf_key k = ckst_key(pL, hash);
    ckst_prefetch_bucket(p, i, k.i1);
    ckst_prefetch_bucket(p, i, cf_alt(pL->p.nbuckets, k.i1, k.fp));
  }
}

static int ckst_drain_pending(ckstore *p);

/* Nothing pending is the common case of every operation. */
int ckst_drain(ckstore *p) {
  return p->nPend ? ckst_drain_pending(p) : SQLITE_OK;
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
  uint32_t i = *pi, n = p->nPend;
  unsigned nDiscard = p->nDiscard;
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
      rc = ckst_mark_dirty(p, ckst_cache_find(p, CKST_ID(iLast, b)));
      if (rc != SQLITE_OK) goto done;
    }
    iMarked = iLast;
    if (c > CKST_CHUNK) c = CKST_CHUNK;
    memset(aLvl, -1, c);
    for (k = iLast - 1; k >= 0; k--) {
      cf_contains_batch(&p->aLevel[k].img, p->aPendHash + i, c, aFound);
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
        nDone = m ? cf_insert_batch(&pL->img, p->aPendHash + i + j, m, 0) : 0;
        if (nDone > 0) {
          pL->nCount += nDone;
          pL->bCountDirty = 1;
          j += (uint32_t)nDone;
        }
        if (j == e) continue;
      }
      /* item j matches an older level, or stopped the run */
      p->iPendItem = (int)(i + j);
      rc = ckst_insert_hash(p, p->aPendHash[i + j]);
      p->iPendItem = -1;
      if (p->nDiscard != nDiscard) return rc == SQLITE_OK ? SQLITE_ABORT : rc;
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
  uint32_t i = 0, n = p->nPend;
  unsigned nDiscard = p->nDiscard;
  int rc = ckst_drain_batch(p, &i);
  if (p->nDiscard != nDiscard) return rc == SQLITE_OK ? SQLITE_ABORT : rc;
  if (rc != SQLITE_OK) {
    p->bDrainFailed = 1;
    n = 0; /* the items from i on stay pending */
  }
  for (; i < n; i++) {
    if (i + CKST_AHEAD < n) ckst_prefetch(p, p->aPendHash[i + CKST_AHEAD]);
    p->iPendItem = (int)i;
    rc = ckst_insert_hash(p, p->aPendHash[i]);
    if (p->nDiscard != nDiscard) {
      /* a statement the store ran failed and rolled the transaction back
      ** (xRollback): the pending items went with it */
      p->iPendItem = -1;
      return rc == SQLITE_OK ? SQLITE_ABORT : rc;
    }
    if (rc != SQLITE_OK) {
      p->bDrainFailed = 1;
      break;
    }
  }
  p->iPendItem = -1;
  n = p->nPend;
  if (i == n) p->bDrainFailed = 0;
  if (i > 0 && i < n) {
    memmove(p->aPendHash, p->aPendHash + i, sizeof(uint64_t) * (n - i));
    memmove(p->aPend, p->aPend + i, sizeof(ckst_pend) * (n - i));
  }
  p->nPend = n - i;
  return rc;
}

int ckst_insert_later_int(ckstore *p, sqlite3_int64 v, sqlite3_value *pItem,
                          uint64_t *pHash) {
  uint64_t hash;
  if (!p->bLoaded) return -1;
  *pHash = hash = ckst_hash_int(p, v);
  if (p->nPend < p->nPendAlloc) {
    ckst_pend *e = &p->aPend[p->nPend];
    p->aPendHash[p->nPend++] = hash;
    e->eType = SQLITE_INTEGER;
    e->v.i = v;
    return SQLITE_OK;
  }
  return ckst_insert_later(p, hash, pItem);
}

int ckst_insert_later(ckstore *p, uint64_t hash, sqlite3_value *pItem) {
  int eType = sqlite3_value_type(pItem);
  ckst_pend *e;
  if (eType != SQLITE_INTEGER && eType != SQLITE_FLOAT) {
    return ckst_insert(p, hash, pItem); /* kept short: placed now */
  }
  if (p->nPend == p->nPendAlloc) {
    uint32_t nNew = p->nPendAlloc ? 2 * p->nPendAlloc : 256;
    ckst_pend *aNew = 0;
    if (p->nPendAlloc < CKST_PEND_MAX) {
      uint64_t *aNewHash;
      if (nNew > CKST_PEND_MAX) nNew = CKST_PEND_MAX;
      aNewHash =
          sqlite3_realloc64(p->aPendHash, sizeof(uint64_t) * (uint64_t)nNew);
      if (aNewHash) {
        p->aPendHash = aNewHash; /* (the arrays' size is nPendAlloc) */
        aNew = sqlite3_realloc64(p->aPend, sizeof(ckst_pend) * (uint64_t)nNew);
      }
    }
    if (aNew == 0) {
      /* at the bound (or out of memory): place what is pending, then this */
      return ckst_insert(p, hash, pItem);
    }
    p->aPend = aNew;
    p->nPendAlloc = nNew;
  }
  p->aPendHash[p->nPend] = hash;
  e = &p->aPend[p->nPend++];
  e->eType = eType;
  if (eType == SQLITE_INTEGER) {
    e->v.i = sqlite3_value_int64(pItem);
  } else {
    e->v.r = sqlite3_value_double(pItem);
  }
  return SQLITE_OK;
}

static int ckst_pin_find(const ckstore *p, uint64_t h);

/* Remove one copy from the one level where the item matches (rule 3), or
** from the level a scan pinned the hash to. */
int ckst_remove(ckstore *p, uint64_t hash, int *pRemoved) {
  const ckst_level *pL;
  cf_key k;
  int i, iFound = -1, rc;
  *pRemoved = 0;
  rc = ckst_drain(p);
  if (rc != SQLITE_OK) return rc;
  /* A hash a scan pinned to a level (ckst_scan_hash) names a fingerprint
  ** on that level.  Otherwise the one level that matches (rule 3): an
  ** item matching on several levels is left alone, since one of those
  ** matches is another item's copy and removing it would make that item a
  ** false negative. */
  iFound = ckst_pin_find(p, hash);
  if (iFound >= 0 && iFound < p->nLevel) goto found;
  iFound = -1;
  for (i = p->nLevel - 1; i >= 0; i--) {
    int m = ckst_match(p, i, hash);
    if (m < 0) return ckst_store_rc(p);
    if (m == 0) continue;
    if (iFound >= 0) return SQLITE_OK;
    iFound = i;
  }
  if (iFound < 0) return SQLITE_OK;
found:
  pL = &p->aLevel[iFound];
  k = ckst_key(pL, hash);
  rc = ckst_del(p, iFound, k.i1, k.fp);
  if (rc == 0) {
    uint32_t i2 = cf_alt(pL->p.nbuckets, k.i1, k.fp);
    if (i2 != k.i1) rc = ckst_del(p, iFound, i2, k.fp);
  }
  if (rc < 0) return ckst_store_rc(p);
  if (rc == 0) return SQLITE_OK;
  if (p->aLevel[iFound].nCount == 0) {
    return ckst_corrupt(p, "level %d holds an item but its count is 0", iFound);
  }
  p->aLevel[iFound].nCount--;
  p->aLevel[iFound].bCountDirty = 1;
  *pRemoved = 1;
  return SQLITE_OK;
}

/* ---------------------------------------------------------------------
** Flush, discard, refresh
*/

static int ckst_cmp_u64(const void *a, const void *b) {
  uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
  return x < y ? -1 : x > y;
}

/* Write every dirty block into its pre-sized row (in id order). */
static int ckst_flush_blocks(ckstore *p) {
  sqlite3_blob *pBlob = 0;
  char *zTab;
  uint32_t i;
  int rc = SQLITE_OK, rc2;
  if (p->nDirty == 0) return SQLITE_OK;
  zTab = sqlite3_mprintf("%s_" CKST_BLOCKS, p->zName);
  if (zTab == 0) return SQLITE_NOMEM;
  qsort(p->aDirty, p->nDirty, sizeof(uint64_t), ckst_cmp_u64);
  for (i = 0; rc == SQLITE_OK && i < p->nDirty; i++) {
    uint64_t id = p->aDirty[i];
    ckst_block *b = ckst_cache_find(p, id);
    if (b == 0 || !b->bDirty) continue;
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

/* Write dirty blocks, changed counts and (once per transaction) a new
** cookie to the shadow tables. */
int ckst_flush(ckstore *p) {
  sqlite3_stmt *pStmt = 0;
  int i, rc;
  if (p->bLostPending) {
    /* A savepoint rollback inside the failed statement discarded its
    ** pending inserts: only the whole transaction can be rolled back. */
    return ckst_error(p, SQLITE_ERROR,
                      "inserts of a failed statement were discarded by a "
                      "nested statement's rollback; the transaction must be "
                      "rolled back");
  }
  if (!p->bLoaded) return SQLITE_OK;
  rc = ckst_drain(p);
  if (rc == SQLITE_OK) rc = ckst_flush_blocks(p);
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
    }
  }
  if (rc == SQLITE_OK) p->bChanged = 0;
  return rc;
}

/* Forget the cache and the configuration (the next use reloads). */
void ckst_discard(ckstore *p) {
  ckst_cache_clear(p);
  p->nDiscard++;
  if (p->nPend > 0 && p->bDrainFailed) p->bLostPending = 1;
  p->nPend = 0;
  p->bDrainFailed = 0;
  p->bPagerVersion = 0;
  p->bLoaded = 0;
  p->bChanged = 0;
  p->bCookieBumped = 0;
  p->nLevel = 0;
}

/* The transaction committed: the next change bumps the cookie again. */
void ckst_rollback(ckstore *p) {
  ckst_discard(p);
  p->bLostPending = 0;
}

void ckst_commit(ckstore *p) { p->bCookieBumped = 0; }

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

static int ckst_refresh(ckstore *p) {
  unsigned int v = 0;
  int rc, bPager;
  if (p->nDirty || p->bChanged || p->nPend) {
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

/* Load if needed (a failed load leaves nothing loaded); else refresh. */
int ckst_ready(ckstore *p, int bRefresh) {
  if (!p->bLoaded) {
    int rc = ckst_load(p);
    if (rc != SQLITE_OK) ckst_discard(p);
    return rc;
  }
  if (bRefresh) {
    int rc = ckst_drain(p);
    return rc == SQLITE_OK ? ckst_refresh(p) : rc;
  }
  return SQLITE_OK;
}

/* ---------------------------------------------------------------------
** Rename, drop, free
*/

/* Run zFmt once per shadow table; it gets the schema, the table name, the
** suffix, zNew and the suffix again (ALTER ... RENAME TO needs them all,
** DROP the first three).  Statements are finalized first. */
static int ckst_each_shadow(ckstore *p, const char *zFmt, const char *zNew) {
  int i, rc = SQLITE_OK;
  ckst_finalize(p);
  for (i = 0; rc == SQLITE_OK && i < CKST_NSHADOW; i++) {
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

/* Release everything the store owns, p included (NULL is a no-op). */
void ckst_free(ckstore *p) {
  if (p == 0) return;
  ckst_finalize(p);
  ckst_cache_clear(p);
  sqlite3_free(p->aSlot);
  sqlite3_free(p->aDirty);
  sqlite3_free(p->aPend);
  sqlite3_free(p->aPendHash);
  sqlite3_free(p->aPin);
  sqlite3_free(p->zDb);
  sqlite3_free(p->zName);
  sqlite3_free(p->zLabel);
  sqlite3_free(p->zErr);
  sqlite3_free(p);
}

/* ---------------------------------------------------------------------
** Export and import
*/

/* Copy block j of level iLevel into a[] (nBytes): the cached copy if
** there is one (it may hold changes not yet flushed), else the row. */
static int ckst_copy_block(ckstore *p, int iLevel, uint64_t j, uint8_t *a) {
  ckst_block *b = ckst_cache_find(p, CKST_ID(iLevel, j));
  if (b) {
    memcpy(a, b->a, b->nBytes);
    return SQLITE_OK;
  }
  return ckst_read_block(p, iLevel, j, a, p->aLevel[iLevel].nBytes);
}

/* True if a[] has only zero bits from bit iBit on (n bytes in all). */
static int ckst_zero_from(const uint8_t *a, uint64_t n, uint64_t iBit) {
  uint64_t i = iBit / 8;
  if (i >= n) return 1;
  if (iBit % 8 && (a[i] >> (iBit % 8)) != 0) return 0;
  for (i += (iBit % 8) != 0; i < n; i++) {
    if (a[i]) return 0;
  }
  return 1;
}

/* Buckets of level pL that live in block j. */
static uint64_t ckst_buckets_in(const ckst_level *pL, uint64_t j) {
  uint64_t first = j * pL->nPer;
  return pL->p.nbuckets - first < pL->nPer ? pL->p.nbuckets - first : pL->nPer;
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
  cf_put_u64(aOut + 24, pL->nCount);
  for (j = 0; rc == SQLITE_OK && j < pL->nBlock; j++) {
    uint64_t off = j * pL->nBytes;
    uint64_t n = nTable - off < pL->nBytes ? nTable - off : pL->nBytes;
    rc = ckst_copy_block(p, iLevel, j, aBuf);
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
  if (f.p.seed != p->seed) {
    return ckst_error(p, SQLITE_ERROR,
                      "the imported filter has seed %llu but the table "
                      "has seed %llu; create the table with seed=%llu",
                      (unsigned long long)f.p.seed, (unsigned long long)p->seed,
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
    rc = ckst_exec(p,
                   "DELETE FROM " CKST_TABLE(
                       CKST_BLOCKS) ";"
                                    "DELETE FROM " CKST_TABLE(CKST_LEVELS) ";");
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

/* ---------------------------------------------------------------------
** Integrity check
*/

#define CKST_MAX_PROBLEMS 100

typedef struct ckst_report {
  sqlite3_str *pStr;
  int nProblem;
} ckst_report;

/* Add one problem line to the report (the first CKST_MAX_PROBLEMS are
** kept; the rest only counted). */
static void ckst_problem(ckst_report *r, const char *zFmt, ...) {
  va_list ap;
  r->nProblem++;
  if (r->nProblem > CKST_MAX_PROBLEMS) return;
  if (r->nProblem > 1) sqlite3_str_append(r->pStr, "\n", 1);
  va_start(ap, zFmt);
  sqlite3_str_vappendf(r->pStr, zFmt, ap);
  va_end(ap);
}

/* Non-empty slots of one block's buckets. */
static uint64_t ckst_block_slots(const ckst_level *pL, const uint8_t *a,
                                 uint64_t nBuckets) {
  uint32_t fps[CF_MAX_BUCKET_SIZE];
  uint64_t i, n = 0;
  unsigned s;
  for (i = 0; i < nBuckets; i++) {
    cf_region_get(&pL->p, a, pL->nBytes, i, fps);
    for (s = 0; s < pL->p.bucket_size; s++)
      n += fps[s] != 0;
  }
  return n;
}

/* Report blocks from .. to-1 of level iLevel as missing. */
static void ckst_missing(ckst_report *r, ckstore *p, int iLevel, uint64_t from,
                         uint64_t to) {
  if (to - from == 1) {
    ckst_problem(r,
                 "%s: block %d.%llu (id %lld of %s_" CKST_BLOCKS ") is missing",
                 p->zLabel, iLevel, (unsigned long long)from,
                 (sqlite3_int64)CKST_ID(iLevel, from), p->zName);
  } else {
    ckst_problem(r, "%s: blocks %d.%llu to %d.%llu are missing", p->zLabel,
                 iLevel, (unsigned long long)from, iLevel,
                 (unsigned long long)(to - 1));
  }
}

/* Check every block row; bLevels: the configuration loaded. */
static int ckst_check_blocks(ckstore *p, ckst_report *r) {
  uint64_t aNext[CKST_MAX_LEVELS], aSlots[CKST_MAX_LEVELS];
  sqlite3_stmt *pStmt = 0;
  int i, rc;

  memset(aNext, 0, sizeof(aNext));
  memset(aSlots, 0, sizeof(aSlots));
  rc = ckst_prepare_shadow(
      p, "SELECT id, data FROM " CKST_TABLE(CKST_BLOCKS) " ORDER BY id",
      CKST_BLOCKS, &pStmt);
  if (rc == SQLITE_CORRUPT_VTAB) {
    ckst_problem(r, "%s", p->zErr);
    sqlite3_free(ckst_take_error(p));
    return SQLITE_OK;
  }
  if (rc != SQLITE_OK) return rc;
  while ((rc = sqlite3_step(pStmt)) == SQLITE_ROW) {
    sqlite3_int64 id = sqlite3_column_int64(pStmt, 0);
    int iLevel = (int)(id >> 32);
    uint64_t j = (uint64_t)id & 0xffffffff;
    const ckst_level *pL;
    const uint8_t *a;
    ckst_block *b;
    int eType, n;
    if (id < 0 || iLevel >= p->nLevel) {
      ckst_problem(r,
                   "%s: row id %lld of %s_" CKST_BLOCKS " belongs to no level",
                   p->zLabel, id, p->zName);
      continue;
    }
    pL = &p->aLevel[iLevel];
    if (j >= pL->nBlock) {
      ckst_problem(r,
                   "%s: row id %lld of %s_" CKST_BLOCKS
                   " is past the last block "
                   "of level %d",
                   p->zLabel, id, p->zName, iLevel);
      continue;
    }
    if (j > aNext[iLevel]) ckst_missing(r, p, iLevel, aNext[iLevel], j);
    aNext[iLevel] = j + 1;
    eType = sqlite3_column_type(pStmt, 1);
    a = (const uint8_t *)sqlite3_column_blob(pStmt, 1);
    n = sqlite3_column_bytes(pStmt, 1);
    if (eType != SQLITE_BLOB) {
      ckst_problem(r, "%s: block %d.%llu is %s, not a BLOB", p->zLabel, iLevel,
                   (unsigned long long)j, ckst_type_name(eType));
      continue;
    }
    if ((uint32_t)n != pL->nBytes) {
      ckst_problem(r, "%s: block %d.%llu has %d bytes, expected %u", p->zLabel,
                   iLevel, (unsigned long long)j, n, pL->nBytes);
      continue;
    }
    if (a == 0) {
      rc = SQLITE_NOMEM;
      break;
    }
    /* Unflushed changes of this connection count; clean cached copies
    ** do not (the row is what is checked). */
    b = ckst_cache_find(p, (uint64_t)id);
    if (b && b->bDirty) a = b->a;
    if (!ckst_zero_from(a, pL->nBytes,
                        ckst_buckets_in(pL, j) * cf_bucket_bits(&pL->p))) {
      ckst_problem(r,
                   "%s: block %d.%llu has bits set past the level's last "
                   "bucket",
                   p->zLabel, iLevel, (unsigned long long)j);
    }
    aSlots[iLevel] += ckst_block_slots(pL, a, ckst_buckets_in(pL, j));
  }
  if (rc == SQLITE_DONE) {
    rc = SQLITE_OK;
  } else if (rc != SQLITE_NOMEM) {
    ckst_problem(r, "%s: cannot read %s_" CKST_BLOCKS ": %s", p->zLabel,
                 p->zName, sqlite3_errmsg(p->db));
    rc = SQLITE_OK;
  }
  sqlite3_finalize(pStmt);
  for (i = 0; rc == SQLITE_OK && i < p->nLevel; i++) {
    const ckst_level *pL = &p->aLevel[i];
    if (aNext[i] < pL->nBlock) ckst_missing(r, p, i, aNext[i], pL->nBlock);
    if (aSlots[i] != pL->nCount) {
      ckst_problem(r,
                   "%s: level %d has an item count of %llu but %llu "
                   "slots in use",
                   p->zLabel, i, (unsigned long long)pL->nCount,
                   (unsigned long long)aSlots[i]);
    }
  }
  return rc;
}

/* cuckoo_check(): reload from the rows (unless this connection has
** unflushed changes) and check every block; problems are the report,
** not an error. */
int ckst_check(ckstore *p, char **pzReport) {
  ckst_report r;
  int rc;
  *pzReport = 0;
  r.pStr = sqlite3_str_new(p->db);
  r.nProblem = 0;
  /* Validate the rows as they are now, not as first loaded (unless this
  ** connection has changes not yet written to them). */
  if (p->nDirty == 0 && !p->bChanged && p->nPend == 0) ckst_discard(p);
  rc = ckst_ready(p, 1);
  if (rc == SQLITE_OK) {
    rc = ckst_check_blocks(p, &r);
  } else if (rc != SQLITE_NOMEM && p->zErr) {
    ckst_problem(&r, "%s", p->zErr);
    sqlite3_free(ckst_take_error(p));
    rc = SQLITE_OK;
  }
  if (r.nProblem > CKST_MAX_PROBLEMS) {
    sqlite3_str_appendf(r.pStr, "\n... and %d more problems",
                        r.nProblem - CKST_MAX_PROBLEMS);
  }
  if (r.nProblem == 0) sqlite3_str_appendall(r.pStr, "ok");
  if (rc == SQLITE_OK) rc = sqlite3_str_errcode(r.pStr);
  *pzReport = sqlite3_str_finish(r.pStr);
  if (rc != SQLITE_OK) {
    sqlite3_free(*pzReport);
    *pzReport = 0;
  }
  return rc;
}

/* ---------------------------------------------------------------------
** Description
*/

static double ckst_level_fpr(const ckst_level *pL) {
  double slots = (double)pL->p.nbuckets * pL->p.bucket_size;
  double per = 1.0 / (ldexp(1.0, (int)pL->p.fp_bits) - 1.0);
  return 1.0 -
         pow(1.0 - per * (double)pL->nCount / slots, 2.0 * pL->p.bucket_size);
}

/* cuckoo_table_info(): the configuration, totals and one object per
** level, as JSON. */
int ckst_info(ckstore *p, char **pzJson) {
  sqlite3_str *s = sqlite3_str_new(p->db);
  uint64_t nCount = 0, nCap = 0, nBlock = 0, nBytes = 0;
  double fpr = 0.0;
  int i, rc;
  for (i = 0; i < p->nLevel; i++) {
    const ckst_level *pL = &p->aLevel[i];
    nCount += pL->nCount;
    nCap += pL->p.capacity;
    nBlock += pL->nBlock;
    nBytes += pL->nBlock * pL->nBytes;
    fpr += ckst_level_fpr(pL);
  }
  sqlite3_str_appendf(
      s,
      "{\"version\":%d,\"variant\":\"%s\",\"count\":%llu,\"capacity\":%llu,"
      "\"error_rate\":%!.6g,\"growth\":%s,\"bucket_size\":%u,\"seed\":%llu,"
      "\"levels\":%d,\"blocks\":%llu,\"bytes\":%llu,\"expected_fpr\":%!.6g,"
      "\"block_size\":%d,\"cache_size\":%lld,\"cached_blocks\":%u,"
      "\"blocks_read\":%lld,\"level\":[",
      CKST_FORMAT_VERSION, p->flags ? "semisort" : "plain",
      (unsigned long long)nCount, (unsigned long long)nCap, p->errorRate,
      p->growth ? "true" : "false", p->bucketSize, (unsigned long long)p->seed,
      p->nLevel, (unsigned long long)nBlock, (unsigned long long)nBytes, fpr,
      p->blockSize, p->cacheKib, p->nEntry, p->nBlockRead);
  for (i = 0; i < p->nLevel; i++) {
    const ckst_level *pL = &p->aLevel[i];
    sqlite3_str_appendf(
        s,
        "%s{\"capacity\":%llu,\"count\":%llu,\"buckets\":%llu,"
        "\"bucket_size\":%u,\"fingerprint_bits\":%u,\"variant\":\"%s\","
        "\"blocks\":%llu,\"block_bytes\":%u,\"expected_fpr\":%!.6g}",
        i ? "," : "", (unsigned long long)pL->p.capacity,
        (unsigned long long)pL->nCount, (unsigned long long)pL->p.nbuckets,
        pL->p.bucket_size, pL->p.fp_bits,
        (pL->p.flags & CF_FLAG_SEMISORT) ? "semisort" : "plain",
        (unsigned long long)pL->nBlock, pL->nBytes, ckst_level_fpr(pL));
  }
  sqlite3_str_append(s, "]}", 2);
  rc = sqlite3_str_errcode(s);
  *pzJson = sqlite3_str_finish(s);
  if (rc != SQLITE_OK) {
    sqlite3_free(*pzJson);
    *pzJson = 0;
  }
  return rc;
}

/* ---------------------------------------------------------------------
** Browsing, per-item counts and emptying (the rows of a full scan are the
** stored fingerprints; see cuckoo_vtab.c)
*/

sqlite3_int64 ckst_total(const ckstore *p) {
  uint64_t n = 0;
  int i;
  for (i = 0; i < p->nLevel; i++)
    n += p->aLevel[i].nCount;
  return (sqlite3_int64)n;
}

/* Read bucket iBucket of level iLevel (decoded) through the cache. */
static int ckst_get_bucket(ckstore *p, int iLevel, uint64_t iBucket,
                           uint32_t *fps) {
  ckst_access x;
  cf_store st;
  ckst_access_init(p, iLevel, &x, &st);
  if (ckst_read_cb(&x, (uint32_t)iBucket, fps)) return ckst_store_rc(p);
  return SQLITE_OK;
}

void ckst_scan_start(ckst_scan *s) { memset(s, 0, sizeof(*s)); }

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
  uint32_t aFp[CF_MAX_BUCKET_SIZE], i2 = cf_alt_bucket(pL->p.nbuckets, i, fp);
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
    cf_key k = cf_key_from(&p->aLevel[i].p, hash);
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
    cf_key key = cf_key_from(&pL->p, hash);
    uint32_t aB[2];
    aB[0] = key.i1;
    aB[1] = cf_alt_bucket(pL->p.nbuckets, key.i1, key.fp);
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
static int ckst_pin_find(const ckstore *p, uint64_t h) {
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

int ckst_delete_all(ckstore *p) {
  cf_params params;
  char *zErr = 0;
  int rc = ckst_drain(p);
  if (rc != SQLITE_OK) return rc;
  /* Level 0's geometry first: a configuration that makes none (only a
  ** crafted one can) changes nothing. */
  rc = ckst_level_params(p, p->capacity, ckst_level_rate(p, 0), &params, &zErr);
  if (rc != SQLITE_OK) {
    if (zErr == 0) return SQLITE_NOMEM;
    rc = ckst_error(p, SQLITE_ERROR,
                    "cannot be emptied: its configuration makes no level 0 "
                    "(%s); nothing was changed; DROP TABLE it instead",
                    zErr);
    sqlite3_free(zErr);
    return rc;
  }
  ckst_cache_clear(p);
  rc =
      ckst_exec(p, "DELETE FROM " CKST_TABLE(
                       CKST_BLOCKS) ";"
                                    "DELETE FROM " CKST_TABLE(CKST_LEVELS) ";");
  if (rc != SQLITE_OK) return rc;
  p->nLevel = 0;
  p->bChanged = 1;
  return ckst_append_level(p, &params, 0, 0, 0);
}
