/*
** Copyright (c) 2026 the cuckoo authors.  MIT License: see LICENSE.
**
** cuckoo_vtab_func.c: the cuckoo table's companion functions (rule 7 of
** cuckoo_vtab.c):
**
**   cuckoo_check([schema,] table)          'ok' or the problems found
**   cuckoo_table_info([schema,] table)     JSON
**   cuckoo_export(table)                   the filter BLOB of one level
**   cuckoo_export(schema, table [, level]) the same for level N
**
** Each finds the table's open store on this connection (connecting the
** table if needed), so it sees this connection's unflushed changes.
*/
#include "cuckoo_vtab_int.h"

#include <string.h>

static ckvt_table *ckvt_lookup_table(ckvt_global *g, const char *zDb,
                                     const char *zName) {
  ckvt_table *pTab;
  for (pTab = g->pList; pTab; pTab = pTab->pNext) {
    if (sqlite3_stricmp(ckst_schema(pTab->pStore), zDb) == 0 &&
        sqlite3_stricmp(ckst_name(pTab->pStore), zName) == 0) {
      return pTab;
    }
  }
  return 0;
}

/*
** The open table named by the nName arguments at argv (table, or schema
** and table), connected if needed, ready and refreshed.  Returns 0 after
** reporting an error (or a NULL result for a NULL name).
*/
static ckvt_table *ckvt_find(sqlite3_context *ctx, const char *zFunc, int nName,
                             sqlite3_value **argv) {
  ckvt_global *g = (ckvt_global *)sqlite3_user_data(ctx);
  sqlite3 *db = sqlite3_context_db_handle(ctx);
  const char *zDb = "main", *zName;
  ckvt_table *pTab;
  int i, rc;

  for (i = 0; i < nName; i++) {
    if (sqlite3_value_type(argv[i]) == SQLITE_NULL) return 0;
  }
  if (nName == 2) zDb = (const char *)sqlite3_value_text(argv[0]);
  zName = (const char *)sqlite3_value_text(argv[nName - 1]);
  if (zDb == 0 || zName == 0) {
    cksql_result_error(ctx, SQLITE_NOMEM, 0);
    return 0;
  }
  pTab = ckvt_lookup_table(g, zDb, zName);
  if (pTab == 0) {
    /* Preparing a statement on the table connects it. */
    sqlite3_stmt *pStmt = 0;
    char *zSql = sqlite3_mprintf("SELECT 0 FROM \"%w\".\"%w\"", zDb, zName);
    if (zSql == 0) {
      cksql_result_error(ctx, SQLITE_NOMEM, 0);
      return 0;
    }
    rc = sqlite3_prepare_v2(db, zSql, -1, &pStmt, 0);
    sqlite3_free(zSql);
    sqlite3_finalize(pStmt);
    if (rc == SQLITE_NOMEM) {
      cksql_result_error(ctx, SQLITE_NOMEM, 0);
      return 0;
    }
    if (rc != SQLITE_OK) {
      cksql_result_error(
          ctx, SQLITE_ERROR,
          sqlite3_mprintf("%s: no such table: %s.%s", zFunc, zDb, zName));
      return 0;
    }
    pTab = ckvt_lookup_table(g, zDb, zName);
    if (pTab == 0) {
      cksql_result_error(ctx, SQLITE_ERROR,
                         sqlite3_mprintf("%s: %s.%s is not a cuckoo table",
                                         zFunc, zDb, zName));
      return 0;
    }
  }
  return pTab;
}

/* Report a store error from a companion function. */
static void ckvt_store_fail(sqlite3_context *ctx, ckvt_table *pTab, int rc) {
  char *z = ckst_take_error(pTab->pStore);
  if (z == 0 && rc != SQLITE_NOMEM)
    z = sqlite3_mprintf("%s", sqlite3_errstr(rc));
  cksql_result_error(ctx, rc, z);
}

/* cuckoo_check([schema,] table): 'ok' or the problems found. */
static void ckvtCheckFunc(sqlite3_context *ctx, int argc,
                          sqlite3_value **argv) {
  ckvt_table *pTab = ckvt_find(ctx, "cuckoo_check", argc, argv);
  char *zReport = 0;
  int rc;
  if (pTab == 0) return;
  rc = ckst_check(pTab->pStore, &zReport);
  if (rc != SQLITE_OK) {
    ckvt_store_fail(ctx, pTab, rc);
    return;
  }
  sqlite3_result_text(ctx, zReport, -1, sqlite3_free);
}

/* cuckoo_table_info([schema,] table): JSON. */
static void ckvtInfoFunc(sqlite3_context *ctx, int argc, sqlite3_value **argv) {
  ckvt_table *pTab = ckvt_find(ctx, "cuckoo_table_info", argc, argv);
  char *zJson = 0;
  int rc;
  if (pTab == 0) return;
  rc = ckst_ready(pTab->pStore, 1);
  if (rc == SQLITE_OK) rc = ckst_info(pTab->pStore, &zJson);
  if (rc != SQLITE_OK) {
    ckvt_store_fail(ctx, pTab, rc);
    return;
  }
  sqlite3_result_text(ctx, zJson, -1, sqlite3_free);
}

/* cuckoo_export(table), cuckoo_export(schema, table [, level]). */
static void ckvtExportFunc(sqlite3_context *ctx, int argc,
                           sqlite3_value **argv) {
  int nName = argc > 2 ? 2 : argc;
  ckvt_table *pTab = ckvt_find(ctx, "cuckoo_export", nName, argv);
  ckstore *p;
  sqlite3_int64 iLevel = 0, n = 0;
  uint8_t *a = 0;
  int rc;
  if (pTab == 0) return;
  p = pTab->pStore;
  rc = ckst_ready(p, 1);
  if (rc != SQLITE_OK) {
    ckvt_store_fail(ctx, pTab, rc);
    return;
  }
  if (argc == 3) {
    if (sqlite3_value_type(argv[2]) == SQLITE_NULL) return;
    iLevel = sqlite3_value_int64(argv[2]);
    if (sqlite3_value_numeric_type(argv[2]) != SQLITE_INTEGER || iLevel < 0 ||
        iLevel >= ckst_levels(p)) {
      cksql_result_error(
          ctx, SQLITE_ERROR,
          sqlite3_mprintf("cuckoo_export: level must be an integer "
                          "from 0 to %d (%s has %d level%s)",
                          ckst_levels(p) - 1, ckst_label(p), ckst_levels(p),
                          ckst_levels(p) == 1 ? "" : "s"));
      return;
    }
  } else if (ckst_levels(p) > 1) {
    cksql_result_error(
        ctx, SQLITE_ERROR,
        sqlite3_mprintf(
            "cuckoo_export: %s has %d levels (it grew past its "
            "capacity), and a filter BLOB holds one; export each "
            "level with cuckoo_export('%q', '%q', N) for N = 0 to %d "
            "(a lookup must probe them all), or re-create the table "
            "with a capacity for all its items",
            ckst_label(p), ckst_levels(p), ckst_schema(p), ckst_name(p),
            ckst_levels(p) - 1));
    return;
  }
  rc = ckst_export(p, (int)iLevel, &a, &n);
  if (rc != SQLITE_OK) {
    ckvt_store_fail(ctx, pTab, rc);
    return;
  }
  sqlite3_result_blob64(ctx, a, (sqlite3_uint64)n, sqlite3_free);
}

int ckvt_register_functions(sqlite3 *db, ckvt_global *g) {
  static const struct {
    const char *zName;
    int nArg;
    void (*xFunc)(sqlite3_context *, int, sqlite3_value **);
  } aFunc[] = {
      {"cuckoo_check", 1, ckvtCheckFunc},
      {"cuckoo_check", 2, ckvtCheckFunc},
      {"cuckoo_table_info", 1, ckvtInfoFunc},
      {"cuckoo_table_info", 2, ckvtInfoFunc},
      {"cuckoo_export", 1, ckvtExportFunc},
      {"cuckoo_export", 2, ckvtExportFunc},
      {"cuckoo_export", 3, ckvtExportFunc},
  };
  size_t i;
  int rc = SQLITE_OK;
  for (i = 0; rc == SQLITE_OK && i < sizeof(aFunc) / sizeof(aFunc[0]); i++) {
    rc = sqlite3_create_function(db, aFunc[i].zName, aFunc[i].nArg, SQLITE_UTF8,
                                 g, aFunc[i].xFunc, 0, 0);
  }
  return rc;
}
