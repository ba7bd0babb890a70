/*
** Copyright (c) 2026 the cuckoo authors.  MIT License: see LICENSE.
**
** vfsshim.h: a VFS shim over the default VFS for the C tests that
** interrupt a database's I/O (crash_test kills its process at the Nth
** call, ioerr_test fails the Nth call).  Every file it opens passes each
** call to the real file, but xWrite, xTruncate and xSync (and the VFS's
** xDelete) first call the hook shim_io(op): a non-zero result is returned
** in place of the call, which is then not made.
**
**   shim_register(zName)   register the shim under zName (not as the
**                          default VFS: sqlite3_open_v2() names it)
**   shim_io                the hook (NULL: every call goes through)
**
** Include it after <sqlite3.h>; everything is static.
*/
#ifndef VFSSHIM_H
#define VFSSHIM_H

#include <string.h>

#define SHIM_WRITE 1
#define SHIM_TRUNCATE 2
#define SHIM_SYNC 3
#define SHIM_DELETE 4

static int (*shim_io)(int eOp);
static sqlite3_vfs *g_pShimReal;

#define SHIM_HOOK(op)                                                          \
  do {                                                                         \
    int rcHook_ = shim_io ? shim_io(op) : 0;                                   \
    if (rcHook_) return rcHook_;                                               \
  } while (0)

typedef struct shim_file {
  sqlite3_file base;
  sqlite3_file *pReal; /* follows this struct in the same allocation */
} shim_file;
#define REAL(f) (((shim_file *)(f))->pReal)

static int shClose(sqlite3_file *f) {
  return REAL(f)->pMethods->xClose(REAL(f));
}
static int shRead(sqlite3_file *f, void *p, int n, sqlite3_int64 o) {
  return REAL(f)->pMethods->xRead(REAL(f), p, n, o);
}
static int shWrite(sqlite3_file *f, const void *p, int n, sqlite3_int64 o) {
  SHIM_HOOK(SHIM_WRITE);
  return REAL(f)->pMethods->xWrite(REAL(f), p, n, o);
}
static int shTruncate(sqlite3_file *f, sqlite3_int64 n) {
  SHIM_HOOK(SHIM_TRUNCATE);
  return REAL(f)->pMethods->xTruncate(REAL(f), n);
}
static int shSync(sqlite3_file *f, int flags) {
  SHIM_HOOK(SHIM_SYNC);
  return REAL(f)->pMethods->xSync(REAL(f), flags);
}
static int shFileSize(sqlite3_file *f, sqlite3_int64 *p) {
  return REAL(f)->pMethods->xFileSize(REAL(f), p);
}
static int shLock(sqlite3_file *f, int e) {
  return REAL(f)->pMethods->xLock(REAL(f), e);
}
static int shUnlock(sqlite3_file *f, int e) {
  return REAL(f)->pMethods->xUnlock(REAL(f), e);
}
static int shCheckReserved(sqlite3_file *f, int *p) {
  return REAL(f)->pMethods->xCheckReservedLock(REAL(f), p);
}
static int shFileControl(sqlite3_file *f, int op, void *p) {
  return REAL(f)->pMethods->xFileControl(REAL(f), op, p);
}
static int shSectorSize(sqlite3_file *f) {
  return REAL(f)->pMethods->xSectorSize(REAL(f));
}
static int shDevChar(sqlite3_file *f) {
  return REAL(f)->pMethods->xDeviceCharacteristics(REAL(f));
}
static int shShmMap(sqlite3_file *f, int i, int n, int b, void volatile **pp) {
  return REAL(f)->pMethods->xShmMap(REAL(f), i, n, b, pp);
}
static int shShmLock(sqlite3_file *f, int o, int n, int fl) {
  return REAL(f)->pMethods->xShmLock(REAL(f), o, n, fl);
}
static void shShmBarrier(sqlite3_file *f) {
  REAL(f)->pMethods->xShmBarrier(REAL(f));
}
static int shShmUnmap(sqlite3_file *f, int d) {
  return REAL(f)->pMethods->xShmUnmap(REAL(f), d);
}
static int shFetch(sqlite3_file *f, sqlite3_int64 o, int n, void **pp) {
  return REAL(f)->pMethods->xFetch(REAL(f), o, n, pp);
}
static int shUnfetch(sqlite3_file *f, sqlite3_int64 o, void *p) {
  return REAL(f)->pMethods->xUnfetch(REAL(f), o, p);
}

static const sqlite3_io_methods shMethods = {
    3,          shClose,         shRead,        shWrite,
    shTruncate, shSync,          shFileSize,    shLock,
    shUnlock,   shCheckReserved, shFileControl, shSectorSize,
    shDevChar,  shShmMap,        shShmLock,     shShmBarrier,
    shShmUnmap, shFetch,         shUnfetch};

static int shOpen(sqlite3_vfs *v, const char *zName, sqlite3_file *f, int flags,
                  int *pOut) {
  shim_file *p = (shim_file *)f;
  int rc;
  (void)v;
  p->pReal = (sqlite3_file *)&p[1];
  rc = g_pShimReal->xOpen(g_pShimReal, zName, p->pReal, flags, pOut);
  /* only a file the real VFS opened (pMethods set) gets our methods */
  p->base.pMethods = p->pReal->pMethods ? &shMethods : 0;
  return rc;
}
static int shDelete(sqlite3_vfs *v, const char *z, int dirSync) {
  (void)v;
  SHIM_HOOK(SHIM_DELETE);
  return g_pShimReal->xDelete(g_pShimReal, z, dirSync);
}
static int shAccess(sqlite3_vfs *v, const char *z, int fl, int *pOut) {
  (void)v;
  return g_pShimReal->xAccess(g_pShimReal, z, fl, pOut);
}
static int shFullPathname(sqlite3_vfs *v, const char *z, int n, char *zOut) {
  (void)v;
  return g_pShimReal->xFullPathname(g_pShimReal, z, n, zOut);
}
static int shRandomness(sqlite3_vfs *v, int n, char *z) {
  (void)v;
  return g_pShimReal->xRandomness(g_pShimReal, n, z);
}
static int shSleep(sqlite3_vfs *v, int us) {
  (void)v;
  return g_pShimReal->xSleep(g_pShimReal, us);
}
static int shCurrentTime(sqlite3_vfs *v, double *p) {
  (void)v;
  return g_pShimReal->xCurrentTime(g_pShimReal, p);
}
static int shGetLastError(sqlite3_vfs *v, int n, char *z) {
  (void)v;
  return g_pShimReal->xGetLastError(g_pShimReal, n, z);
}
static int shCurrentTimeInt64(sqlite3_vfs *v, sqlite3_int64 *p) {
  (void)v;
  return g_pShimReal->xCurrentTimeInt64(g_pShimReal, p);
}

static sqlite3_vfs shVfs;

static void shim_register(const char *zName) {
  g_pShimReal = sqlite3_vfs_find(0);
  memset(&shVfs, 0, sizeof(shVfs));
  shVfs.iVersion = 2;
  shVfs.szOsFile = (int)sizeof(shim_file) + g_pShimReal->szOsFile;
  shVfs.mxPathname = g_pShimReal->mxPathname;
  shVfs.zName = zName;
  shVfs.xOpen = shOpen;
  shVfs.xDelete = shDelete;
  shVfs.xAccess = shAccess;
  shVfs.xFullPathname = shFullPathname;
  shVfs.xDlOpen = 0;
  shVfs.xRandomness = shRandomness;
  shVfs.xSleep = shSleep;
  shVfs.xCurrentTime = shCurrentTime;
  shVfs.xGetLastError = shGetLastError;
  shVfs.xCurrentTimeInt64 = shCurrentTimeInt64;
  sqlite3_vfs_register(&shVfs, 0);
}

#endif /* VFSSHIM_H */
