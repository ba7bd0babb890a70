/*
** Copyright (c) 2026 the cuckoo authors.  MIT License: see LICENSE.
**
** cuckoo_vtab_int.h: what the virtual table's two files share:
** cuckoo_vtab.c (the module) and cuckoo_vtab_func.c (its companion
** functions cuckoo_check, cuckoo_export and cuckoo_table_info, which find
** a table's open store through the per-connection registry below).
*/
#ifndef CUCKOO_VTAB_INT_H
#define CUCKOO_VTAB_INT_H

#include "cuckoo_store.h"

typedef struct ckvt_table ckvt_table;

/*
** The module object with xIntegrity (iVersion 4, SQLite 3.44).  Built
** against an older sqlite3.h, the same layout is declared here: the
** version-3 object followed by the one new method.
*/
typedef int (*ckvt_integrity_fn)(sqlite3_vtab *, const char *, const char *,
                                 int, char **);
#if SQLITE_VERSION_NUMBER >= 3044000
typedef sqlite3_module ckvt_module;
#define CKVT_MODULE(m) (&(m))
#else
typedef struct ckvt_module {
  sqlite3_module base; /* iVersion 1 to 3 */
  ckvt_integrity_fn xIntegrity;
} ckvt_module;
#define CKVT_MODULE(m) (&(m).base)
#endif

/* Per-connection registry of open cuckoo tables (the module's client
** data, shared with the companion functions), and the module object as
** registered for the running SQLite. */
typedef struct ckvt_global {
  ckvt_table *pList;
  int bVtabIn;        /* sqlite3_vtab_in() exists (SQLite 3.38+) */
  ckvt_module module; /* iVersion 4 with xIntegrity on SQLite 3.44+ */
} ckvt_global;

struct ckvt_table {
  sqlite3_vtab base;
  sqlite3 *db;
  ckvt_global *pGlobal;
  ckvt_table *pNext;
  ckstore *pStore;
  const cksql_hasher *pHasher; /* ckst_hasher(pStore) */
  int bCmd;  /* the command column (named like the table) is declared */
  int nScan; /* open cursors that have run a scan */
  struct ckvt_cursor *pSpare; /* a closed cursor kept for the next xOpen */
};

/* Register the companion functions on db, with g as their user data. */
CUCKOO_PRIVATE int ckvt_register_functions(sqlite3 *db, ckvt_global *g);

#endif /* CUCKOO_VTAB_INT_H */
