/*
** Copyright (c) 2026 the cuckoo authors.  MIT License: see LICENSE.
**
** cuckoo_stored.c: probing a filter BLOB stored in a table, read in place.
**
**   cuckoo_contains_stored([schema,] table, column, rowid, item) -> 1 / 0
**
** The arguments name a value the way sqlite3_blob_open() does, in its
** order: the filter stored in `column` of row `rowid` of `table` (a rowid
** table) in `schema` ("main", "temp", an attached name; omitted or NULL:
** searched as an unqualified table name in SQL is).  The answer is
** cuckoo_contains(<that value>, item), but the value is never copied into
** an argument: the header is read once, then each probe reads its item's
** two buckets, with incremental BLOB I/O (docs/reference.md, "Probing a
** filter stored in a table", gives the costs).
**
** Rules:
**   1. NULL rowid or NULL item -> NULL; a NULL stored value -> NULL
**      (cuckoo_contains(NULL, item) is NULL too).  table and column must
**      be TEXT, schema TEXT or NULL, rowid an INTEGER (or a REAL holding
**      one); anything else is an error naming the argument.
**   2. Items are hashed by cksql_item_hash(), as cuckoo_contains hashes
**      them (docs/format.md#item-identity); the answer is the core's
**      lookup of the same two buckets, so it is cuckoo_contains' answer.
**   3. The header is validated by cf_open() (every field against the
**      stored length) before any bucket is read; a bucket read never
**      passes the stored length.  A row that does not exist, a table
**      without rowid, a view, a missing column and a stored value that is
**      not a filter are errors naming the table, column and row.
**   4. Cache: one per call site and statement, the auxdata of argument 0
**      (kept by SQLite across rows when that argument is a constant; the
**      other name arguments are compared each row unless they are
**      constants too).  It holds the open BLOB handle, the validated
**      header of the current row and a buffer of the BLOB's size.  Each
**      probe first reads just the header again and its two buckets (3
**      small reads, rule 5); once the
**      statement's probes have read about as much as the whole filter
**      would cost (CKSD_PROBE_BYTES per probe), the whole BLOB is read
**      into the buffer at once and the rest of the statement probes it in
**      memory.  A new rowid moves the handle (sqlite3_blob_reopen) and
**      starts again; the cache is freed, and the handle closed, when the
**      statement ends (SQLite frees auxdata at statement reset).
**   5. Never a mixed view.  A probe's two buckets are read together in
**      one call, or come from one whole read: every answer is the answer
**      of one state the row had during the statement.  Partial contents
**      are never kept across calls, because SQLite gives no signal when
**      ROLLBACK TO restores older content under an open read handle (its
**      read cursors are restored, not invalidated).  When the row is
**      written through this connection the handle reads SQLITE_ABORT: the
**      cache reopens the row and validates its header again.  After a
**      whole read the statement answers from that copy, as the scalar
**      subquery form answers from the value it read once.  Nothing is
**      cached across statements (no cheap, exact signal says the row is
**      unchanged: ROLLBACK TO changes no counter).
**   6. Not DETERMINISTIC (the answer depends on table contents, so it must
**      not be used in an index or a CHECK constraint) and not INNOCUOUS
**      (it reads any table it is given: with trusted_schema=OFF it is
**      refused in views and triggers).
*/
#include "cuckoo_sql.h"

#include <string.h>

#define CKSD_FUNC "cuckoo_contains_stored"

/*
** Bytes of the whole read one direct probe is worth: after 1 + size/2048
** direct probes a statement reads the whole BLOB.  Not tuned yet: the run
** of docs/benchmarks.md#probing-a-stored-filter (17.5 MB, 20,000 probes)
** puts a direct probe (three sqlite3_blob_read() calls of at most 256
** bytes) at about the cost of reading 8 KB of the whole BLOB, so 2048
** switches late, and the direct reads of a statement can cost a few times
** one whole read; every size still meets the 2x goal.
*/
#ifndef CKSD_PROBE_BYTES
#define CKSD_PROBE_BYTES 2048
#endif

/* Buckets of one direct read: a region of 8 buckets is 8 * bucket_bits
** bits, a whole number of bytes (bucket_bits of them, at most b * f =
** 8 * 32 = 256), the unit of a block view (cf_view_init()). */
#define CKSD_REGION_BUCKETS 8
#define CKSD_REGION_MAX (CF_MAX_BUCKET_SIZE * CF_MAX_FP_BITS)

/* A marker left as the auxdata of the name arguments other than argument
** 0: it survives only if they are constants. */
static char cksd_marker;

typedef struct cksd_cache {
  sqlite3 *db;
  char *zNames;    /* zDb, zTable, zColumn in one allocation */
  const char *zDb; /* NULL: search as SQL does */
  const char *zTable;
  const char *zColumn;
  int eNamesConst;     /* 0 unknown, 1 constants, -1 compare each row */
  sqlite3_blob *pBlob; /* open on iRow, or NULL */
  sqlite3_int64 iRow;
  int bValid;    /* f holds iRow's validated header */
  int bWhole;    /* aBuf holds the whole BLOB: probe f in memory */
  int nBlob;     /* bytes of the stored value */
  uint8_t *aBuf; /* nAlloc bytes (>= nBlob): the header, then all */
  int nAlloc;
  cf_filter f;       /* a view of aBuf */
  cf_filter view;    /* a block view of one 8-bucket region */
  uint64_t nProbe;   /* direct probes since the header was read */
  uint64_t nWholeAt; /* read the whole BLOB at this many probes */
} cksd_cache;

static void cksd_close(cksd_cache *c) {
  if (c->pBlob) sqlite3_blob_close(c->pBlob);
  c->pBlob = 0;
  c->bValid = 0;
  c->bWhole = 0;
}

static void cksd_free(void *p) {
  cksd_cache *c = (cksd_cache *)p;
  cksd_close(c);
  sqlite3_free(c->aBuf);
  sqlite3_free(c->zNames);
  sqlite3_free(c);
}

/* "schema.table.column" (or "table.column") for messages. */
static char *cksd_where(const cksd_cache *c) {
  return c->zDb ? sqlite3_mprintf("%s.%s.%s", c->zDb, c->zTable, c->zColumn)
                : sqlite3_mprintf("%s.%s", c->zTable, c->zColumn);
}

/* Report "cuckoo_contains_stored: <where> at rowid N <zWhat>" on ctx. */
static void cksd_error(sqlite3_context *ctx, const cksd_cache *c,
                       sqlite3_int64 iRow, const char *zWhat) {
  char *zWhere = cksd_where(c);
  cksql_result_error(ctx, SQLITE_ERROR,
                     zWhere ? sqlite3_mprintf("%s: %s at rowid %lld %s",
                                              CKSD_FUNC, zWhere, iRow, zWhat)
                            : 0);
  sqlite3_free(zWhere);
}

/* The names of argv (argc 4 or 5), checked: TEXT (schema: or NULL).
** Returns 1, or 0 after reporting the error. */
static int cksd_names(sqlite3_context *ctx, int argc, sqlite3_value **argv,
                      const char **pzDb, const char **pzTable,
                      const char **pzColumn) {
  static const char *azWhat[] = {"schema must be TEXT or NULL",
                                 "table must be TEXT (a table name)",
                                 "column must be TEXT (a column name)"};
  const char **apz[3];
  int i, o = argc == 5 ? 0 : 1;
  apz[0] = pzDb;
  apz[1] = pzTable;
  apz[2] = pzColumn;
  *pzDb = 0;
  for (i = o; i < 3; i++) {
    sqlite3_value *v = argv[i - o];
    if (i == 0 && sqlite3_value_type(v) == SQLITE_NULL) continue;
    if (sqlite3_value_type(v) != SQLITE_TEXT) {
      cksql_result_bad_arg(ctx, CKSD_FUNC, azWhat[i], v);
      return 0;
    }
    *apz[i] = (const char *)sqlite3_value_text(v);
    if (*apz[i] == 0) {
      cksql_result_error(ctx, SQLITE_NOMEM, 0);
      return 0;
    }
  }
  return 1;
}

static int cksd_same(const char *a, const char *b) {
  return a == b || (a && b && strcmp(a, b) == 0);
}

/* Point c at the names (a fresh cache, or names that changed).  Returns
** SQLITE_OK or SQLITE_NOMEM. */
static int cksd_set_names(cksd_cache *c, const char *zDb, const char *zTable,
                          const char *zColumn) {
  size_t nDb = zDb ? strlen(zDb) + 1 : 0;
  size_t nTable = strlen(zTable) + 1, nColumn = strlen(zColumn) + 1;
  char *z = sqlite3_malloc64(nDb + nTable + nColumn);
  if (z == 0) return SQLITE_NOMEM;
  cksd_close(c);
  sqlite3_free(c->zNames);
  c->zNames = z;
  if (zDb) memcpy(z, zDb, nDb);
  c->zDb = zDb ? z : 0;
  c->zTable = memcpy(z + nDb, zTable, nTable);
  c->zColumn = memcpy(z + nDb + nTable, zColumn, nColumn);
  return SQLITE_OK;
}

/*
** The type of the value stored at iRow, asked with a query (the BLOB
** handle's messages are not an interface): *peType is SQLITE_NULL,
** SQLITE_INTEGER, SQLITE_FLOAT, SQLITE_TEXT or SQLITE_BLOB, or 0 if the
** row does not exist.  Returns SQLITE_OK, or the query's error (the table
** cannot be read).  Only the paths of errors and NULL values ask.
*/
static int cksd_stored_type(cksd_cache *c, sqlite3_int64 iRow, int *peType) {
  static const char *azType[] = {"integer", "real", "text", "blob", "null"};
  sqlite3_stmt *pStmt = 0;
  char *zSql;
  int rc, i;
  *peType = 0;
  zSql = c->zDb ? sqlite3_mprintf("SELECT typeof(\"%w\") FROM \"%w\".\"%w\" "
                                  "WHERE rowid = ?1",
                                  c->zColumn, c->zDb, c->zTable)
                : sqlite3_mprintf("SELECT typeof(\"%w\") FROM \"%w\" "
                                  "WHERE rowid = ?1",
                                  c->zColumn, c->zTable);
  if (zSql == 0) return SQLITE_NOMEM;
  rc = sqlite3_prepare_v2(c->db, zSql, -1, &pStmt, 0);
  sqlite3_free(zSql);
  if (rc != SQLITE_OK) return rc;
  sqlite3_bind_int64(pStmt, 1, iRow);
  if (sqlite3_step(pStmt) == SQLITE_ROW) {
    const char *z = (const char *)sqlite3_column_text(pStmt, 0);
    for (i = 0; z && i < 5; i++) {
      if (strcmp(z, azType[i]) == 0) *peType = i + 1; /* SQLITE_INTEGER.. */
    }
  }
  return sqlite3_finalize(pStmt);
}

/* The name of a stored type, for messages. */
static const char *cksd_type_name(int eType) {
  return eType == SQLITE_INTEGER ? "INTEGER"
         : eType == SQLITE_FLOAT ? "REAL"
         : eType == SQLITE_TEXT  ? "TEXT"
                                 : "NULL";
}

/* Report that iRow's value is not a filter: what it is, or, for a BLOB,
** zWhy (cf_open()'s reason). */
static void cksd_not_filter(sqlite3_context *ctx, cksd_cache *c,
                            sqlite3_int64 iRow, int eType, const char *zWhy) {
  char *zMsg = eType == SQLITE_BLOB
                   ? sqlite3_mprintf("is not a valid cuckoo filter: %s", zWhy)
                   : sqlite3_mprintf("is not a cuckoo filter BLOB (got %s)",
                                     cksd_type_name(eType));
  if (zMsg == 0) {
    cksql_result_error(ctx, SQLITE_NOMEM, 0);
  } else {
    cksd_error(ctx, c, iRow, zMsg);
  }
  sqlite3_free(zMsg);
}

/*
** Why sqlite3_blob_open() failed on iRow (zOpenErr its message).  Returns
** SQLITE_DONE for a NULL value (the result is NULL), else reports an
** error on ctx and returns SQLITE_ERROR.
*/
static int cksd_open_failed(sqlite3_context *ctx, cksd_cache *c,
                            sqlite3_int64 iRow, const char *zOpenErr) {
  int eType, rc = cksd_stored_type(c, iRow, &eType);
  char *zMsg;
  if (rc == SQLITE_OK && eType == SQLITE_NULL) return SQLITE_DONE;
  if (rc == SQLITE_NOMEM) {
    cksql_result_error(ctx, SQLITE_NOMEM, 0);
    return SQLITE_ERROR;
  }
  if (rc == SQLITE_OK && eType != 0 && eType != SQLITE_BLOB &&
      eType != SQLITE_TEXT) {
    cksd_not_filter(ctx, c, iRow, eType, 0);
    return SQLITE_ERROR;
  }
  zMsg = sqlite3_mprintf("cannot be read: %s", zOpenErr);
  if (zMsg == 0) {
    cksql_result_error(ctx, SQLITE_NOMEM, 0);
  } else {
    cksd_error(ctx, c, iRow, zMsg);
  }
  sqlite3_free(zMsg);
  return SQLITE_ERROR;
}

/* Read n bytes at iOff of the handle into p.  SQLITE_ABORT (the row was
** written or deleted since the handle moved to it) closes the handle. */
static int cksd_read(cksd_cache *c, void *p, int n, int iOff) {
  int rc = sqlite3_blob_read(c->pBlob, p, n, iOff);
  if ((rc & 0xff) == SQLITE_ABORT) cksd_close(c);
  return rc;
}

/*
** Make c's handle point at iRow with its header validated (c->f a view of
** c->aBuf, of which only the header and the last byte are read).
** Returns SQLITE_OK, SQLITE_DONE for a NULL stored value, or an error
** already reported on ctx.
*/
static int cksd_load_header(sqlite3_context *ctx, cksd_cache *c,
                            sqlite3_int64 iRow) {
  const char *zWhy = 0;
  int rc, n;
  if (c->bValid && c->iRow == iRow) return SQLITE_OK;
  c->bValid = 0;
  c->bWhole = 0;
  if (c->pBlob) {
    rc = sqlite3_blob_reopen(c->pBlob, iRow);
    if (rc != SQLITE_OK) cksd_close(c); /* an aborted handle stays aborted */
  }
  if (c->pBlob == 0) {
    rc = sqlite3_blob_open(c->db, c->zDb, c->zTable, c->zColumn, iRow, 0,
                           &c->pBlob);
    if (rc != SQLITE_OK) {
      char *zErr = sqlite3_mprintf("%s", sqlite3_errmsg(c->db));
      if (c->pBlob) sqlite3_blob_close(c->pBlob);
      c->pBlob = 0;
      if (rc == SQLITE_NOMEM || zErr == 0) {
        sqlite3_free(zErr);
        cksql_result_error(ctx, SQLITE_NOMEM, 0);
        return SQLITE_NOMEM;
      }
      rc = cksd_open_failed(ctx, c, iRow, zErr);
      sqlite3_free(zErr);
      return rc;
    }
  }
  c->iRow = iRow;
  n = sqlite3_blob_bytes(c->pBlob);
  if (n > c->nAlloc || c->aBuf == 0) {
    sqlite3_free(c->aBuf);
    c->nAlloc = 0;
    c->aBuf = sqlite3_malloc64(n > 0 ? (sqlite3_uint64)n : 1);
    if (c->aBuf == 0) {
      cksql_result_error(ctx, SQLITE_NOMEM, 0);
      return SQLITE_NOMEM;
    }
    c->nAlloc = n;
  }
  c->nBlob = n;
  /* cf_open() reads the header and, for the padding check, the last byte */
  rc = cksd_read(c, c->aBuf, n < CF_HEADER_SIZE ? n : CF_HEADER_SIZE, 0);
  if (rc == SQLITE_OK && n > CF_HEADER_SIZE) {
    rc = cksd_read(c, c->aBuf + n - 1, 1, n - 1);
  }
  if (rc != SQLITE_OK) {
    cksql_result_error(ctx, rc,
                       sqlite3_mprintf("%s: reading the header: %s", CKSD_FUNC,
                                       sqlite3_errstr(rc)));
    return SQLITE_ERROR;
  }
  if (cf_open(&c->f, c->aBuf, (size_t)n, &zWhy) != CF_OK) {
    int eType = SQLITE_BLOB;
    if (cksd_stored_type(c, iRow, &eType) != SQLITE_OK || eType == 0) {
      eType = SQLITE_BLOB;
    }
    cksd_not_filter(ctx, c, iRow, eType, zWhy);
    return SQLITE_ERROR;
  }
  if (cf_view_init(&c->view, &c->f.p, CKSD_REGION_BUCKETS) != CF_OK) {
    cksd_error(ctx, c, iRow, "has a geometry this build cannot read");
    return SQLITE_ERROR;
  }
  c->bValid = 1;
  c->nProbe = 0;
  c->nWholeAt = 1 + (uint64_t)n / CKSD_PROBE_BYTES;
  return SQLITE_OK;
}

/* Read the whole BLOB into c->aBuf and validate it again (cf_open()).
** Returns SQLITE_OK or a read error.  SQLITE_ABORT, the handle closed,
** when the row changed since its header was read (the caller starts
** again from the current header). */
static int cksd_load_whole(cksd_cache *c) {
  int rc = cksd_read(c, c->aBuf, c->nBlob, 0);
  if (rc == SQLITE_OK &&
      cf_open(&c->f, c->aBuf, (size_t)c->nBlob, 0) != CF_OK) {
    rc = SQLITE_ABORT;
  }
  if (rc != SQLITE_OK) {
    cksd_close(c);
    return (rc & 0xff) == SQLITE_CORRUPT ? SQLITE_ABORT : rc;
  }
  c->bWhole = 1;
  return SQLITE_OK;
}

/* Whether bucket i holds fp, from one read of its 8-bucket region. */
static int cksd_bucket_has(cksd_cache *c, uint32_t i, uint32_t fp,
                           int *pFound) {
  uint8_t a[CKSD_REGION_MAX];
  size_t nRegion = c->f.bucket_bits; /* 8 buckets: bucket_bits bytes */
  uint64_t off = (uint64_t)(i / CKSD_REGION_BUCKETS) * nRegion;
  size_t n = nRegion;
  int rc;
  if (off + n > c->f.table_size) n = (size_t)(c->f.table_size - off);
  rc = cksd_read(c, a, (int)n, (int)(CF_HEADER_SIZE + off));
  if (rc != SQLITE_OK) return rc;
  memset(a + n, 0, nRegion - n); /* past the last bucket: empty slots */
  c->view.table = a;
  *pFound = cf_view_has(&c->view, i % CKSD_REGION_BUCKETS, fp);
  c->view.table = 0;
  return SQLITE_OK;
}

/*
** Look item hash h up in iRow's filter; *pFound the answer.  A direct
** probe reads the header again with its two buckets, all in this one
** call: if the header changed (ROLLBACK TO can restore other content, even
** another length, under a read handle without aborting it) the handle is
** closed and SQLITE_ABORT returned, so that the caller starts again from
** the row's current header.
*/
static int cksd_probe(cksd_cache *c, uint64_t h, int *pFound) {
  uint8_t aHdr[CF_HEADER_SIZE];
  cf_key k;
  uint32_t i2;
  int rc;
  if (!c->bWhole && ++c->nProbe >= c->nWholeAt) {
    rc = cksd_load_whole(c);
    if (rc != SQLITE_OK) return rc;
  }
  if (c->bWhole) {
    *pFound = cf_contains_hash(&c->f, h);
    return SQLITE_OK;
  }
  rc = cksd_read(c, aHdr, CF_HEADER_SIZE, 0);
  if (rc != SQLITE_OK) return rc;
  if (memcmp(aHdr, c->aBuf, CF_HEADER_SIZE) != 0) {
    cksd_close(c);
    return SQLITE_ABORT;
  }
  k = cf_key_of(&c->f, h);
  rc = cksd_bucket_has(c, k.i1, k.fp, pFound);
  if (rc != SQLITE_OK || *pFound) return rc;
  i2 = cf_alt_in(&c->f.p, k.i1, k.fp);
  if (i2 == k.i1) return SQLITE_OK;
  return cksd_bucket_has(c, i2, k.fp, pFound);
}

/* The rowid argument: SQLITE_OK with *piRow, SQLITE_DONE for NULL, or an
** error reported. */
static int cksd_rowid(sqlite3_context *ctx, sqlite3_value *v,
                      sqlite3_int64 *piRow) {
  switch (sqlite3_value_type(v)) {
  case SQLITE_INTEGER: *piRow = sqlite3_value_int64(v); return SQLITE_OK;
  case SQLITE_NULL: return SQLITE_DONE;
  case SQLITE_FLOAT: {
    double r = sqlite3_value_double(v);
    if (r >= -9223372036854775808.0 && r < 9223372036854775808.0 &&
        r == (double)(sqlite3_int64)r) {
      *piRow = (sqlite3_int64)r;
      return SQLITE_OK;
    }
  } /* fall through */
  default:
    cksql_result_bad_arg(ctx, CKSD_FUNC, "rowid must be an INTEGER", v);
    return SQLITE_ERROR;
  }
}

/* The cache of this call site, created or brought up to date with the
** names of this row; NULL after reporting an error. */
static cksd_cache *cksd_cache_of(sqlite3_context *ctx, int argc,
                                 sqlite3_value **argv, cksd_cache *c) {
  const char *zDb, *zTable, *zColumn;
  int i, bNew = c == 0;
  if (c && c->eNamesConst == 0) {
    /* second row: the markers survived iff the names are constants */
    c->eNamesConst = 1;
    for (i = 1; i < argc - 2; i++) {
      if (sqlite3_get_auxdata(ctx, i) != &cksd_marker) c->eNamesConst = -1;
    }
  }
  if (c && c->eNamesConst > 0) return c;
  if (!cksd_names(ctx, argc, argv, &zDb, &zTable, &zColumn)) return 0;
  if (c && cksd_same(zDb, c->zDb) && cksd_same(zTable, c->zTable) &&
      cksd_same(zColumn, c->zColumn)) {
    return c;
  }
  if (bNew) {
    c = sqlite3_malloc64(sizeof(*c));
    if (c == 0) {
      cksql_result_error(ctx, SQLITE_NOMEM, 0);
      return 0;
    }
    memset(c, 0, sizeof(*c));
    c->db = sqlite3_context_db_handle(ctx);
  }
  if (cksd_set_names(c, zDb, zTable, zColumn) != SQLITE_OK) {
    if (bNew) cksd_free(c);
    cksql_result_error(ctx, SQLITE_NOMEM, 0);
    return 0;
  }
  if (bNew) {
    /* set last: SQLite may free c at once if it cannot keep it */
    for (i = 1; i < argc - 2; i++) {
      sqlite3_set_auxdata(ctx, i, &cksd_marker, 0);
    }
    sqlite3_set_auxdata(ctx, 0, c, cksd_free);
    c = sqlite3_get_auxdata(ctx, 0);
    if (c == 0) cksql_result_error(ctx, SQLITE_NOMEM, 0);
  }
  return c;
}

/* Every row but the common one (see cksd_contains()). */
static CUCKOO_NOINLINE void cksd_contains_row(sqlite3_context *ctx, int argc,
                                              sqlite3_value **argv,
                                              cksd_cache *c) {
  sqlite3_value *pItem = argv[argc - 1];
  sqlite3_int64 iRow;
  cksql_hasher hasher;
  uint64_t h;
  int rc, bFound = 0, nTry;

  c = cksd_cache_of(ctx, argc, argv, c);
  if (c == 0) return;
  rc = cksd_rowid(ctx, argv[argc - 2], &iRow);
  if (rc != SQLITE_OK) return;
  if (sqlite3_value_type(pItem) == SQLITE_NULL) return;
  for (nTry = 0; nTry < 2; nTry++) {
    rc = cksd_load_header(ctx, c, iRow);
    if (rc != SQLITE_OK) return; /* NULL value, or error reported */
    cksql_hasher_init(&hasher, c->f.p.seed);
    rc = cksql_item_hash(&hasher, pItem, &h);
    if (rc != SQLITE_OK) {
      cksql_result_error(ctx, SQLITE_NOMEM, 0);
      return;
    }
    rc = cksd_probe(c, h, &bFound);
    if ((rc & 0xff) != SQLITE_ABORT) break;
    /* the row was written since the header was read: read it again */
  }
  if (rc == SQLITE_NOMEM) {
    cksql_result_error(ctx, SQLITE_NOMEM, 0);
    return;
  }
  if (rc != SQLITE_OK) {
    char *zWhat = sqlite3_mprintf("could not be read: %s", sqlite3_errstr(rc));
    if (zWhat == 0) {
      cksql_result_error(ctx, SQLITE_NOMEM, 0);
    } else {
      cksd_error(ctx, c, iRow, zWhat);
    }
    sqlite3_free(zWhat);
    cksd_close(c);
    return;
  }
  sqlite3_result_int(ctx, bFound);
}

/* The common row, kept apart so that it needs no stack frame to speak
** of: the names constant, the whole filter in memory, the same rowid and
** an INTEGER item. */
static void cksd_contains(sqlite3_context *ctx, int argc,
                          sqlite3_value **argv) {
  cksd_cache *c = (cksd_cache *)sqlite3_get_auxdata(ctx, 0);
  if (c && c->bWhole && c->eNamesConst > 0 &&
      sqlite3_value_type(argv[argc - 2]) == SQLITE_INTEGER &&
      sqlite3_value_int64(argv[argc - 2]) == c->iRow &&
      sqlite3_value_type(argv[argc - 1]) == SQLITE_INTEGER) {
    sqlite3_result_int(
        ctx, cf_contains_int(&c->f, sqlite3_value_int64(argv[argc - 1])));
    return;
  }
  cksd_contains_row(ctx, argc, argv, c);
}

int cuckoo_register_stored(sqlite3 *db) {
  int rc = sqlite3_create_function(db, CKSD_FUNC, 4, SQLITE_UTF8, 0,
                                   cksd_contains, 0, 0);
  if (rc == SQLITE_OK) {
    rc = sqlite3_create_function(db, CKSD_FUNC, 5, SQLITE_UTF8, 0,
                                 cksd_contains, 0, 0);
  }
  return rc;
}
