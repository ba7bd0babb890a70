/*
** Copyright (c) 2026 the cuckoo authors.  MIT License: see LICENSE.
**
** cuckoo_func.c: the scalar SQL functions over filter BLOBs.
**
**   cuckoo_new(capacity [, error_rate [, options]])   -> empty filter
**   cuckoo_add(filter, item [, item ...])              -> filter
**   cuckoo_contains(filter, item)                      -> 1 / 0
**   cuckoo_remove(filter, item [, item ...])           -> filter
**   cuckoo_count(filter)                               -> integer
**   cuckoo_count(filter, item)                         -> integer
**   cuckoo_info(filter)                                -> JSON text
**   cuckoo_merge(a, b)                                 -> filter
**   cuckoo_version()                                   -> text
**
** Rules:
**   1. NULL filter -> NULL result.  NULL item -> ignored: add and remove
**      return the filter unchanged, contains returns NULL.  cuckoo_new
**      with a NULL capacity returns NULL; a NULL error_rate or options
**      means the default.
**   2. Items are hashed by cksql_item_hash() (see
**      docs/format.md#item-identity).
**   3. Every filter argument is validated by cf_open() (header fields
**      against the BLOB length) before a bucket is read.  A malformed BLOB
**      is an SQL error naming the function and the argument.
**   4. add/remove/merge work on a private copy and return it; on any error
**      (full, too many copies) the result is an error and no caller-visible
**      filter changed.
**   5. cuckoo_contains caches its filter with sqlite3_set_auxdata.  The
**      first row only validates the header (O(1)) and leaves a marker; only
**      if the marker survives to the second row (the argument is a
**      constant) is a private copy made and kept for the whole statement.
**      A filter that changes per row is never copied.
**   6. All functions are DETERMINISTIC and INNOCUOUS.
**   7. cuckoo_count(filter, item) is the number of copies of the item's
**      fingerprint in its two buckets (like RedisBloom's CF.COUNT): never
**      below the number of copies added, and exactly that number unless
**      another item shares the fingerprint and the buckets (then their
**      copies add up).  0 for an absent item; NULL for a NULL item.
*/
#include "cuckoo_sql.h"

#include <math.h>
#include <string.h>

/* Copy a validated filter into a fresh sqlite3_malloc64 buffer. */
static int ck_copy(sqlite3_context *ctx, cf_filter *f) {
  uint8_t *p = sqlite3_malloc64(f->blob_size);
  if (p == 0) {
    cksql_result_error(ctx, SQLITE_NOMEM, 0);
    return SQLITE_NOMEM;
  }
  memcpy(p, f->blob, f->blob_size);
  cf_rebase(f, p);
  return SQLITE_OK;
}

static void ck_result_filter(sqlite3_context *ctx, cf_filter *f) {
  sqlite3_result_blob64(ctx, f->blob, f->blob_size, sqlite3_free);
}

/*
** cuckoo_new(capacity [, error_rate [, options]])
*/
static void ck_new(sqlite3_context *ctx, int argc, sqlite3_value **argv) {
  cksql_args args;
  cf_filter f;
  void *buf;

  if (sqlite3_value_type(argv[0]) == SQLITE_NULL) return;
  if (cksql_read_args(ctx, "cuckoo_new", argv[0], argc > 1 ? argv[1] : 0,
                      argc > 2 ? argv[2] : 0, "", &args) != SQLITE_OK) {
    return;
  }
  buf = sqlite3_malloc64(cf_blob_size(&args.params));
  if (buf == 0) {
    cksql_result_error(ctx, SQLITE_NOMEM, 0);
    return;
  }
  cf_init(&f, &args.params, buf);
  ck_result_filter(ctx, &f);
}

/*
** Add (isAdd) or remove one copy of each of the items aHash[0..n) in
** order, through the core's batches (the same bytes as one at a time).
** Returns CF_OK, the first failed insert's code, or CF_CORRUPT if a
** removal found a copy while the count was 0.  (A count that reaches 0
** stays 0, so the removals that failed that way are exactly the ones not
** done whose item is still present at the end.)
*/
#define CK_UPDATE_CHUNK 64 /* items hashed and handed over at a time */
static int ck_update_batch(cf_filter *f, int isAdd, const uint64_t *aHash,
                           size_t n, size_t *piFail) {
  uint8_t aDone[CK_UPDATE_CHUNK];
  size_t i;
  int rc = CF_OK;
  if (isAdd) {
    *piFail = cf_insert_batch(f, aHash, n, &rc);
    return rc;
  }
  if (cf_remove_batch(f, aHash, n, aDone) < n && f->count == 0) {
    for (i = 0; i < n; i++) {
      if (!aDone[i] && cf_contains_hash(f, aHash[i])) {
        *piFail = i;
        return CF_CORRUPT;
      }
    }
  }
  return CF_OK;
}

/* Report the failure rc of argument iArg of zFunc on f, which held
** nStored items when the call began. */
static void ck_update_error(sqlite3_context *ctx, const char *zFunc, int rc,
                            const cf_filter *f, uint64_t nStored,
                            sqlite3_value *pArg, int iArg) {
  char *zItem = cksql_describe_value(pArg);
  char *zWhat =
      zItem ? sqlite3_mprintf("argument %d (%s)", iArg + 1, zItem) : 0;
  cksql_hasher hs;
  uint64_t h;
  cksql_hasher_init(&hs, f->p.seed);
  if (zWhat == 0) {
    cksql_result_error(ctx, SQLITE_NOMEM, 0);
  } else if (rc == CF_TOO_MANY && cksql_item_hash(&hs, pArg, &h) == SQLITE_OK) {
    /* the item's limit: 2b, or b when its two buckets are one */
    cksql_result_error(ctx, SQLITE_ERROR,
                       cksql_too_many_message(zFunc, &f->p, &h));
  } else {
    cksql_result_cf_error(ctx, zFunc, rc, f, nStored, zWhat);
  }
  sqlite3_free(zItem);
  sqlite3_free(zWhat);
}

/*
** cuckoo_add(filter, item, ...) and cuckoo_remove(filter, item, ...):
** one implementation, the operation chosen by the function's user data.
** Items are hashed CK_UPDATE_CHUNK at a time and handed to the core's
** batch; NULL items are skipped.  The first failure is the result, as if
** the items were handled one by one.
*/
static void ck_update(sqlite3_context *ctx, int argc, sqlite3_value **argv) {
  int isAdd = sqlite3_user_data(ctx) != 0;
  const char *zFunc = isAdd ? "cuckoo_add" : "cuckoo_remove";
  uint64_t aHash[CK_UPDATE_CHUNK];
  size_t nHash = 0;
  cf_filter f;
  uint64_t nStored;
  int aArg[CK_UPDATE_CHUNK]; /* argument index of each aHash[] */
  cksql_hasher hasher;
  int i, rc, rcHash;

  if (argc < 2) {
    cksql_result_error(
        ctx, SQLITE_ERROR,
        sqlite3_mprintf("%s: needs a filter and at least one item "
                        "(got %d argument%s)",
                        zFunc, argc, argc == 1 ? "" : "s"));
    return;
  }
  rc = cksql_open_arg(ctx, zFunc, 0, argv[0], &f);
  if (rc != SQLITE_OK) return; /* NULL -> NULL, or error reported */
  if (ck_copy(ctx, &f) != SQLITE_OK) return;
  nStored = f.count;
  cksql_hasher_init(&hasher, f.p.seed);
  for (i = 1; i <= argc; i++) {
    rcHash = SQLITE_OK;
    if (i < argc) {
      rcHash = cksql_item_hash(&hasher, argv[i], &aHash[nHash]);
      if (rcHash == SQLITE_DONE) continue;
      if (rcHash == SQLITE_OK) aArg[nHash++] = i;
    }
    if (nHash == CK_UPDATE_CHUNK || i == argc || rcHash != SQLITE_OK) {
      size_t iFail = 0;
      rc = ck_update_batch(&f, isAdd, aHash, nHash, &iFail);
      nHash = 0;
      if (rc != CF_OK) {
        ck_update_error(ctx, zFunc, rc, &f, nStored, argv[aArg[iFail]],
                        aArg[iFail]);
        sqlite3_free(f.blob);
        return;
      }
      if (rcHash != SQLITE_OK) {
        sqlite3_free(f.blob);
        cksql_result_error(ctx, SQLITE_NOMEM, 0);
        return;
      }
    }
  }
  ck_result_filter(ctx, &f);
}

/*
** cuckoo_contains(filter, item).  See rule 5 for the cache.
*/
typedef struct ck_cached {
  int isCopy; /* 0: first-row marker only; 1: f views our own copy */
  cf_filter f;
  cksql_hasher hasher; /* the item hash under f's seed (when isCopy) */
} ck_cached;

static void ck_cached_free(void *p) {
  ck_cached *c = (ck_cached *)p;
  if (c->isCopy) sqlite3_free(c->f.blob);
  sqlite3_free(c);
}

/* Every row but the common one (see ck_contains()); c is the auxdata. */
static CUCKOO_NOINLINE void
ck_contains_row(sqlite3_context *ctx, sqlite3_value **argv, ck_cached *c) {
  cf_filter fLocal;
  const cf_filter *f;
  cksql_hasher hasher;
  uint64_t h;
  int rc;

  if (c && c->isCopy) {
    f = &c->f;
  } else {
    rc = cksql_open_arg(ctx, "cuckoo_contains", 0, argv[0], &fLocal);
    if (rc != SQLITE_OK) return;
    f = &fLocal;
  }
  cksql_hasher_init(&hasher, f->p.seed);
  rc = cksql_item_hash(&hasher, argv[1], &h);
  if (rc == SQLITE_DONE) return;
  if (rc != SQLITE_OK) {
    cksql_result_error(ctx, SQLITE_NOMEM, 0);
    return;
  }
  sqlite3_result_int(ctx, cf_contains_hash(f, h));

  if (c == 0) {
    /* First row: leave a marker; it survives only for constants. */
    c = sqlite3_malloc64(sizeof(*c));
    if (c) {
      memset(c, 0, sizeof(*c));
      sqlite3_set_auxdata(ctx, 0, c, ck_cached_free);
    }
  } else if (!c->isCopy) {
    /* Second row with the same constant filter: keep a private copy. */
    ck_cached *n = sqlite3_malloc64(sizeof(*n));
    uint8_t *buf = sqlite3_malloc64(fLocal.blob_size);
    if (n && buf) {
      memcpy(buf, fLocal.blob, fLocal.blob_size);
      n->isCopy = 1;
      n->f = fLocal;
      cf_rebase(&n->f, buf);
      cksql_hasher_init(&n->hasher, n->f.p.seed);
      sqlite3_set_auxdata(ctx, 0, n, ck_cached_free);
    } else {
      sqlite3_free(n);
      sqlite3_free(buf);
    }
  }
}

/* The common row, a constant filter (already copied) and an item that
** is not NULL, kept apart from the rest so that it needs no stack frame
** to speak of (an INTEGER is hashed and looked up inline). */
static void ck_contains(sqlite3_context *ctx, int argc, sqlite3_value **argv) {
  ck_cached *c = (ck_cached *)sqlite3_get_auxdata(ctx, 0);
  uint64_t h;
  (void)argc;
  if (c && c->isCopy && cksql_item_hash(&c->hasher, argv[1], &h) == SQLITE_OK) {
    sqlite3_result_int(ctx, cf_contains_hash(&c->f, h));
    return;
  }
  ck_contains_row(ctx, argv, c);
}

/* cuckoo_count(filter) and cuckoo_count(filter, item): see rule 7. */
static void ck_count(sqlite3_context *ctx, int argc, sqlite3_value **argv) {
  cf_filter f;
  cksql_hasher hasher;
  uint64_t h;
  int rc;
  if (cksql_open_arg(ctx, "cuckoo_count", 0, argv[0], &f) != SQLITE_OK) return;
  if (argc == 1) {
    sqlite3_result_int64(ctx, (sqlite3_int64)f.count);
    return;
  }
  cksql_hasher_init(&hasher, f.p.seed);
  rc = cksql_item_hash(&hasher, argv[1], &h);
  if (rc == SQLITE_DONE) return;
  if (rc != SQLITE_OK) {
    cksql_result_error(ctx, SQLITE_NOMEM, 0);
    return;
  }
  sqlite3_result_int(ctx, (int)cf_copies(&f, cf_key_of(&f, h)));
}

/*
** cuckoo_info(filter): a JSON object describing the filter.
**
** The BLOB does not store the error_rate the filter was made for, only
** its fingerprint bits f, chosen as the smallest f with 2^f >= 2b /
** error_rate (at least cf_min_fp_bits(b)).  So the error_rate is known to
** lie in "error_rate_range" [2b/2^f, 2b/2^(f-1)), and when f is the
** minimum every looser error_rate up to 1 gives the same filter: then
** "error_rate_note" says so, with "fpr_at_capacity", the false-positive
** rate expected when capacity items are stored, which a loose error_rate
** overstates.
*/
static void ck_info(sqlite3_context *ctx, int argc, sqlite3_value **argv) {
  cf_filter f;
  char *z, *zNote = 0;
  double slots, lo, hi, fprCap;
  unsigned b, fp;
  (void)argc;
  if (cksql_open_arg(ctx, "cuckoo_info", 0, argv[0], &f) != SQLITE_OK) return;
  b = f.p.bucket_size;
  fp = f.p.fp_bits;
  slots = (double)f.p.nbuckets * b;
  lo = ldexp(2.0 * b, -(int)fp);
  hi = fp == cf_min_fp_bits(b) ? 1.0 : 2.0 * lo;
  if (hi > 1.0) hi = 1.0;
  fprCap = 1.0 - pow(1.0 - ((double)f.p.capacity / slots) /
                               (ldexp(1.0, (int)fp) - 1.0),
                     2.0 * b);
  if (fp == cf_min_fp_bits(b)) {
    zNote = sqlite3_mprintf(
        ",\"error_rate_note\":\"%u-bit fingerprints are the fewest bucket_size "
        "%u uses: any error_rate of %!.6g or more gives this filter, whose "
        "false-positive rate at capacity is about %!.3g, however loose the "
        "error_rate asked for\"",
        fp, b, lo, fprCap);
    if (zNote == 0) {
      cksql_result_error(ctx, SQLITE_NOMEM, 0);
      return;
    }
  }
  z = sqlite3_mprintf(
      "{\"version\":%d,\"variant\":\"%s\",\"capacity\":%llu,"
      "\"buckets\":%llu,\"bucket_size\":%u,\"fingerprint_bits\":%u,"
      "\"count\":%llu,\"load_factor\":%!.6g,\"bytes\":%llu,"
      "\"bits_per_item\":%!.6g,\"expected_fpr\":%!.6g,\"seed\":%llu,"
      "\"error_rate_range\":[%!.6g,%!.6g],\"fpr_at_capacity\":%!.6g%s}",
      CF_VERSION, f.semisort ? "semisort" : "plain",
      (unsigned long long)f.p.capacity, (unsigned long long)f.p.nbuckets, b, fp,
      (unsigned long long)f.count, (double)f.count / slots,
      (unsigned long long)f.blob_size,
      (double)f.table_size * 8.0 / (double)f.p.capacity, cf_expected_fpr(&f),
      (unsigned long long)f.p.seed, lo, hi, fprCap, zNote ? zNote : "");
  sqlite3_free(zNote);
  if (z == 0) {
    cksql_result_error(ctx, SQLITE_NOMEM, 0);
    return;
  }
  sqlite3_result_text(ctx, z, -1, sqlite3_free);
}

/* cuckoo_merge(a, b): the union of two compatible filters. */
static void ck_merge(sqlite3_context *ctx, int argc, sqlite3_value **argv) {
  cf_filter a, b;
  uint64_t nStored;
  int rc;
  (void)argc;
  if (cksql_open_arg(ctx, "cuckoo_merge", 0, argv[0], &a) != SQLITE_OK) return;
  if (cksql_open_arg(ctx, "cuckoo_merge", 1, argv[1], &b) != SQLITE_OK) return;
  if (ck_copy(ctx, &a) != SQLITE_OK) return;
  nStored = a.count;
  rc = cf_merge(&a, &b);
  if (rc == CF_MISMATCH) {
    char *zA = cksql_geometry(&a.p), *zB = cksql_geometry(&b.p);
    cksql_result_error(
        ctx, SQLITE_ERROR,
        zA && zB ? sqlite3_mprintf("cuckoo_merge: filters are not compatible: "
                                   "argument 1 has %s, argument 2 has %s; "
                                   "only filters made with the same "
                                   "capacity, error_rate and options can "
                                   "be merged",
                                   zA, zB)
                 : 0);
    sqlite3_free(zA);
    sqlite3_free(zB);
  } else if (rc != CF_OK) {
    cksql_result_cf_error(ctx, "cuckoo_merge", rc, &a, nStored,
                          "the items of argument 2");
  }
  if (rc != CF_OK) {
    sqlite3_free(a.blob);
    return;
  }
  ck_result_filter(ctx, &a);
}

static void ck_version(sqlite3_context *ctx, int argc, sqlite3_value **argv) {
  (void)argc;
  (void)argv;
  sqlite3_result_text(ctx, CUCKOO_VERSION, -1, SQLITE_STATIC);
}

int cuckoo_register_functions(sqlite3 *db) {
  static const struct {
    const char *zName;
    int nArg;
    int isAdd; /* user data for cuckoo_add / cuckoo_remove */
    void (*xFunc)(sqlite3_context *, int, sqlite3_value **);
  } aFunc[] = {
      {"cuckoo_new", 1, 0, ck_new},
      {"cuckoo_new", 2, 0, ck_new},
      {"cuckoo_new", 3, 0, ck_new},
      {"cuckoo_add", -1, 1, ck_update},
      {"cuckoo_remove", -1, 0, ck_update},
      {"cuckoo_contains", 2, 0, ck_contains},
      {"cuckoo_count", 1, 0, ck_count},
      {"cuckoo_count", 2, 0, ck_count},
      {"cuckoo_info", 1, 0, ck_info},
      {"cuckoo_merge", 2, 0, ck_merge},
      {"cuckoo_version", 0, 0, ck_version},
  };
  const int flags = SQLITE_UTF8 | SQLITE_DETERMINISTIC | SQLITE_INNOCUOUS;
  static int dummy;
  int rc = SQLITE_OK;
  size_t i;
  for (i = 0; rc == SQLITE_OK && i < sizeof(aFunc) / sizeof(aFunc[0]); i++) {
    rc = sqlite3_create_function(db, aFunc[i].zName, aFunc[i].nArg, flags,
                                 aFunc[i].isAdd ? (void *)&dummy : 0,
                                 aFunc[i].xFunc, 0, 0);
  }
  return rc;
}
