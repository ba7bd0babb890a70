/*
** Copyright (c) 2026 the cuckoo authors.  MIT License: see LICENSE.
**
** blob_fuzz.c: libFuzzer target for filter BLOBs through every scalar
** function that takes a filter.
**
** The whole input is the BLOB.  It goes, as argument 1, to
** cuckoo_contains, cuckoo_count, cuckoo_info, cuckoo_add, cuckoo_remove
** and cuckoo_merge (also as argument 2), with a fixed set of items of
** every type plus one integer taken from the input's last bytes.  The
** seed corpus (seed-blob/) holds valid filters of every geometry and
** variant, so mutations explore both the header checks and crafted
** bucket contents.
**
** Besides "no crash, no out-of-bounds access, no leak" (ASan, UBSan,
** LeakSanitizer), the target asserts (abort() on violation):
**   1. Validation is consistent: every function accepts the BLOB or
**      every function rejects it.
**   2. Every error message names the function that raised it.
**   3. On an accepted BLOB: cuckoo_add either fails (full / too many
**      copies) or returns a filter where every added item is found and
**      the count grew by the number of items; cuckoo_remove's count drops
**      by at most one; merging a filter with itself returns it unchanged.
*/
#include <sqlite3.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int sqlite3_cuckoo_init(sqlite3 *db, char **pzErr, const void *pApi);

static sqlite3 *db;

enum { ST_CONTAINS, ST_COUNT, ST_INFO, ST_ADD, ST_REMOVE, ST_MERGE, ST_N };
static const char *azSql[ST_N] = {
    "SELECT cuckoo_contains(?1, ?2)",
    "SELECT cuckoo_count(?1)",
    "SELECT cuckoo_info(?1)",
    "SELECT cuckoo_add(?1, ?2, ?3, ?4, ?5, ?6)",
    "SELECT cuckoo_remove(?1, ?2)",
    "SELECT cuckoo_merge(?1, ?2)",
};
static const char *azFunc[ST_N] = {"cuckoo_contains", "cuckoo_count",
                                   "cuckoo_info",     "cuckoo_add",
                                   "cuckoo_remove",   "cuckoo_merge"};
static sqlite3_stmt *aStmt[ST_N];

#define FUZZ_ASSERT(x)                                                         \
  do {                                                                         \
    if (!(x)) {                                                                \
      fprintf(stderr, "blob_fuzz: assertion failed: %s (line %d)\n", #x,       \
              __LINE__);                                                       \
      abort();                                                                 \
    }                                                                          \
  } while (0)

static void fuzz_init(void) {
  int i;
  if (sqlite3_open(":memory:", &db) != SQLITE_OK) abort();
  if (sqlite3_cuckoo_init(db, 0, 0) != SQLITE_OK) abort();
  for (i = 0; i < ST_N; i++) {
    if (sqlite3_prepare_v2(db, azSql[i], -1, &aStmt[i], 0) != SQLITE_OK)
      abort();
  }
}

/* Bind item number k (0..5) of this input to parameter iParam. */
static void bind_item(sqlite3_stmt *s, int iParam, int k, int64_t iExtra) {
  static const unsigned char aBlob[2] = {0x00, 0xff};
  switch (k) {
  case 0: sqlite3_bind_int64(s, iParam, 42); break;
  case 1: sqlite3_bind_text(s, iParam, "fuzz", 4, SQLITE_STATIC); break;
  case 2: sqlite3_bind_double(s, iParam, 2.5); break;
  case 3: sqlite3_bind_blob(s, iParam, aBlob, 2, SQLITE_STATIC); break;
  case 4: sqlite3_bind_int64(s, iParam, iExtra); break;
  default: sqlite3_bind_null(s, iParam); break;
  }
}

/*
** Step statement s once.  Returns 1 with the row available, 0 after an
** error (checked to name zFunc).
*/
static int step_ok(sqlite3_stmt *s, const char *zFunc) {
  int rc = sqlite3_step(s);
  if (rc == SQLITE_ROW) return 1;
  FUZZ_ASSERT(rc != SQLITE_DONE);
  if (rc != SQLITE_NOMEM && rc != SQLITE_TOOBIG) {
    const char *zErr = sqlite3_errmsg(db);
    if (strncmp(zErr, zFunc, strlen(zFunc)) != 0) {
      fprintf(stderr, "blob_fuzz: error does not name %s: %s\n", zFunc, zErr);
      abort();
    }
  }
  return 0;
}

static void finish(sqlite3_stmt *s) {
  sqlite3_reset(s);
  sqlite3_clear_bindings(s);
}

/* cuckoo_count of a BLOB that must be valid. */
static int64_t count_of(const void *p, int n) {
  sqlite3_stmt *s = aStmt[ST_COUNT];
  int64_t c;
  sqlite3_bind_blob(s, 1, p, n, SQLITE_TRANSIENT);
  FUZZ_ASSERT(step_ok(s, "cuckoo_count"));
  c = sqlite3_column_int64(s, 0);
  finish(s);
  return c;
}

static int contains(const void *p, int n, int k, int64_t iExtra) {
  sqlite3_stmt *s = aStmt[ST_CONTAINS];
  int r;
  sqlite3_bind_blob(s, 1, p, n, SQLITE_TRANSIENT);
  bind_item(s, 2, k, iExtra);
  FUZZ_ASSERT(step_ok(s, "cuckoo_contains"));
  r = sqlite3_column_int(s, 0);
  finish(s);
  return r;
}

/* A copy of the BLOB in column 0 of s (n bytes), then s reset. */
static void *result_copy(sqlite3_stmt *s, int *pn) {
  const void *p = sqlite3_column_blob(s, 0);
  int n = sqlite3_column_bytes(s, 0);
  void *copy = malloc((size_t)n + 1);
  FUZZ_ASSERT(copy != 0);
  memcpy(copy, p, (size_t)n);
  finish(s);
  *pn = n;
  return copy;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  int valid = -1, i, ok;
  int64_t iExtra = 0, nCount = 0;
  size_t j;
  if (db == 0) fuzz_init();
  if (size > 1000000) return 0;
  for (j = size > 8 ? size - 8 : 0; j < size; j++)
    iExtra = (int64_t)(((uint64_t)iExtra << 8) | data[j]);

  /* 1, 2: every function agrees on validity; errors name the function. */
  for (i = 0; i < ST_N; i++) {
    sqlite3_stmt *s = aStmt[i];
    int k;
    sqlite3_bind_blob(s, 1, data, (int)size, SQLITE_STATIC);
    if (i == ST_MERGE) {
      sqlite3_bind_blob(s, 2, data, (int)size, SQLITE_STATIC);
    } else {
      for (k = 2; k <= sqlite3_bind_parameter_count(s); k++)
        bind_item(s, k, k - 2, iExtra);
    }
    ok = step_ok(s, azFunc[i]);
    if (i == ST_ADD || i == ST_REMOVE) {
      /* These can fail on a valid filter (full, too many copies,
      ** count inconsistent with contents): only a valid verdict counts. */
      if (ok) FUZZ_ASSERT(valid != 0);
    } else if (i == ST_MERGE) {
      /* merge(b, b) may be full for crafted contents; never valid if the
      ** others rejected the BLOB. */
      if (ok) FUZZ_ASSERT(valid != 0);
    } else {
      if (valid < 0) valid = ok;
      FUZZ_ASSERT(valid == ok);
    }
    if (ok && i == ST_COUNT) nCount = sqlite3_column_int64(s, 0);
    if (ok && i == ST_ADD) {
      /* 3: everything added is found; the count grew by 5. */
      int n;
      void *copy = result_copy(s, &n);
      for (k = 0; k < 5; k++)
        FUZZ_ASSERT(contains(copy, n, k, iExtra) == 1);
      FUZZ_ASSERT(count_of(copy, n) == nCount + 5);
      free(copy);
      continue;
    }
    if (ok && i == ST_REMOVE) {
      int64_t c;
      int n;
      void *copy = result_copy(s, &n);
      c = count_of(copy, n);
      FUZZ_ASSERT(c == nCount || c == nCount - 1);
      free(copy);
      continue;
    }
    if (ok && i == ST_MERGE) {
      /* merging a filter into itself adds no copies */
      FUZZ_ASSERT(sqlite3_column_bytes(s, 0) == (int)size);
      FUZZ_ASSERT(memcmp(sqlite3_column_blob(s, 0), data, size) == 0);
    }
    finish(s);
  }
  return 0;
}
