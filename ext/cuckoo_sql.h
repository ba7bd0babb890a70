/*
** cuckoo_sql.h: shared declarations of the SQL layer (functions,
** aggregates, virtual table) that sits on the SQLite-free core in
** cuckoo_filter.h.
**
** Every file of the SQL layer includes this header instead of sqlite3ext.h
** directly: it makes the loadable-extension API pointer (defined once, in
** cuckoo.c) visible, or, with -DSQLITE_CORE, binds to sqlite3.h for a
** static build.
*/
#ifndef CUCKOO_SQL_H
#define CUCKOO_SQL_H

#include <sqlite3ext.h>
#ifndef SQLITE_CORE
SQLITE_EXTENSION_INIT3
#endif

#include "cuckoo.h"
#include "cuckoo_filter.h"

/* Default seed of every filter (deterministic; override with seed=N). */
#define CUCKOO_DEFAULT_SEED 0

/* Registration, called in order by sqlite3_cuckoo_init(). */
int cuckoo_register_functions(sqlite3 *db);
int cuckoo_register_aggregates(sqlite3 *db);
int cuckoo_register_vtab(sqlite3 *db);

/*
** Hash an SQL value into an item (docs/format.md#item-identity: INTEGER
** 42 == REAL 42.0, TEXT as UTF-8 bytes, TEXT never equal to BLOB).  Returns
** SQLITE_OK with *pHash set, SQLITE_DONE for NULL (no hash), or
** SQLITE_NOMEM if converting TEXT to UTF-8 failed.
*/
int cksql_hash_value(sqlite3_value *v, uint64_t seed, uint64_t *pHash);

/*
** Validate argument iArg (0-based) of function zFunc as a filter BLOB and
** open *f as a read-only view of it.  Returns SQLITE_OK, SQLITE_DONE if
** the value is NULL (nothing reported), or SQLITE_ERROR after reporting
** "zFunc: argument N is not a valid cuckoo filter: <why>" on ctx.
*/
int cksql_open_arg(sqlite3_context *ctx, const char *zFunc, int iArg,
                   sqlite3_value *v, cf_filter *f);

/*
** Filter creation options shared by cuckoo_new(), cuckoo_agg() and the
** virtual table.  cksql_parse_options() parses words separated by commas
** or spaces: "key=value" pairs (bucket_size=2|4|8, seed=N,
** variant=plain|semisort) and the bare words "semisort" and "plain"
** (short for variant=...); on error it returns SQLITE_ERROR and sets
** *pzErr to an sqlite3_mprintf() message (caller frees) that names zWho
** and lists the valid options.
*/
typedef struct cksql_options {
  unsigned bucket_size;
  uint64_t seed;
  uint32_t flags; /* CF_FLAG_SEMISORT or 0 */
} cksql_options;

/* The valid options, as error messages list them. */
#define CKSQL_VALID_OPTIONS                                                    \
  "bucket_size=2|4|8, seed=<integer>, variant=plain|semisort (or just "      \
  "semisort)"
void cksql_options_default(cksql_options *o);
int cksql_parse_options(const char *zWho, const char *zOpts,
                        cksql_options *o, char **pzErr);

/*
** Fill *p for capacity/error_rate/options, checking ranges and
** SQLITE_LIMIT_LENGTH of db.  On error returns SQLITE_ERROR or
** SQLITE_TOOBIG with *pzErr an sqlite3_mprintf() message naming zWho.
*/
int cksql_params(sqlite3 *db, const char *zWho, sqlite3_int64 capacity,
                 double error_rate, const cksql_options *o, cf_params *p,
                 char **pzErr);

/* Report a core result code (CF_FULL, CF_TOO_MANY, ...) as an SQL error
** naming zFunc. */
void cksql_result_cf_error(sqlite3_context *ctx, const char *zFunc, int rc,
                           const cf_filter *f);

/* Describe a value for an error message: NULL, 42, 1.5, 'text' (at most
** 40 characters), or "a BLOB".  An sqlite3_mprintf() string (caller
** frees), NULL if out of memory. */
char *cksql_describe_value(sqlite3_value *v);

#endif /* CUCKOO_SQL_H */
