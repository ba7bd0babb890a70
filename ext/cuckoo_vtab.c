/*
** cuckoo_vtab.c: the cuckoo virtual table.  Not yet implemented.
*/
#include "cuckoo_sql.h"

int cuckoo_register_vtab(sqlite3 *db) {
  (void)db;
  return SQLITE_OK;
}
