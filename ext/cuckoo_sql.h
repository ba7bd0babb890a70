/*
** Copyright (c) 2026 the cuckoo authors.  MIT License: see LICENSE.
**
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

/* On Windows the entry point is the DLL's one export, declared so before
** cuckoo.h's declaration (a definition may not add it). */
#if defined(_WIN32) && !defined(CUCKOO_API)
#define CUCKOO_API __declspec(dllexport)
#endif
#include "cuckoo.h"
#include "cuckoo_filter.h"

/* The loadable-extension API pointer (what SQLITE_EXTENSION_INIT1 and
** INIT3 would declare), hidden like the rest, and file-local in the
** amalgamation. */
#ifndef SQLITE_CORE
#ifdef CUCKOO_AMALGAMATION
static const sqlite3_api_routines *sqlite3_api = 0;
#else
CUCKOO_HIDDEN extern const sqlite3_api_routines *sqlite3_api;
#endif
#endif

/* CUCKOO_NOINLINE (a rare path kept out of a hot caller's frame) is
** cuckoo_port.h's, as every compiler-specific name. */

/* Default seed of every filter (deterministic; override with seed=N). */
#define CUCKOO_DEFAULT_SEED 0

/* Registration, called in order by sqlite3_cuckoo_init(). */
CUCKOO_PRIVATE int cuckoo_register_functions(sqlite3 *db);
CUCKOO_PRIVATE int cuckoo_register_aggregates(sqlite3 *db);
CUCKOO_PRIVATE int cuckoo_register_vtab(sqlite3 *db);
CUCKOO_PRIVATE int cuckoo_register_stored(sqlite3 *db);

/*
** The item hash: the one way an SQL value becomes an item, for the
** functions, the aggregates, the virtual table and its store
** (docs/format.md#item-identity: INTEGER 42 == REAL 42.0, TEXT as UTF-8
** bytes, TEXT never equal to BLOB).
**
** A cksql_hasher is a seed with the XXH3 key of INTEGER items under it
** (cf_int_key), computed once by cksql_hasher_init().  cksql_item_hash()
** hashes v under it: SQLITE_OK with *pHash set, SQLITE_DONE for NULL (no
** hash), or SQLITE_NOMEM if converting TEXT to UTF-8 failed.  An INTEGER,
** the common item, is hashed inline (two multiplications) by
** cksql_hash_int(), which a caller that has already read an INTEGER
** value may call itself; every other type in cksql_item_hash_typed(), the
** out-of-line half (it takes every type), which a caller that has read
** the value's type (eType, from sqlite3_value_type()) may call itself:
** in a loadable extension every sqlite3_value_type() is a call through
** SQLite's table of functions, and a load of TEXT items in a transaction
** spends a few per row.
*/
typedef struct cksql_hasher {
  uint64_t seed;
  uint64_t key_int; /* cf_int_key(seed) */
} cksql_hasher;

static inline void cksql_hasher_init(cksql_hasher *h, uint64_t seed) {
  h->seed = seed;
  h->key_int = cf_int_key(seed);
}

CUCKOO_PRIVATE int cksql_item_hash_typed(sqlite3_value *v, int eType,
                                         uint64_t seed, uint64_t *pHash);

static inline uint64_t cksql_hash_int(const cksql_hasher *h, sqlite3_int64 v) {
  return cf_hash_int_keyed(h->key_int, v);
}

static inline int cksql_item_hash(const cksql_hasher *h, sqlite3_value *v,
                                  uint64_t *pHash) {
  int eType = sqlite3_value_type(v);
  if (eType == SQLITE_INTEGER) {
    *pHash = cksql_hash_int(h, sqlite3_value_int64(v));
    return SQLITE_OK;
  }
  return cksql_item_hash_typed(v, eType, h->seed, pHash);
}

/*
** Validate argument iArg (0-based) of function zFunc as a filter BLOB and
** open *f as a read-only view of it.  Returns SQLITE_OK, SQLITE_DONE if
** the value is NULL (nothing reported), or SQLITE_ERROR after reporting
** "zFunc: argument N is not a valid cuckoo filter: <why>" on ctx.
*/
CUCKOO_PRIVATE int cksql_open_arg(sqlite3_context *ctx, const char *zFunc,
                                  int iArg, sqlite3_value *v, cf_filter *f);

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
  "bucket_size=2|4|8, seed=<integer>, variant=plain|semisort (or just "        \
  "semisort)"
CUCKOO_PRIVATE void cksql_options_default(cksql_options *o);
CUCKOO_PRIVATE int cksql_parse_options(const char *zWho, const char *zOpts,
                                       cksql_options *o, char **pzErr);

/*
** Fill *p for capacity/error_rate/options, checking ranges and
** SQLITE_LIMIT_LENGTH of db.  On error returns SQLITE_ERROR or
** SQLITE_TOOBIG with *pzErr an sqlite3_mprintf() message naming zWho.
*/
CUCKOO_PRIVATE int cksql_params(sqlite3 *db, const char *zWho,
                                sqlite3_int64 capacity, double error_rate,
                                const cksql_options *o, cf_params *p,
                                char **pzErr);

/*
** Errors of the SQL layer, said once.
**
** cksql_result_error(): report zMsg, an sqlite3_mprintf() message (freed
** here; NULL means it could not be built: out of memory), as the error of
** ctx with result code rc (SQLITE_NOMEM reports out of memory).
**
** cksql_result_bad_arg(): "zFunc: <zMust> (got <v>)" for a bad argument.
**
** cksql_full_message(): the one wording of a refused insert,
**   "zWho: filter is full (N items stored, capacity C): <zWhat> did not
**   fit; <zRest>"
** where N is what the caller's filter (or table) holds, never a count of
** items that were not kept.  cksql_too_many_message(): the one wording of
** an item whose both buckets hold only its copies, in a filter of
** geometry p: 2b copies, or b when *pHash (NULL: not known) has its two
** buckets in one.  Both return an sqlite3_mprintf() string (caller
** frees), NULL if out of memory.
**
** cksql_geometry(): "buckets=M bucket_size=B fingerprint_bits=F
** variant=V seed=S", what two filters must share to be merged
** (sqlite3_mprintf(), caller frees).
**
** cksql_result_cf_error(): report a core result code of an operation on
** f as an SQL error naming zFunc; for CF_FULL, nStored is what the
** caller's filter holds and zWhat names what did not fit.
*/
CUCKOO_PRIVATE void cksql_result_error(sqlite3_context *ctx, int rc,
                                       char *zMsg);
CUCKOO_PRIVATE void cksql_result_bad_arg(sqlite3_context *ctx,
                                         const char *zFunc, const char *zMust,
                                         sqlite3_value *v);
CUCKOO_PRIVATE char *cksql_full_message(const char *zWho, uint64_t nStored,
                                        uint64_t nCapacity, const char *zWhat,
                                        const char *zRest);
CUCKOO_PRIVATE char *cksql_too_many_message(const char *zWho,
                                            const cf_params *p,
                                            const uint64_t *pHash);
CUCKOO_PRIVATE char *cksql_geometry(const cf_params *p);

/* Parse the whole of z as an integer, exactly: an optional sign, then
** decimal digits with an optional fraction and exponent whose value is a
** whole number ("1000", "1e6", "2.5e3"), or 0x and hex digits.  Returns 1
** with *pV set, 0 if z is not such a number, 2 if it is a whole number
** outside the range of a 64-bit signed integer. */
CUCKOO_PRIVATE int cksql_parse_int(const char *z, sqlite3_int64 *pV);
CUCKOO_PRIVATE void cksql_result_cf_error(sqlite3_context *ctx,
                                          const char *zFunc, int rc,
                                          const cf_filter *f, uint64_t nStored,
                                          const char *zWhat);

/*
** The creation arguments of cuckoo_new(capacity, error_rate, options) and
** cuckoo_agg(item, error_rate, capacity, options), read by one function.
** Any of the values may be a NULL pointer (argument not given) or an SQL
** NULL: error_rate and options take their defaults, capacity is 0 (the
** caller decides what that means: cuckoo_new returns NULL before calling,
** cuckoo_agg sizes the filter to the items).  capacity must be a positive
** integer (an integral REAL counts), error_rate a number, options TEXT
** (cksql_parse_options).  The geometry *pParams is cksql_params() for
** max(capacity, 1).  On error the message (naming zFunc; zCapNull is
** appended to the capacity rule) is reported on ctx and the result is not
** SQLITE_OK.
*/
typedef struct cksql_args {
  sqlite3_int64 capacity; /* 0: not given */
  double error_rate;
  cksql_options o;
  cf_params params;
} cksql_args;
CUCKOO_PRIVATE int cksql_read_args(sqlite3_context *ctx, const char *zFunc,
                                   sqlite3_value *pCapacity,
                                   sqlite3_value *pErrorRate,
                                   sqlite3_value *pOptions,
                                   const char *zCapNull, cksql_args *pArgs);

/* Describe a value for an error message: NULL, 42, 1.5, 'text' (at most
** 40 characters), or "a BLOB".  An sqlite3_mprintf() string (caller
** frees), NULL if out of memory. */
CUCKOO_PRIVATE char *cksql_describe_value(sqlite3_value *v);

#endif /* CUCKOO_SQL_H */
