/*
** Copyright (c) 2026 the cuckoo authors.  MIT License: see LICENSE.
**
** sqlite.c: what SQLite needs around it to run as WebAssembly with cuckoo
** built in, for sqlite.js.  mk/wasm.mk compiles SQLite's amalgamation
** with -DSQLITE_OS_OTHER=1 -DSQLITE_EXTRA_INIT=ckw_extra_init and the
** extension's files with -DSQLITE_CORE, then links them with this file
** (emcc -sSTANDALONE_WASM: no JavaScript glue; sqlite.js calls SQLite's
** own C API, exported as is, and the two functions below).
**
**   ckw_*           SQLite's functions that take or return a 64-bit
**                   integer, with the integer passed in memory, so that
**                   no export has an i64 (BigInt) in its signature
**   ckw_extra_init  run once by sqlite3_initialize(): registers the
**                   extension for every connection (sqlite3_auto_extension)
**                   and the VFS below as the default
**   the VFS         databases live in memory (":memory:", or bytes given to
**                   sqlite3_deserialize()); temporary storage is in memory
**                   too (SQLITE_TEMP_STORE=3), so the VFS opens no file:
**                   it only supplies randomness and the current time, from
**                   JavaScript (the imports ckw_random and ckw_now)
*/
#include <string.h>

#include "sqlite3.h"

#define EXPORT __attribute__((used, visibility("default")))
#define IMPORT(name) __attribute__((import_module("env"), import_name(name)))

int sqlite3_cuckoo_init(sqlite3 *db, char **pzErrMsg,
                        const sqlite3_api_routines *pApi);

/* Fills p[0..n) with random bytes (crypto.getRandomValues in sqlite.js). */
IMPORT("ckw_random") void ckw_random(void *p, int n);
/* Milliseconds since the Unix epoch (Date.now() in sqlite.js). */
IMPORT("ckw_now") double ckw_now(void);

static int ckwOpen(sqlite3_vfs *pVfs, const char *zName, sqlite3_file *pFile,
                   int flags, int *pOutFlags) {
  (void)pVfs;
  (void)zName;
  (void)flags;
  (void)pOutFlags;
  pFile->pMethods = 0;
  return SQLITE_CANTOPEN; /* in-memory databases only */
}

static int ckwDelete(sqlite3_vfs *pVfs, const char *zName, int syncDir) {
  (void)pVfs;
  (void)zName;
  (void)syncDir;
  return SQLITE_IOERR_DELETE;
}

static int ckwAccess(sqlite3_vfs *pVfs, const char *zName, int flags,
                     int *pResOut) {
  (void)pVfs;
  (void)zName;
  (void)flags;
  *pResOut = 0;
  return SQLITE_OK;
}

static int ckwFullPathname(sqlite3_vfs *pVfs, const char *zName, int nOut,
                           char *zOut) {
  (void)pVfs;
  sqlite3_snprintf(nOut, zOut, "%s", zName);
  return SQLITE_OK;
}

static int ckwRandomness(sqlite3_vfs *pVfs, int nByte, char *zOut) {
  (void)pVfs;
  ckw_random(zOut, nByte);
  return nByte;
}

static int ckwSleep(sqlite3_vfs *pVfs, int microseconds) {
  (void)pVfs;
  (void)microseconds;
  return 0; /* one thread, no other connection to wait for */
}

static int ckwCurrentTimeInt64(sqlite3_vfs *pVfs, sqlite3_int64 *pNow) {
  (void)pVfs;
  /* Julian day number times 86400000 (sqlite3.h, xCurrentTimeInt64). */
  *pNow = (sqlite3_int64)210866760000000LL + (sqlite3_int64)ckw_now();
  return SQLITE_OK;
}

static int ckwCurrentTime(sqlite3_vfs *pVfs, double *pNow) {
  sqlite3_int64 t;
  ckwCurrentTimeInt64(pVfs, &t);
  *pNow = (double)t / 86400000.0;
  return SQLITE_OK;
}

static int ckwGetLastError(sqlite3_vfs *pVfs, int n, char *z) {
  (void)pVfs;
  if (n > 0) z[0] = 0;
  return 0;
}

static sqlite3_vfs ckw_vfs = {
    2,                   /* iVersion */
    sizeof(sqlite3_file), /* szOsFile */
    512,                 /* mxPathname */
    0,                   /* pNext */
    "cuckoo-wasm-memory", /* zName */
    0,                   /* pAppData */
    ckwOpen,
    ckwDelete,
    ckwAccess,
    ckwFullPathname,
    0, /* xDlOpen */
    0, /* xDlError */
    0, /* xDlSym */
    0, /* xDlClose */
    ckwRandomness,
    ckwSleep,
    ckwCurrentTime,
    ckwGetLastError,
    ckwCurrentTimeInt64,
    0, /* xSetSystemCall */
    0, /* xGetSystemCall */
    0, /* xNextSystemCall */
};

/* SQLITE_OS_OTHER: SQLite calls these from sqlite3_initialize(). */
int sqlite3_os_init(void) { return sqlite3_vfs_register(&ckw_vfs, 1); }
int sqlite3_os_end(void) { return SQLITE_OK; }

/* SQLITE_EXTRA_INIT: cuckoo on every connection opened from now on. */
int ckw_extra_init(const char *zUnused) {
  (void)zUnused;
  return sqlite3_auto_extension((void (*)(void))sqlite3_cuckoo_init);
}


/* sqlite3_bind_int64 with the value at p (8 bytes, little-endian). */
EXPORT int ckw_bind_int64(sqlite3_stmt *st, int i, const void *p) {
  sqlite3_int64 v;
  memcpy(&v, p, 8);
  return sqlite3_bind_int64(st, i, v);
}

/* Column i's INTEGER: written to p, and returned as a double (exact when
** it lies within +-2^53, which sqlite.js checks before reading p). */
EXPORT double ckw_column_int64(sqlite3_stmt *st, int i, void *p) {
  sqlite3_int64 v = sqlite3_column_int64(st, i);
  memcpy(p, &v, 8);
  return (double)v;
}

/* sqlite3_deserialize of n bytes at p (from sqlite3_malloc) into "main". */
EXPORT int ckw_deserialize(sqlite3 *db, unsigned char *p, int n) {
  return sqlite3_deserialize(db, "main", p, n, n,
                             SQLITE_DESERIALIZE_FREEONCLOSE |
                                 SQLITE_DESERIALIZE_RESIZEABLE);
}
