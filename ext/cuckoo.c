/*
** Copyright (c) 2026 the cuckoo authors.  MIT License: see LICENSE.
**
** cuckoo.c: the extension's entry point.
**
** Loaded as a shared library (".load ./cuckoo" in the sqlite3 shell,
** load_extension('./cuckoo') elsewhere) SQLite calls sqlite3_cuckoo_init,
** the name it derives from the file name.  Built with -DSQLITE_CORE the
** same function can be registered with sqlite3_auto_extension().
**
** It refuses to load into a SQLite older than CUCKOO_MIN_SQLITE (the
** first release with everything the functions and the virtual table
** need: window functions, xShadowName, SQLITE_INNOCUOUS), saying why.
** Newer APIs are used only when the running library has them, decided
** at load time from sqlite3_libversion_number() (the loader's table of
** routines is shorter in an older library, so a routine it lacks must
** never be called):
**
**   3.38.0  sqlite3_vtab_in: item IN (...) in one xFilter call (before,
**           SQLite calls xFilter once per value of the list)
**   3.44.0  xIntegrity: PRAGMA integrity_check and quick_check check
**           every cuckoo table (before, only cuckoo_check() does)
*/
#include "cuckoo_sql.h"

#if !defined(SQLITE_CORE) && !defined(CUCKOO_AMALGAMATION)
const sqlite3_api_routines *sqlite3_api = 0; /* declared in cuckoo_sql.h */
#endif

#define CUCKOO_MIN_SQLITE 3031001
#define CUCKOO_MIN_SQLITE_NAME "3.31.1"

CUCKOO_API int sqlite3_cuckoo_init(sqlite3 *db, char **pzErrMsg,
                                   const sqlite3_api_routines *pApi) {
  int rc = SQLITE_OK;
#ifndef SQLITE_CORE
  SQLITE_EXTENSION_INIT2(pApi);
#else
  (void)pApi;
#endif
  if (sqlite3_libversion_number() < CUCKOO_MIN_SQLITE) {
    if (pzErrMsg) {
      *pzErrMsg = sqlite3_mprintf("cuckoo: needs SQLite " CUCKOO_MIN_SQLITE_NAME
                                  " or later (this is %s)",
                                  sqlite3_libversion());
    }
    return SQLITE_ERROR;
  }
  if (rc == SQLITE_OK) rc = cuckoo_register_functions(db);
  if (rc == SQLITE_OK) rc = cuckoo_register_aggregates(db);
  if (rc == SQLITE_OK) rc = cuckoo_register_vtab(db);
  if (rc == SQLITE_OK) rc = cuckoo_register_stored(db);
  if (rc != SQLITE_OK && pzErrMsg && *pzErrMsg == 0) {
    *pzErrMsg =
        sqlite3_mprintf("cuckoo: registration failed: %s", sqlite3_errstr(rc));
  }
  return rc;
}
