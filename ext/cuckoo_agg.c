/*
** cuckoo_agg.c: aggregate and window functions (cuckoo_agg,
** cuckoo_union).  Not yet implemented.
*/
#include "cuckoo_sql.h"

int cuckoo_register_aggregates(sqlite3 *db) {
  (void)db;
  return SQLITE_OK;
}
