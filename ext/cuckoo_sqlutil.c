/*
** Copyright (c) 2026 the cuckoo authors.  MIT License: see LICENSE.
**
** cuckoo_sqlutil.c: helpers shared by the SQL layer: hashing SQL values
** into items, validating filter BLOB arguments with messages
** that name the function and argument, parsing creation options, and
** turning core result codes into SQL errors.
**
** Item identity (docs/format.md#item-identity): two values are one item
** exactly when SQLite's "=" without affinity says so.  INTEGER and REAL
** compare numerically, so a REAL that holds an integer value in int64
** range (including -0.0) hashes as that INTEGER; TEXT hashes as its UTF-8
** bytes whatever the database encoding; TEXT and BLOB hash in separate
** spaces, so 'abc' and x'616263' are different items.
*/
#include "cuckoo_sql.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

int cksql_item_hash_typed(sqlite3_value *v, int eType, uint64_t seed,
                          uint64_t *pHash) {
  switch (eType) {
  case SQLITE_INTEGER:
    *pHash = cf_hash_int(seed, sqlite3_value_int64(v));
    return SQLITE_OK;
  case SQLITE_FLOAT:
    *pHash = cf_hash_real(seed, sqlite3_value_double(v));
    return SQLITE_OK;
  case SQLITE_TEXT: {
    const unsigned char *z = sqlite3_value_text(v);
    int n = sqlite3_value_bytes(v);
    if (z == 0) return SQLITE_NOMEM; /* UTF-16 -> UTF-8 conversion failed */
    *pHash = cf_hash_text(seed, z, (size_t)n);
    return SQLITE_OK;
  }
  case SQLITE_BLOB: {
    const void *z = sqlite3_value_blob(v);
    int n = sqlite3_value_bytes(v);
    if (z == 0 && n > 0) return SQLITE_NOMEM;
    *pHash = cf_hash_blob(seed, z ? z : "", (size_t)n);
    return SQLITE_OK;
  }
  default: return SQLITE_DONE;
  }
}

int cksql_open_arg(sqlite3_context *ctx, const char *zFunc, int iArg,
                   sqlite3_value *v, cf_filter *f) {
  const void *p;
  int n;
  const char *zWhy = 0;
  char *zMsg;
  int eType = sqlite3_value_type(v);
  if (eType == SQLITE_NULL) return SQLITE_DONE;
  if (eType != SQLITE_BLOB) {
    zMsg = sqlite3_mprintf("%s: argument %d must be a cuckoo filter BLOB "
                           "(got %s)",
                           zFunc, iArg + 1,
                           eType == SQLITE_TEXT      ? "TEXT"
                           : eType == SQLITE_INTEGER ? "INTEGER"
                                                     : "REAL");
    goto report;
  }
  p = sqlite3_value_blob(v);
  n = sqlite3_value_bytes(v);
  if (p == 0 && n > 0) {
    cksql_result_error(ctx, SQLITE_NOMEM, 0);
    return SQLITE_ERROR;
  }
  if (cf_open(f, p, (size_t)n, &zWhy) == CF_OK) return SQLITE_OK;
  zMsg = sqlite3_mprintf("%s: argument %d is not a valid cuckoo filter: %s",
                         zFunc, iArg + 1, zWhy);
report:
  cksql_result_error(ctx, SQLITE_ERROR, zMsg);
  return SQLITE_ERROR;
}

void cksql_options_default(cksql_options *o) {
  o->bucket_size = CF_DEFAULT_BUCKET_SIZE;
  o->seed = CUCKOO_DEFAULT_SEED;
  o->flags = 0;
}

/* True if z[0..n) names an option that takes a value. */
static int cksql_is_key(const char *z, size_t n) {
  return (n == 11 && sqlite3_strnicmp(z, "bucket_size", 11) == 0) ||
         (n == 4 && sqlite3_strnicmp(z, "seed", 4) == 0) ||
         (n == 7 && sqlite3_strnicmp(z, "variant", 7) == 0);
}

/* The variant named by [z, zEnd): 0 plain, CF_FLAG_SEMISORT, or -1. */
static int cksql_variant(const char *z, const char *zEnd) {
  size_t n = (size_t)(zEnd - z);
  if (n == 5 && sqlite3_strnicmp(z, "plain", 5) == 0) return 0;
  if (n == 8 && sqlite3_strnicmp(z, "semisort", 8) == 0)
    return (int)CF_FLAG_SEMISORT;
  return -1;
}

/* Parse one unsigned decimal (or 0x hex) integer filling all of [z, zEnd). */
static int cksql_parse_u64(const char *z, const char *zEnd, uint64_t *pV) {
  char buf[32];
  char *zStop = 0;
  size_t n = (size_t)(zEnd - z);
  unsigned long long v;
  if (n == 0 || n >= sizeof(buf) || z[0] == '-' || z[0] == '+') return 0;
  memcpy(buf, z, n);
  buf[n] = 0;
  errno = 0;
  v = strtoull(buf, &zStop, 0);
  if (errno || zStop == 0 || *zStop != 0) return 0;
  *pV = (uint64_t)v;
  return 1;
}

static int cksql_hex_digit(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

/* Digit i of the digits a[0..nA) followed by b[0..). */
static int cksql_digit(const char *a, int nA, const char *b, int i) {
  return (i < nA ? a[i] : b[i - nA]) - '0';
}

int cksql_parse_int(const char *z, sqlite3_int64 *pV) {
  const char *zInt, *zFrac = "";
  int nInt = 0, nFrac = 0, n, iFirst, iLast, bNeg = 0, i;
  long long e = 0, k;
  uint64_t v = 0, lim;
  if (*z == '-' || *z == '+') bNeg = *z++ == '-';
  lim = (uint64_t)INT64_MAX + (uint64_t)bNeg;
  if (z[0] == '0' && (z[1] == 'x' || z[1] == 'X')) {
    int c;
    for (z += 2, n = 0; (c = cksql_hex_digit(*z)) >= 0; z++, n++) {
      if (v > (lim - (uint64_t)c) / 16) return 2;
      v = v * 16 + (uint64_t)c;
    }
    if (n == 0 || *z) return 0;
    goto done;
  }
  for (zInt = z; *z >= '0' && *z <= '9'; z++)
    nInt++;
  if (*z == '.') {
    for (zFrac = ++z; *z >= '0' && *z <= '9'; z++)
      nFrac++;
  }
  if (nInt + nFrac == 0) return 0;
  if (*z == 'e' || *z == 'E') {
    int bNegExp = 0;
    z++;
    if (*z == '-' || *z == '+') bNegExp = *z++ == '-';
    if (*z < '0' || *z > '9') return 0;
    for (; *z >= '0' && *z <= '9'; z++)
      if (e < 100000) e = e * 10 + (*z - '0');
    if (bNegExp) e = -e;
  }
  if (*z) return 0;
  /* The value: digits iFirst..iLast (the first and last not 0) times 10^k */
  n = nInt + nFrac;
  for (iFirst = 0; iFirst < n && cksql_digit(zInt, nInt, zFrac, iFirst) == 0;)
    iFirst++;
  if (iFirst == n) goto done; /* zero */
  for (iLast = n - 1; cksql_digit(zInt, nInt, zFrac, iLast) == 0;)
    iLast--;
  k = e - nFrac + (n - 1 - iLast);
  if (k < 0) return 0; /* a fraction */
  if (iLast - iFirst + 1 + k > 19) return 2;
  for (i = iFirst; i <= iLast; i++) {
    uint64_t d = (uint64_t)cksql_digit(zInt, nInt, zFrac, i);
    if (v > (lim - d) / 10) return 2;
    v = v * 10 + d;
  }
  for (; k > 0; k--) {
    if (v > lim / 10) return 2;
    v *= 10;
  }
done:
  if (!bNeg) {
    *pV = (sqlite3_int64)v;
  } else {
    *pV = v > (uint64_t)INT64_MAX ? INT64_MIN : -(sqlite3_int64)v;
  }
  return 1;
}

/* Option separators: commas and white space. */
static int cksql_is_sep(char c) {
  return c == ',' || c == ' ' || c == '\t' || c == '\n' || c == '\r';
}
static int cksql_is_space(char c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

int cksql_parse_options(const char *zWho, const char *zOpts, cksql_options *o,
                        char **pzErr) {
  const char *z = zOpts;
  *pzErr = 0;
  if (z == 0) return SQLITE_OK;
  while (*z) {
    const char *zKey, *zKeyEnd, *zVal, *zValEnd;
    uint64_t v;
    size_t nKey;
    while (cksql_is_sep(*z))
      z++;
    if (*z == 0) break;
    zKey = z;
    while (*z && *z != '=' && !cksql_is_sep(*z))
      z++;
    zKeyEnd = z;
    while (cksql_is_space(*z))
      z++;
    if (*z != '=') {
      int eVariant = cksql_variant(zKey, zKeyEnd);
      if (eVariant >= 0) { /* a bare "semisort" or "plain" */
        o->flags = (uint32_t)eVariant;
        continue;
      }
      nKey = (size_t)(zKeyEnd - zKey);
      *pzErr = sqlite3_mprintf(
          "%s: %s \"%.*s\"%s (valid options: " CKSQL_VALID_OPTIONS ")", zWho,
          cksql_is_key(zKey, nKey) ? "option" : "unknown option", (int)nKey,
          zKey, cksql_is_key(zKey, nKey) ? " needs a value" : "");
      return SQLITE_ERROR;
    }
    z++;
    while (cksql_is_space(*z))
      z++;
    zVal = z;
    while (*z && !cksql_is_sep(*z))
      z++;
    zValEnd = z;
    nKey = (size_t)(zKeyEnd - zKey);
    if (nKey == 11 && sqlite3_strnicmp(zKey, "bucket_size", 11) == 0) {
      if (!cksql_parse_u64(zVal, zValEnd, &v) || !cf_bucket_size_ok(v)) {
        *pzErr = sqlite3_mprintf("%s: bucket_size must be 2, 4 or 8 (got %.*s)",
                                 zWho, (int)(zValEnd - zVal), zVal);
        return SQLITE_ERROR;
      }
      o->bucket_size = (unsigned)v;
    } else if (nKey == 7 && sqlite3_strnicmp(zKey, "variant", 7) == 0) {
      int eVariant = cksql_variant(zVal, zValEnd);
      if (eVariant < 0) {
        *pzErr = sqlite3_mprintf("%s: variant must be plain or semisort "
                                 "(got %.*s)",
                                 zWho, (int)(zValEnd - zVal), zVal);
        return SQLITE_ERROR;
      }
      o->flags = (uint32_t)eVariant;
    } else if (nKey == 4 && sqlite3_strnicmp(zKey, "seed", 4) == 0) {
      if (!cksql_parse_u64(zVal, zValEnd, &v)) {
        *pzErr = sqlite3_mprintf("%s: seed must be an integer from 0 to "
                                 "18446744073709551615 (got %.*s)",
                                 zWho, (int)(zValEnd - zVal), zVal);
        return SQLITE_ERROR;
      }
      o->seed = v;
    } else {
      *pzErr = sqlite3_mprintf(
          "%s: unknown option \"%.*s\" (valid options: " CKSQL_VALID_OPTIONS
          ")",
          zWho, (int)nKey, zKey);
      return SQLITE_ERROR;
    }
  }
  return SQLITE_OK;
}

int cksql_params(sqlite3 *db, const char *zWho, sqlite3_int64 capacity,
                 double error_rate, const cksql_options *o, cf_params *p,
                 char **pzErr) {
  uint64_t nByte;
  *pzErr = 0;
  if (capacity < 1) {
    *pzErr = sqlite3_mprintf("%s: capacity must be a positive integer "
                             "(got %lld)",
                             zWho, capacity);
    return SQLITE_ERROR;
  }
  if (!(error_rate > 0.0 && error_rate < 1.0)) {
    *pzErr = sqlite3_mprintf("%s: error_rate must be > 0 and < 1 (got %g)",
                             zWho, error_rate);
    return SQLITE_ERROR;
  }
  if (cf_fp_bits_for(error_rate, o->bucket_size) == 0) {
    *pzErr = sqlite3_mprintf(
        "%s: error_rate %g needs more than 32-bit fingerprints "
        "(smallest allowed with bucket_size=%u is %g)",
        zWho, error_rate, o->bucket_size, 2.0 * o->bucket_size / 4294967296.0);
    return SQLITE_ERROR;
  }
  if ((o->flags & CF_FLAG_SEMISORT) && o->bucket_size != 4) {
    *pzErr = sqlite3_mprintf("%s: semisort needs bucket_size=4 (got "
                             "bucket_size=%u)",
                             zWho, o->bucket_size);
    return SQLITE_ERROR;
  }
  if (cf_params_for(p, (uint64_t)capacity, error_rate, o->bucket_size,
                    o->seed) == CF_OK &&
      (o->flags & CF_FLAG_SEMISORT)) {
    /* Semi-sorted buckets keep 4 high bits apart: at least 5 bits. */
    p->flags = CF_FLAG_SEMISORT;
    if (p->fp_bits < CF_SS_MIN_FP_BITS) p->fp_bits = CF_SS_MIN_FP_BITS;
  }
  if (cf_params_check(p) != CF_OK) {
    *pzErr = sqlite3_mprintf("%s: capacity %lld is too large (a filter has "
                             "at most 4294967294 buckets of %u slots)",
                             zWho, capacity, o->bucket_size);
    return SQLITE_ERROR;
  }
  nByte = cf_blob_size(p);
  if (db && nByte > (uint64_t)sqlite3_limit(db, SQLITE_LIMIT_LENGTH, -1)) {
    *pzErr = sqlite3_mprintf(
        "%s: a filter for %lld items at error_rate %g needs %llu bytes, "
        "more than SQLITE_LIMIT_LENGTH (%d)",
        zWho, capacity, error_rate, (unsigned long long)nByte,
        sqlite3_limit(db, SQLITE_LIMIT_LENGTH, -1));
    return SQLITE_TOOBIG;
  }
  return SQLITE_OK;
}

void cksql_result_error(sqlite3_context *ctx, int rc, char *zMsg) {
  if (rc == SQLITE_NOMEM || zMsg == 0) {
    sqlite3_result_error_nomem(ctx);
  } else {
    sqlite3_result_error(ctx, zMsg, -1);
    if (rc != SQLITE_ERROR) sqlite3_result_error_code(ctx, rc);
  }
  sqlite3_free(zMsg);
}

void cksql_result_bad_arg(sqlite3_context *ctx, const char *zFunc,
                          const char *zMust, sqlite3_value *v) {
  char *zGot = cksql_describe_value(v);
  cksql_result_error(
      ctx, SQLITE_ERROR,
      zGot ? sqlite3_mprintf("%s: %s (got %s)", zFunc, zMust, zGot) : 0);
  sqlite3_free(zGot);
}

char *cksql_full_message(const char *zWho, uint64_t nStored, uint64_t nCapacity,
                         const char *zWhat, const char *zRest) {
  return sqlite3_mprintf("%s: filter is full (%llu item%s stored, capacity "
                         "%llu): %s did not fit; %s",
                         zWho, (unsigned long long)nStored,
                         nStored == 1 ? "" : "s", (unsigned long long)nCapacity,
                         zWhat, zRest);
}

char *cksql_too_many_message(const char *zWho, const cf_params *p,
                             const uint64_t *pHash) {
  if (pHash) {
    cf_key k = cf_key_in(p, *pHash);
    if (cf_alt_in(p, k.i1, k.fp) == k.i1) {
      return sqlite3_mprintf("%s: too many copies of one item (at most %u "
                             "copies of this item fit: its two buckets are "
                             "the same bucket, full of it); nothing was "
                             "changed",
                             zWho, p->bucket_size);
    }
  }
  return sqlite3_mprintf("%s: too many copies of one item (at most %u copies "
                         "of an item fit: both of its buckets are full of "
                         "it); nothing was changed",
                         zWho, 2 * p->bucket_size);
}

char *cksql_geometry(const cf_params *p) {
  return sqlite3_mprintf(
      "buckets=%llu bucket_size=%u fingerprint_bits=%u variant=%s seed=%llu",
      (unsigned long long)p->nbuckets, p->bucket_size, p->fp_bits,
      (p->flags & CF_FLAG_SEMISORT) ? "semisort" : "plain",
      (unsigned long long)p->seed);
}

void cksql_result_cf_error(sqlite3_context *ctx, const char *zFunc, int rc,
                           const cf_filter *f, uint64_t nStored,
                           const char *zWhat) {
  char *zMsg = 0;
  switch (rc) {
  case CF_FULL:
    zMsg = cksql_full_message(zFunc, nStored, f->p.capacity, zWhat,
                              "nothing was changed; a filter does not "
                              "grow: build it again with a larger "
                              "capacity, cuckoo_agg(item, error_rate, "
                              "capacity) or cuckoo_new(capacity), or use "
                              "a cuckoo virtual table, which grows");
    break;
  case CF_TOO_MANY: zMsg = cksql_too_many_message(zFunc, &f->p, 0); break;
  case CF_CORRUPT:
    zMsg = sqlite3_mprintf("%s: argument 1 is not a valid cuckoo filter: "
                           "its item count does not match its contents",
                           zFunc);
    break;
  default: zMsg = sqlite3_mprintf("%s: internal error %d", zFunc, rc); break;
  }
  cksql_result_error(ctx, SQLITE_ERROR, zMsg);
}

/* Read a capacity argument: 0 for NULL, else a positive integer (an
** integral REAL counts); -1 if it is neither. */
static sqlite3_int64 cksql_capacity_arg(sqlite3_value *v) {
  int t;
  if (v == 0 || sqlite3_value_type(v) == SQLITE_NULL) return 0;
  t = sqlite3_value_numeric_type(v);
  if (t == SQLITE_FLOAT &&
      sqlite3_value_double(v) == (double)sqlite3_value_int64(v)) {
    t = SQLITE_INTEGER;
  }
  if (t != SQLITE_INTEGER || sqlite3_value_int64(v) < 1) return -1;
  return sqlite3_value_int64(v);
}

int cksql_read_args(sqlite3_context *ctx, const char *zFunc,
                    sqlite3_value *pCapacity, sqlite3_value *pErrorRate,
                    sqlite3_value *pOptions, const char *zCapNull,
                    cksql_args *pArgs) {
  char *zErr = 0;
  int rc;
  memset(pArgs, 0, sizeof(*pArgs));
  pArgs->error_rate = CF_DEFAULT_ERROR_RATE;
  cksql_options_default(&pArgs->o);
  pArgs->capacity = cksql_capacity_arg(pCapacity);
  if (pArgs->capacity < 0) {
    char *zMust =
        sqlite3_mprintf("capacity must be a positive integer%s", zCapNull);
    if (zMust == 0) {
      cksql_result_error(ctx, SQLITE_NOMEM, 0);
      return SQLITE_NOMEM;
    }
    cksql_result_bad_arg(ctx, zFunc, zMust, pCapacity);
    sqlite3_free(zMust);
    return SQLITE_ERROR;
  }
  if (pErrorRate && sqlite3_value_type(pErrorRate) != SQLITE_NULL) {
    int t = sqlite3_value_numeric_type(pErrorRate);
    if (t != SQLITE_INTEGER && t != SQLITE_FLOAT) {
      cksql_result_bad_arg(ctx, zFunc,
                           "error_rate must be a number > 0 and < 1, or "
                           "NULL for the default",
                           pErrorRate);
      return SQLITE_ERROR;
    }
    pArgs->error_rate = sqlite3_value_double(pErrorRate);
  }
  if (pOptions && sqlite3_value_type(pOptions) != SQLITE_NULL) {
    const char *z;
    if (sqlite3_value_type(pOptions) != SQLITE_TEXT) {
      cksql_result_bad_arg(ctx, zFunc,
                           "options must be TEXT such as "
                           "'bucket_size=8, seed=7'",
                           pOptions);
      return SQLITE_ERROR;
    }
    z = (const char *)sqlite3_value_text(pOptions);
    if (z == 0) {
      cksql_result_error(ctx, SQLITE_NOMEM, 0);
      return SQLITE_NOMEM;
    }
    if (cksql_parse_options(zFunc, z, &pArgs->o, &zErr) != SQLITE_OK) {
      cksql_result_error(ctx, SQLITE_ERROR, zErr);
      return SQLITE_ERROR;
    }
  }
  rc = cksql_params(sqlite3_context_db_handle(ctx), zFunc,
                    pArgs->capacity ? pArgs->capacity : 1, pArgs->error_rate,
                    &pArgs->o, &pArgs->params, &zErr);
  if (rc != SQLITE_OK) cksql_result_error(ctx, rc, zErr);
  return rc;
}

char *cksql_describe_value(sqlite3_value *v) {
  switch (sqlite3_value_type(v)) {
  case SQLITE_NULL: return sqlite3_mprintf("NULL");
  case SQLITE_INTEGER: return sqlite3_mprintf("%lld", sqlite3_value_int64(v));
  case SQLITE_FLOAT: return sqlite3_mprintf("%!.15g", sqlite3_value_double(v));
  case SQLITE_TEXT: return sqlite3_mprintf("'%.40q'", sqlite3_value_text(v));
  default: return sqlite3_mprintf("a BLOB");
  }
}
