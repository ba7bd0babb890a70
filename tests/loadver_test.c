/*
** Copyright (c) 2026 the cuckoo authors.  MIT License: see LICENSE.
**
** loadver_test.c: the extension refuses to load into a SQLite older than
** the minimum it needs, with a message that says so.
**
** A real old libsqlite3 is not available on the test machine, so this
** test dlopen()s the built extension (CUCKOO_EXT, default ./cuckoo.so)
** and calls its entry point with an API-routines table whose version
** functions report an older release.  The loader passes exactly such a
** table to every extension, so this is the path a user of an old SQLite
** takes.  A second call with the real version numbers must succeed on a
** real connection.
**
** The last line is "loadver_test: N passed, N failed".
*/
/* SQLITE_CORE: the struct of routines without the macros that would
** route this program's own calls through it. */
#define SQLITE_CORE 1
#include <sqlite3ext.h>

#include "testlib.h"
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef int (*init_fn)(sqlite3 *, char **, const sqlite3_api_routines *);

/* One check (zGot: what was found). */
static void check(int ok, const char *zWhat, const char *zGot) {
  tl_check(ok, "%s (got: %s)", zWhat, zGot ? zGot : "(null)");
}

static int old_version_number(void) { return 3031000; }
static const char *old_version(void) { return "3.31.0"; }

int main(void) {
  const char *zExt = getenv("CUCKOO_EXT");
  void *h;
  init_fn xInit;
  sqlite3_api_routines api;
  sqlite3 *db = 0;
  char *zErr = 0;
  int rc;
  tl_zProgram = "loadver_test";

  if (zExt == 0 || zExt[0] == 0) zExt = "./cuckoo.so";
  h = dlopen(zExt, RTLD_NOW | RTLD_LOCAL);
  check(h != 0, "dlopen of the extension", dlerror());
  if (h == 0) goto done;
  xInit = (init_fn)dlsym(h, "sqlite3_cuckoo_init");
  check(xInit != 0, "entry point sqlite3_cuckoo_init exported", dlerror());
  if (xInit == 0) goto done;

  /* Every routine the entry point may reach before its version check,
  ** taken from the real library; only the version is faked. */
  memset(&api, 0, sizeof(api));
  api.libversion_number = old_version_number;
  api.libversion = old_version;
  api.mprintf = sqlite3_mprintf;
  api.free = sqlite3_free;
  api.errstr = sqlite3_errstr;
  rc = sqlite3_open(":memory:", &db);
  check(rc == SQLITE_OK, "open :memory:", sqlite3_errstr(rc));

  rc = xInit(db, &zErr, &api);
  check(rc == SQLITE_ERROR, "old SQLite: load refused with SQLITE_ERROR",
        sqlite3_errstr(rc));
  check(zErr != 0 &&
            strcmp(zErr, "cuckoo: needs SQLite 3.31.1 or later (this is "
                         "3.31.0)") == 0,
        "old SQLite: message names the minimum and the running version", zErr);
  sqlite3_free(zErr);
  zErr = 0;

  /* The real loader path on this SQLite works and registers functions. */
  rc = sqlite3_enable_load_extension(db, 1);
  if (rc == SQLITE_OK) rc = sqlite3_load_extension(db, zExt, 0, &zErr);
  check(rc == SQLITE_OK, "current SQLite: load succeeds", zErr);
  sqlite3_free(zErr);
  zErr = 0;
  if (rc == SQLITE_OK) {
    sqlite3_stmt *pStmt = 0;
    const char *zGot = 0;
    rc = sqlite3_prepare_v2(db, "SELECT cuckoo_version()", -1, &pStmt, 0);
    if (rc == SQLITE_OK && sqlite3_step(pStmt) == SQLITE_ROW) {
      zGot = (const char *)sqlite3_column_text(pStmt, 0);
    }
    check(zGot != 0 && zGot[0] != 0, "cuckoo_version() after load", zGot);
    sqlite3_finalize(pStmt);
  }

done:
  sqlite3_close(db);
  /* the extension stays loaded: the connection that used it is closed,
  ** and unloading under LeakSanitizer only hides its stack traces */
  return tl_report("loadver_test");
}
