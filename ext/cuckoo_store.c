/*
** Copyright (c) 2026 the cuckoo authors.  MIT License: see LICENSE.
**
** cuckoo_store.c: the block store behind the cuckoo virtual table (see
** cuckoo_store.h for the shadow-table schema and the rules it keeps, and
** cuckoo_store_int.h for the files the store is made of).
**
** This file: the module arguments; the store's life cycle, names and
** messages; the item operations (rules 1-3: lookup, insert with growth,
** remove) over the cached blocks of each level; discard, ready, empty.
*/
#include "cuckoo_store_int.h"

#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

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
  int rc = SQLITE_OK, eInt = 0;
  sqlite3_int64 n = 0;
  double r;
  int v;

  /* integer options are read exactly (not through a double) */
  if (zVal) eInt = cksql_parse_int(zVal, &n);
  if (zKey == 0 || (zEq && zVal == 0)) {
    rc = SQLITE_NOMEM;
  } else if (sqlite3_stricmp(zKey, "capacity") == 0) {
    if (eInt == 2 && zVal[0] != '-') {
      *pzErr = sqlite3_mprintf("%s: capacity must be an integer from 1 to "
                               "%lld (got %s)",
                               zLabel, INT64_MAX, zVal);
      rc = SQLITE_ERROR;
    } else if (eInt != 1 || n < 1) {
      *pzErr = sqlite3_mprintf("%s: capacity must be a positive integer "
                               "(got %s)",
                               zLabel, zVal ? zVal : "nothing");
      rc = SQLITE_ERROR;
    } else {
      pOpt->capacity = n;
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
    if (eInt != 1 || n < CKST_MIN_BLOCK || n > CKST_MAX_BLOCK) {
      *pzErr = sqlite3_mprintf("%s: block_size must be an integer from %d "
                               "to %d bytes (got %s)",
                               zLabel, CKST_MIN_BLOCK, CKST_MAX_BLOCK,
                               zVal ? zVal : "nothing");
      rc = SQLITE_ERROR;
    } else {
      pOpt->block_size = (int)n;
    }
  } else if (sqlite3_stricmp(zKey, "cache_size") == 0) {
    if (eInt != 1 || n < 1 || n > CKST_MAX_CACHE_KIB) {
      *pzErr =
          sqlite3_mprintf("%s: cache_size must be an integer number of "
                          "KiB from 1 to %lld (got %s)",
                          zLabel, CKST_MAX_CACHE_KIB, zVal ? zVal : "nothing");
      rc = SQLITE_ERROR;
    } else {
      pOpt->cache_kib = n;
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
int ckst_error(ckstore *p, int rc, const char *zFmt, ...) {
  va_list ap;
  va_start(ap, zFmt);
  rc = ckst_vmessage(p, rc, ": ", "", zFmt, ap);
  va_end(ap);
  return rc;
}

/* A refused insert, in the SQL layer's one wording (cksql_full_message):
** "LABEL: filter is full (N items stored, capacity C): item X did not fit;
** <zFmt...>".  N is what the table held when the failing statement began
** (ckst_mark_statement; the failed statement is undone), not the items
** the statement added before this one.  C is the capacity of all levels.
** Returns SQLITE_ERROR (or SQLITE_NOMEM). */
int ckst_full(ckstore *p, const char *zFmt, ...) {
  va_list ap;
  uint64_t nStored = 0, nCapacity = 0;
  char *zRest, *zItem = 0, *zWhat;
  int i;
  for (i = 0; i < p->nLevel; i++) {
    nStored += p->aLevel[i].nCountSaved;
    nCapacity += p->aLevel[i].p.capacity;
  }
  if (p->bMarked) nStored = p->nMarkStored;
  va_start(ap, zFmt);
  zRest = sqlite3_vmprintf(zFmt, ap);
  va_end(ap);
  if (p->pName) zItem = p->pName->xName(p->pName->pArg);
  zWhat = p->pName ? (zItem ? sqlite3_mprintf("item %s", zItem) : 0)
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
int ckst_corrupt(ckstore *p, const char *zFmt, ...) {
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
int ckst_corrupt_block(ckstore *p, int iLevel, uint64_t j, const char *zFmt,
                       ...) {
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
const char *ckst_type_name(int eType) {
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
int ckst_sqlerr(ckstore *p, int rc) {
  if (rc == SQLITE_NOMEM) return rc;
  return ckst_error(p, rc, "%s", sqlite3_errmsg(p->db));
}

/* The message passes to the caller, who frees it. */
char *ckst_take_error(ckstore *p) {
  char *z = p->zErr;
  p->zErr = 0;
  return z;
}

/* Accessors for the virtual table: nothing is copied; the strings stay
** the store's (valid until ckst_rename() or ckst_free()). */
const char *ckst_schema(const ckstore *p) { return p->zDb; }
const char *ckst_name(const ckstore *p) { return p->zName; }
const char *ckst_label(const ckstore *p) { return p->zLabel; }
const cksql_hasher *ckst_hasher(const ckstore *p) { return &p->hasher; }
int ckst_levels(const ckstore *p) { return p->nLevel; }

/* Replace the table name and the label (copies; p owns them).  On
** SQLITE_NOMEM the old names stay. */
int ckst_set_names(ckstore *p, const char *zName) {
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
  p->defer.iItem = -1;
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
  int rc;
  assert(bucket < x->pL->p.nbuckets);
  rc = ckst_block_get(x->p, x->iLevel, j, &b);
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
  int rc;
  assert(bucket < x->pL->p.nbuckets);
  rc = ckst_block_get(x->p, x->iLevel, j, &b);
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
int ckst_store_rc(ckstore *p) {
  int rc = p->rcStore ? p->rcStore : SQLITE_ERROR;
  p->rcStore = 0;
  if (rc != SQLITE_NOMEM && p->zErr == 0) {
    rc = ckst_error(p, rc, "I/O error in the block store");
  }
  return rc;
}

/* Read bucket iBucket of level iLevel (decoded) through the cache. */
int ckst_get_bucket(ckstore *p, int iLevel, uint64_t iBucket, uint32_t *fps) {
  ckst_access x;
  cf_store st;
  ckst_access_init(p, iLevel, &x, &st);
  if (ckst_read_cb(&x, (uint32_t)iBucket, fps)) return ckst_store_rc(p);
  return SQLITE_OK;
}

/*
** The common cases work on bucket words of cached blocks through the
** level's block view (cf_view_*): a lookup, an insert into a free slot of
** one of the two candidate buckets, a removal.  They take the slots and
** write the bytes the callback algorithms would (the core guarantees it),
** so only an insert that must displace fingerprints runs
** cf_store_insert() over the callbacks.
*/

/* Load the block of bucket `bucket` of level iLevel and point the level's
** view at it; *pj = the bucket's index in the block.  On error, the code
** is also left in p->rcStore (for ckst_store_rc()). */
static int ckst_bucket(ckstore *p, int iLevel, uint32_t bucket,
                       ckst_block **ppB, uint32_t *pj) {
  ckst_level *pL = &p->aLevel[iLevel];
  uint32_t j = bucket / pL->nPer;
  int rc;
  assert(bucket < pL->p.nbuckets);
  rc = ckst_block_get(p, iLevel, j, ppB);
  if (rc != SQLITE_OK) {
    p->rcStore = rc;
    return rc;
  }
  pL->view.table = (*ppB)->a;
  *pj = bucket - j * pL->nPer;
  return SQLITE_OK;
}

/* Does level iLevel hold a fingerprint matching hash?  (-1: error) */
int ckst_match(ckstore *p, int iLevel, uint64_t hash) {
  ckst_level *pL = &p->aLevel[iLevel];
  cf_key k;
  ckst_block *b;
  uint32_t i2, j;
  assert(p->bLoaded && iLevel >= 0 && iLevel < p->nLevel);
  if (pL->aImg) return cf_contains_hash(&pL->img, hash);
  k = ckst_key(pL, hash);
  if (ckst_bucket(p, iLevel, k.i1, &b, &j)) return -1;
  if (cf_view_has(&pL->view, j, k.fp)) return 1;
  i2 = cf_alt_in(&pL->p, k.i1, k.fp);
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
  assert(!ckst_defer_pending(p)); /* no read misses a pending item */
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

/* Copies of fp in bucket i of level iLevel, added to *pn, if its block is
** cached (1), else 0. */
static int ckst_count_cached(const ckstore *p, int iLevel, uint32_t i,
                             uint32_t fp, uint32_t *pn) {
  const ckst_level *pL = &p->aLevel[iLevel];
  uint32_t j = i / pL->nPer, x, fps[CF_MAX_BUCKET_SIZE];
  const ckst_block *b = ckst_cache_find(p, CKST_ID(iLevel, j));
  if (b == 0) return 0;
  cf_region_get(&pL->p, b->a, b->nBytes, i - j * pL->nPer, fps);
  for (x = 0; x < pL->p.bucket_size; x++)
    *pn += fps[x] == fp;
  return 1;
}

/* After an insert placed item k on level iLevel: the level's bound on the
** copies of one item (ckst_level.nCopyMax) takes the item's copies, read
** in its two buckets, which the insert has just brought into the cache
** (if one is not there any more, the bound becomes unknown). */
static void ckst_copies_note(ckstore *p, int iLevel, cf_key k, uint32_t i2) {
  ckst_level *pL = &p->aLevel[iLevel];
  uint32_t n = 0;
  if (pL->nCopyMax == CKST_COPIES_UNKNOWN) return;
  if (pL->aImg) {
    n = cf_copies(&pL->img, k);
  } else if (!ckst_count_cached(p, iLevel, k.i1, k.fp, &n) ||
             (i2 != k.i1 && !ckst_count_cached(p, iLevel, i2, k.fp, &n))) {
    n = CKST_COPIES_UNKNOWN;
  }
  if (n > pL->nCopyMax) pL->nCopyMax = n;
}

/*
** The insertion walk of an item whose two buckets are full, on a small
** level that has an image: the core's in-memory walk (bucket words, not
** decoded buckets through the callbacks), on a copy of the level's
** buckets, then copied back.  It takes the same slots and writes the same
** bytes as cf_store_insert() over the callbacks (the core guarantees it),
** at a fraction of the cost, which matters most for the walk that fails:
** CF_MAX_KICKS displacements, each undone, where a full level refuses an
** item (growth off, or a level that refuses one before its capacity).
** Such a walk changes nothing and writes nothing; one that succeeds marks
** dirty the blocks whose bytes it changed (all of them cached: the image
** holds every block of the level) before their new bytes are copied in,
** so that a failure to mark changes nothing either.  Levels of at most
** CKST_WALK_COPY bytes of buckets only, so that the copy and the
** comparison (a few KiB of memcpy and memcmp per walk) stay small; a
** larger level walks over the callbacks as before.
*/
#define CKST_WALK_COPY 4096

static int ckst_walk_copy(ckstore *p, int iLevel, cf_key k) {
  ckst_level *pL = &p->aLevel[iLevel];
  uint8_t aCopy[CF_HEADER_SIZE + CKST_WALK_COPY];
  cf_filter f = pL->img;
  uint64_t j;
  int rc;
  assert(pL->aImg && f.blob_size <= sizeof(aCopy));
  memcpy(aCopy, f.blob, f.blob_size);
  f.blob = aCopy;
  f.table = aCopy + CF_HEADER_SIZE;
  /* (the count only stops cf_insert() before the walk, where the callbacks
  ** walk: at as many items as slots, or a crafted count) */
  f.count = 0;
  rc = cf_insert(&f, k);
  if (rc != CF_OK) return rc; /* (CF_FULL, CF_TOO_MANY: nothing changed) */
  for (j = 0; j < pL->nBlock; j++) {
    uint64_t at = j * pL->nBytes;
    size_t n;
    if (at >= f.table_size) break;
    n = (size_t)(f.table_size - at < pL->nBytes ? f.table_size - at
                                                 : pL->nBytes);
    if (memcmp(f.table + at, pL->img.table + at, n) == 0) continue;
    rc = ckst_mark_dirty(p, ckst_cache_find(p, CKST_ID(iLevel, j)));
    if (rc != SQLITE_OK) {
      p->rcStore = rc;
      return CF_IOERR;
    }
  }
  memcpy(pL->img.table, f.table, f.table_size);
  return CF_OK;
}

/* An insert into a level whose count is its number of slots: every slot
** holds a fingerprint (a sound level counts its slots in use, which
** cuckoo_check() verifies), so the walk could only end where it began,
** undone, after its 500 displacements.  The answer it would give, at once:
** CF_TOO_MANY if both buckets hold fp in every slot (the walk's first
** test), else CF_FULL; CF_IOERR if a bucket cannot be read. */
static int ckst_refuse_full(ckstore *p, int iLevel, cf_key k, uint32_t i2) {
  const ckst_level *pL = &p->aLevel[iLevel];
  uint32_t a[CF_MAX_BUCKET_SIZE];
  unsigned s, same = 0;
  ckst_access x;
  cf_store st;
  ckst_access_init(p, iLevel, &x, &st);
  if (ckst_read_cb(&x, k.i1, a)) return CF_IOERR;
  for (s = 0; s < pL->p.bucket_size; s++)
    same += a[s] == k.fp;
  if (i2 != k.i1) {
    if (ckst_read_cb(&x, i2, a)) return CF_IOERR;
    for (s = 0; s < pL->p.bucket_size; s++)
      same += a[s] == k.fp;
  }
  return same == (i2 != k.i1 ? 2u : 1u) * pL->p.bucket_size ? CF_TOO_MANY
                                                             : CF_FULL;
}

/* Insert into one level and count it (and log it: format 3); returns a
** CF_* code (CF_FULL and CF_TOO_MANY change nothing). */
int ckst_insert_level(ckstore *p, int iLevel, uint64_t hash) {
  ckst_level *pL = &p->aLevel[iLevel];
  cf_key k = ckst_key(pL, hash);
  uint32_t i2 = cf_alt_in(&pL->p, k.i1, k.fp);
  int rc;
  assert(k.fp != 0 && k.i1 < pL->p.nbuckets && i2 < pL->p.nbuckets);
  if ((rc = ckst_log_reserve(p, 1)) != SQLITE_OK) {
    p->rcStore = rc;
    return CF_IOERR;
  }
  rc = ckst_put_free(p, iLevel, k.i1, k.fp);
  if (rc == 0 && i2 != k.i1) rc = ckst_put_free(p, iLevel, i2, k.fp);
  if (rc < 0) return CF_IOERR;
  if (rc == 1) {
    rc = CF_OK;
  } else if (pL->nCount >= pL->p.nbuckets * pL->p.bucket_size) {
    rc = ckst_refuse_full(p, iLevel, k, i2);
  } else if (pL->aImg && pL->img.table_size <= CKST_WALK_COPY) {
    rc = ckst_walk_copy(p, iLevel, k);
  } else {
    /* both buckets full: the insertion walk over the callbacks (format 3:
    ** no merge in the middle of it, which would store half a walk that
    ** the log then replays whole) */
    ckst_access x;
    cf_store st;
    ckst_access_init(p, iLevel, &x, &st);
    p->log.bInOp = 1;
    rc = cf_store_insert(&pL->p, &st, k);
    p->log.bInOp = 0;
  }
  if (rc == CF_OK) {
    p->aLevel[iLevel].nCount++;
    p->aLevel[iLevel].bCountDirty = 1;
    ckst_log_add(p, 0, iLevel, hash);
    ckst_copies_note(p, iLevel, k, i2);
  }
  return rc;
}

/* Remove one copy of hash from level iLevel and count it (and log it):
** CF_OK, CF_FULL if the level holds no copy (nothing changed), CF_IOERR
** (p->rcStore), or CF_CORRUPT (message set) when the level holds a copy
** but its count is 0. */
int ckst_remove_level(ckstore *p, int iLevel, uint64_t hash) {
  ckst_level *pL = &p->aLevel[iLevel];
  cf_key k = ckst_key(pL, hash);
  int rc;
  if ((rc = ckst_log_reserve(p, 1)) != SQLITE_OK) {
    p->rcStore = rc;
    return CF_IOERR;
  }
  if (pL->nCount == 0) {
    /* nothing to remove, or a copy the count does not know of */
    int m = ckst_match(p, iLevel, hash);
    if (m < 0) return CF_IOERR;
    if (m == 0) return CF_FULL;
    ckst_corrupt(p, "level %d holds an item but its count is 0", iLevel);
    return CF_CORRUPT;
  }
  rc = ckst_del(p, iLevel, k.i1, k.fp);
  if (rc == 0) {
    uint32_t i2 = cf_alt_in(&pL->p, k.i1, k.fp);
    if (i2 != k.i1) rc = ckst_del(p, iLevel, i2, k.fp);
  }
  if (rc < 0) return CF_IOERR;
  if (rc == 0) return CF_FULL;
  pL->nCount--;
  pL->bCountDirty = 1;
  ckst_log_add(p, CKST_OP_REMOVE, iLevel, hash);
  return CF_OK;
}

/* SQLite tells a virtual table that a statement begins only when it
** opens a savepoint for it, but a statement that changed rows adds them
** to total_changes() when it ends.  So a change under another total than
** the last mark's is the first of a new statement, and what the table
** holds then (pending inserts count) is what that statement began with.
** The store's own writes to its shadow tables (growth, a full cache
** writing out) move the total too: they are taken out (uOwnChanges).  A
** discard forgets the mark. */
void ckst_mark_statement(ckstore *p) {
  unsigned u = (unsigned)sqlite3_total_changes(p->db) - p->uOwnChanges;
  uint64_t n = p->defer.n;
  int i;
  if (!p->bLoaded || (p->bMarked && u == p->uMark)) return;
  for (i = 0; i < p->nLevel; i++)
    n += p->aLevel[i].nCount;
  p->uMark = u;
  p->nMarkStored = n;
  p->bMarked = 1;
}

/* Insert one copy (rules 2 and 3), after the pending ones; on error
** nothing was changed.  pName (may be NULL) only names the item in a
** "full" message. */
int ckst_insert(ckstore *p, uint64_t hash, const ckst_namer *pName) {
  int rc;
  ckst_mark_statement(p);
  rc = ckst_drain(p);
  if (rc != SQLITE_OK) return rc;
  assert(!ckst_defer_pending(p));
  p->pName = pName;
  rc = ckst_insert_hash(p, hash);
  p->pName = 0;
  return rc;
}

/* ckst_insert() of a hash (p->pName names it in messages). */
int ckst_insert_hash(ckstore *p, uint64_t hash) {
  int rc, i, iLast = p->nLevel - 1;
  const ckst_level *pL;
  assert(p->bLoaded && p->nLevel >= 1 && p->nLevel <= CKST_MAX_LEVELS);
  /* An item that already matches on an older level gets its new copy
  ** there (rule 3), so that copies of one item stay on one level.  That
  ** level is a preference: when it has no room for the copy, "full" or
  ** "too many copies", the last level takes it.  Its buckets full of the
  ** item's fingerprint may hold other items' copies (rule 3 sends every
  ** item that falsely matches there), which it cannot tell from the
  ** item's own, so refusing would refuse items never inserted. */
  for (i = iLast - 1; i >= 0; i--) {
    int m = ckst_match(p, i, hash);
    if (m < 0) return ckst_store_rc(p);
    if (m == 0) continue;
    rc = ckst_insert_level(p, i, hash);
    if (rc == CF_FULL || rc == CF_TOO_MANY) break;
    iLast = i;
    goto done;
  }
  pL = &p->aLevel[iLast];
  if (p->growth && pL->nCount >= pL->p.capacity) {
    rc = ckst_grow(p);
    if (rc != SQLITE_OK) return rc;
    iLast++;
  }
  assert(iLast == p->nLevel - 1); /* rule 2: inserts go to the last level */
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
    p->zErr = cksql_too_many_message(p->zLabel, &pL->p, &hash);
    return p->zErr ? SQLITE_ERROR : SQLITE_NOMEM;
  default: return ckst_store_rc(p);
  }
}

/* Remove one copy from the one level where the item matches (rule 3), or
** from the level a scan pinned the hash to. */
int ckst_remove(ckstore *p, uint64_t hash, int *pRemoved) {
  int i, iFound = -1, rc;
  *pRemoved = 0;
  ckst_mark_statement(p);
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
  assert(iFound >= 0 && iFound < p->nLevel);
  rc = ckst_remove_level(p, iFound, hash);
  if (rc == CF_IOERR) return ckst_store_rc(p);
  if (rc == CF_CORRUPT) return SQLITE_CORRUPT_VTAB;
  *pRemoved = rc == CF_OK;
  return SQLITE_OK;
}

/* UPDATE: remove, insert, and on failure put the removed copy back (its
** freed slot takes it at once); the insert's message stands. */
int ckst_replace(ckstore *p, uint64_t hOld, uint64_t hNew,
                 const ckst_namer *pName) {
  int removed, rc = ckst_remove(p, hOld, &removed);
  if (rc == SQLITE_OK) rc = ckst_insert(p, hNew, pName);
  if (rc != SQLITE_OK && removed) {
    char *zErr = ckst_take_error(p);
    (void)ckst_insert(p, hOld, 0); /* its message, if any, is dropped */
    sqlite3_free(p->zErr);
    p->zErr = zErr;
  }
  return rc;
}

/* Forget the cache and the configuration (the next use reloads), and
** the pending inserts (bRollback: the whole transaction's rollback). */
static void ckst_forget(ckstore *p, int bRollback) {
  ckst_cache_clear(p);
  ckst_log_reset(p);
  ckst_defer_discard(p, bRollback);
  p->bPagerVersion = 0;
  p->bLoaded = 0;
  p->bChanged = 0;
  p->bCookieBumped = 0;
  if (bRollback) p->bCookieTxn = 0; /* (a ROLLBACK TO keeps it) */
  p->bMarked = 0;
  p->nLevel = 0;
  assert(p->nDirty == 0 && p->nEntry == 0 && !ckst_defer_pending(p));
}

void ckst_discard(ckstore *p) { ckst_forget(p, 0); }

/* The transaction ended: a savepoint's kept error (ckst_savepoint) ends
** with it. */
static void ckst_sticky_clear(ckstore *p) {
  p->rcSticky = SQLITE_OK;
  sqlite3_free(p->zSticky);
  p->zSticky = 0;
}

void ckst_rollback(ckstore *p) {
  ckst_sticky_clear(p);
  ckst_forget(p, 1);
}

/* The transaction committed: the next change bumps the cookie again. */
void ckst_commit(ckstore *p) {
  /* rule 4: xSync flushed every change before the commit (format 3:
  ** blocks stay dirty, their changes are in the log) */
  assert(!p->bLoaded || (p->version >= 3 ? !ckst_log_writing(p)
                                         : p->nDirty == 0));
  p->bCookieBumped = 0;
  p->bCookieTxn = 0;
  ckst_sticky_clear(p); /* xSync returned it: no commit with it set */
}

/* Load if needed (a failed load leaves nothing loaded); else refresh. */
int ckst_ready(ckstore *p, int bRefresh) {
  if (p->rcSticky) return ckst_sticky(p);
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

/* Release everything the store owns, p included (NULL is a no-op). */
void ckst_free(ckstore *p) {
  if (p == 0) return;
  ckst_finalize(p);
  ckst_cache_clear(p);
  sqlite3_free(p->aSlot);
  sqlite3_free(p->aDirty);
  ckst_defer_free(p);
  ckst_log_free(p);
  sqlite3_free(p->aPin);
  sqlite3_free(p->zDb);
  sqlite3_free(p->zName);
  sqlite3_free(p->zLabel);
  sqlite3_free(p->zErr);
  sqlite3_free(p->zSticky);
  sqlite3_free(p);
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
  rc = ckst_clear_levels(p);
  if (rc != SQLITE_OK) return rc;
  p->nLevel = 0;
  p->bChanged = 1;
  return ckst_append_level(p, &params, 0, 0, 0);
}
