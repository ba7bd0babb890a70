/*
** Copyright (c) 2026 the cuckoo authors.  MIT License: see LICENSE.
**
** model_test.c: a model-based randomized test of the whole extension,
** with SQLite and the extension linked statically (-DSQLITE_CORE).
**
**   build/model_test [--ops N] [--seed S] [--jobs J] [--dir DIR] [--quiet]
**
** N operations (default 400000, a quarter of that with
** CUCKOO_SANITIZED=1; --jobs J: J processes with seeds S .. S+J-1 share
** them, and the totals are added up; `make test-long` runs 10^8 in 2 jobs)
** run against two subjects, each checked step by step against an exact
** multiset kept here:
**
**   F, a filter BLOB driven through the scalar functions: cuckoo_add (one
**     and three items), cuckoo_remove (of present items only: the paper's
**     "delete only what you added"), cuckoo_contains, cuckoo_count,
**     cuckoo_merge with filters built by the fixed-geometry cuckoo_agg or
**     by cuckoo_union over shards, its replacement by a cuckoo_agg build
**     (exact size or fixed capacity), and cuckoo_agg as a window function
**     over sliding frames.  Geometry, variant, seed and error rate vary.
**   V, a cuckoo virtual table in a database file: INSERT (one row, three
**     rows, bulk INSERT ... SELECT), INSERT OR IGNORE, DELETE, UPDATE,
**     lookups by = and IN, BEGIN / COMMIT / ROLLBACK, SAVEPOINT /
**     RELEASE / ROLLBACK TO (an undo log keeps the model in step), closing
**     and reopening the database, a second connection that reads, two
**     connections taking turns at writing (one table in five on a shared
**     page cache), a WAL read transaction of one kept over the other's
**     commits, cuckoo_check(), export of every level into a new table,
**     and growth (small capacities, small blocks and a tiny block cache,
**     so that the table grows, flushes and evicts all the time).  Options
**     and journal mode vary between tables.
**
** Items are every kind of SQL value (INTEGER, also bound as the equal
** REAL; REAL; ASCII and non-ASCII TEXT; BLOB), generated from 64-bit ids
** by item_bind() here and by ITEM_SQL() in SQL, the same mapping.
**
** Properties (each reported with the number of times it was checked; the
** run passes when none was violated):
**   1. No false negative: an item the model holds is always found, right
**      after each change to it, by random probes, and by a sweep over
**      every item the model holds (about once per model-size operations).
**   2. Exact counts: cuckoo_count(F) equals the model's number of copies
**      after every change; a cuckoo_agg build holds exactly its distinct
**      items; a window frame's filter holds exactly the frame's distinct
**      items; the table's count is never below the model's.
**   3. Only the documented errors: "full" and "too many copies", which
**      change nothing (the model keeps the old state and is re-checked).
**      A tiny filter with a fixed capacity can refuse an item below that
**      capacity (docs/reference.md#limits): allowed for the
**      fixed-capacity builds.
**   4. cuckoo_merge keeps, per fingerprint and bucket pair, the larger
**      number of copies of its two arguments (checked on every item's
**      pair with the core's cf_copies()).  Two different items of one
**      pair are one fingerprint to a union
**      (docs/reference.md#cuckoo_merge): the model then keeps as many
**      copies as the filter holds ("merge collapses" in the report,
**      normally a handful).
**   5. The table mirrors the model: INSERT OR IGNORE adds exactly when a
**      lookup just before found nothing (changes() agrees); ROLLBACK and
**      ROLLBACK TO bring back what they undo; a COMMIT that kept an insert
**      moves the table's cookie by exactly one, any other by at most one,
**      a ROLLBACK not at all (v_cookie_check); a DELETE may leave an item
**      that matches on several levels in place
**      (docs/virtual-table.md#growth), so "still found after its last copy
**      was deleted" is allowed, never "not found while present".
**   6. cuckoo_check() is 'ok' and PRAGMA integrity_check is 'ok'.
**   7. False-positive rate: probes of ids never added, counted against
**      each filter's or table's error_rate: the positives must not exceed
**      the sum of the targets by more than 5 standard deviations.  The
**      report gives the measured rate, the target and the rate expected
**      at the probed loads (cuckoo_info / cuckoo_table_info).
**
** Deterministic for a seed: a failure report names the seed and the
** operation number.  The last line is "model_test: N passed, N failed"
** (one per property).
*/
#include <sqlite3.h>

#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* The core's private header: the model recomputes keys and alternate
** buckets with cf_key_from() and cf_alt_bucket(). */
#include "cuckoo_core_int.h"
#include "testlib.h"

int sqlite3_cuckoo_init(sqlite3 *db, char **pzErr, const void *pApi);

/* ---------------------------------------------------------------------
** Random numbers (splitmix64: deterministic for a seed)
*/
static uint64_t g_rng;
static uint64_t rnd(void) { return tl_rnd(&g_rng); }
static uint64_t rnd_below(uint64_t n) { return n ? rnd() % n : 0; }
static int chance(double p) {
  return (double)(rnd() >> 11) < p * 9007199254740992.0;
}

/* ---------------------------------------------------------------------
** Properties and failures
*/
enum {
  P_NO_FALSE_NEG,
  P_COUNT,
  P_ERRORS,
  P_MERGE,
  P_AGG,
  P_WINDOW,
  P_VTAB_MIRROR,
  P_ROLLBACK,
  P_CHECK,
  P_FPR_F,
  P_FPR_V,
  P_N
};
static const char *azProp[P_N] = {
    "no false negative",
    "exact counts",
    "only documented errors, which change nothing",
    "merge keeps the larger copy count per pair",
    "cuckoo_agg / cuckoo_union builds hold their items",
    "window frames hold exactly their distinct items",
    "table mirrors the model (OR IGNORE, changes())",
    "ROLLBACK / ROLLBACK TO restore what they undo",
    "cuckoo_check and integrity_check ok",
    "false-positive rate of filters within target",
    "false-positive rate of tables within target",
};
static uint64_t aChecked[P_N], aViolated[P_N];
static uint64_t g_op;       /* current operation number */
static uint64_t g_seed;     /* the run's seed */
static int g_nReported = 0; /* failure messages printed */

static void fail(int prop, const char *zFmt, ...) {
  va_list ap;
  aChecked[prop]++;
  aViolated[prop]++;
  if (g_nReported++ >= 30) return;
  printf("! seed %llu op %llu: %s: ", (unsigned long long)g_seed,
         (unsigned long long)g_op, azProp[prop]);
  va_start(ap, zFmt);
  vprintf(zFmt, ap);
  va_end(ap);
  printf("\n");
  fflush(stdout);
}
#define PROP_CHECK(prop, cond, ...)                                            \
  do {                                                                         \
    if (cond)                                                                  \
      aChecked[prop]++;                                                        \
    else                                                                       \
      fail(prop, __VA_ARGS__);                                                 \
  } while (0)

/* ---------------------------------------------------------------------
** Items: a 64-bit id (below 2^50) is an SQL value of kind id % 5.
*/
#define ITEM_SQL(x)                                                            \
  "(CASE (" x ") % 5 WHEN 0 THEN (" x ") WHEN 1 THEN 'k' || (" x ") "          \
  "WHEN 2 THEN (" x ") + 0.25 WHEN 3 THEN CAST('b' || (" x ") AS BLOB) "       \
  "ELSE 'é' || (" x ") END)"

/* Bytes of a TEXT or BLOB item; returns its length. */
static int item_bytes(uint64_t id, char *z) {
  switch (id % 5) {
  case 1: return sprintf(z, "k%llu", (unsigned long long)id);
  case 3: return sprintf(z, "b%llu", (unsigned long long)id);
  default: return sprintf(z, "\xc3\xa9%llu", (unsigned long long)id);
  }
}

/* Bind item id; bReal: an INTEGER item as the equal REAL (same item). */
static void item_bind(sqlite3_stmt *s, int i, uint64_t id, int bReal) {
  char z[40];
  int n;
  switch (id % 5) {
  case 0:
    if (bReal)
      sqlite3_bind_double(s, i, (double)id);
    else
      sqlite3_bind_int64(s, i, (sqlite3_int64)id);
    break;
  case 2: sqlite3_bind_double(s, i, (double)id + 0.25); break;
  case 3:
    n = item_bytes(id, z);
    sqlite3_bind_blob(s, i, z, n, SQLITE_TRANSIENT);
    break;
  default:
    n = item_bytes(id, z);
    sqlite3_bind_text(s, i, z, n, SQLITE_TRANSIENT);
    break;
  }
}

static uint64_t item_hash(uint64_t seed, uint64_t id) {
  char z[40];
  int n;
  switch (id % 5) {
  case 0: return cf_hash_int(seed, (int64_t)id);
  case 2: return cf_hash_real(seed, (double)id + 0.25);
  case 3: n = item_bytes(id, z); return cf_hash_blob(seed, z, (size_t)n);
  default: n = item_bytes(id, z); return cf_hash_text(seed, z, (size_t)n);
  }
}

/* Ids never added to anything: probes for the false-positive rate. */
static uint64_t g_nextAbsent = (uint64_t)1 << 48;
static uint64_t absent_id(void) { return g_nextAbsent++; }

/* ---------------------------------------------------------------------
** The model: a multiset of ids (open addressing, linear probing with
** backward-shift deletion) plus a dense list of the distinct ids present,
** for picking one uniformly.
*/
typedef struct mslot {
  uint64_t key; /* id + 1; 0: empty */
  int64_t n;    /* copies */
  uint64_t pos; /* index in aList */
} mslot;

typedef struct mset {
  mslot *a;
  uint64_t nSlot; /* power of two */
  uint64_t *aList;
  uint64_t nList, nListAlloc;
  int64_t nTotal; /* copies of all items */
} mset;

static void *xalloc(void *p, size_t n) {
  void *q = realloc(p, n ? n : 1);
  if (q == 0) {
    fprintf(stderr, "model_test: out of memory\n");
    exit(2);
  }
  return q;
}

static void mset_init(mset *m) {
  memset(m, 0, sizeof(*m));
  m->nSlot = 1024;
  m->a = xalloc(0, sizeof(mslot) * m->nSlot);
  memset(m->a, 0, sizeof(mslot) * m->nSlot);
}
static void mset_free(mset *m) {
  free(m->a);
  free(m->aList);
  memset(m, 0, sizeof(*m));
}
static void mset_clear(mset *m) {
  mset_free(m);
  mset_init(m);
}

static uint64_t mset_home(const mset *m, uint64_t key) {
  return (key * 0x9E3779B97F4A7C15ULL >> 17) & (m->nSlot - 1);
}
static mslot *mset_find(const mset *m, uint64_t id) {
  uint64_t i, key = id + 1;
  for (i = mset_home(m, key);; i = (i + 1) & (m->nSlot - 1)) {
    if (m->a[i].key == key) return &m->a[i];
    if (m->a[i].key == 0) return 0;
  }
}
static int64_t mset_get(const mset *m, uint64_t id) {
  mslot *s = mset_find(m, id);
  return s ? s->n : 0;
}
static void mset_grow(mset *m) {
  mslot *aOld = m->a;
  uint64_t nOld = m->nSlot, i;
  m->nSlot *= 2;
  m->a = xalloc(0, sizeof(mslot) * m->nSlot);
  memset(m->a, 0, sizeof(mslot) * m->nSlot);
  for (i = 0; i < nOld; i++) {
    if (aOld[i].key) {
      uint64_t j = mset_home(m, aOld[i].key);
      while (m->a[j].key)
        j = (j + 1) & (m->nSlot - 1);
      m->a[j] = aOld[i];
    }
  }
  free(aOld);
}
/* Remove the slot at i (backward-shift), fixing the moved entries. */
static void mset_erase(mset *m, uint64_t i) {
  uint64_t j = i;
  for (;;) {
    uint64_t home;
    j = (j + 1) & (m->nSlot - 1);
    if (m->a[j].key == 0) break;
    home = mset_home(m, m->a[j].key);
    /* can the entry at j move to i? (home not cyclically in (i, j]) */
    if ((j > i && (home <= i || home > j)) ||
        (j < i && (home <= i && home > j))) {
      m->a[i] = m->a[j];
      i = j;
    }
  }
  m->a[i].key = 0;
}
/* Add delta copies of id (delta may be negative); returns the new count. */
static int64_t mset_add(mset *m, uint64_t id, int64_t delta) {
  uint64_t key = id + 1, i;
  mslot *s;
  if (delta == 0) return mset_get(m, id);
  if ((m->nList + 1) * 2 > m->nSlot) mset_grow(m);
  for (i = mset_home(m, key);; i = (i + 1) & (m->nSlot - 1)) {
    if (m->a[i].key == key || m->a[i].key == 0) break;
  }
  s = &m->a[i];
  if (s->key == 0) {
    if (delta < 0) {
      fprintf(stderr, "model_test: internal error: removing an absent id\n");
      exit(2);
    }
    if (m->nList == m->nListAlloc) {
      m->nListAlloc = m->nListAlloc ? 2 * m->nListAlloc : 1024;
      m->aList = xalloc(m->aList, sizeof(uint64_t) * m->nListAlloc);
    }
    s->key = key;
    s->n = 0;
    s->pos = m->nList;
    m->aList[m->nList++] = id;
  }
  s->n += delta;
  m->nTotal += delta;
  if (s->n <= 0) {
    int64_t n = s->n;
    uint64_t pos = s->pos, last = m->aList[--m->nList];
    if (n < 0) {
      fprintf(stderr, "model_test: internal error: negative count\n");
      exit(2);
    }
    mset_erase(m, i);
    if (pos < m->nList) {
      m->aList[pos] = last;
      mset_find(m, last)->pos = pos;
    }
    return 0;
  }
  return s->n;
}
static uint64_t mset_random(const mset *m) {
  return m->aList[rnd_below(m->nList)];
}

/* ---------------------------------------------------------------------
** SQL helpers
*/
/* Step a statement expected to give one row; returns SQLITE_ROW or the
** error code (the statement is left for the caller to reset). */
static int step1(sqlite3_stmt *s) { return sqlite3_step(s); }
static void done(sqlite3_stmt *s) {
  sqlite3_reset(s);
  sqlite3_clear_bindings(s);
}
/* Is zErr one of the documented refusals that change nothing? */
static int allowed_refusal(const char *zErr) {
  return strstr(zErr, "is full") || strstr(zErr, "filter is full") ||
         strstr(zErr, "too many copies") || strstr(zErr, "does not fit");
}
static int64_t one_int(sqlite3 *db, const char *zSql) {
  sqlite3_stmt *s = tl_prep(db, zSql);
  int64_t v = -1;
  if (sqlite3_step(s) == SQLITE_ROW) v = sqlite3_column_int64(s, 0);
  sqlite3_finalize(s);
  return v;
}

/* ---------------------------------------------------------------------
** False-positive statistics
*/
typedef struct fpstat {
  uint64_t nProbe, nPos;
  double sumTarget;   /* sum over probes of the target rate */
  double sumExpected; /* sum over probes of the rate expected at the load */
} fpstat;

static void fp_report(const char *zWhat, const fpstat *s, int prop) {
  double bound = s->sumTarget + 5.0 * sqrt(s->sumTarget) + 5.0;
  printf("%s: %llu false positives in %llu probes of absent items: "
         "measured %.5f%%, target %.5f%%, expected at the probed loads "
         "%.5f%% (measured/target %.3f)\n",
         zWhat, (unsigned long long)s->nPos, (unsigned long long)s->nProbe,
         s->nProbe ? 100.0 * (double)s->nPos / (double)s->nProbe : 0.0,
         s->nProbe ? 100.0 * s->sumTarget / (double)s->nProbe : 0.0,
         s->nProbe ? 100.0 * s->sumExpected / (double)s->nProbe : 0.0,
         s->sumTarget > 0 ? (double)s->nPos / s->sumTarget : 0.0);
  PROP_CHECK(prop, (double)s->nPos <= bound,
             "%s: %llu false positives, more than the bound %.1f", zWhat,
             (unsigned long long)s->nPos, bound);
}

/* ---------------------------------------------------------------------
** Subject F: a filter BLOB through the scalar functions and aggregates
*/
typedef struct fsub {
  sqlite3 *db; /* in-memory connection for the functions */
  uint8_t *a;  /* the current filter */
  int n;
  cf_filter cf; /* view of a (parameters, cf_copies) */
  mset m;
  double er;
  int64_t cap;
  char zOpts[64];
  int bNew; /* made as cuckoo_new(cap, er, zOpts): fixed aggs merge */
  uint64_t base, pool; /* ids are drawn from [base, base + pool) */
  double expectedFpr;  /* cuckoo_info's expected_fpr, refreshed */
  uint64_t nSinceSweep;
  fpstat fp;
  sqlite3_stmt *sAdd1, *sAdd3, *sRemove, *sContains, *sCount, *sMerge, *sFpr;
  uint64_t nCollapse, nRefused, nMerge, nAgg, nWindow, nSweep;
} fsub;

static void f_set(fsub *F, const void *p, int n) {
  const char *zWhy = 0;
  F->a = xalloc(F->a, (size_t)n);
  memcpy(F->a, p, (size_t)n);
  F->n = n;
  if (cf_open(&F->cf, F->a, (size_t)n, &zWhy) != CF_OK) {
    fail(P_ERRORS, "a function returned an invalid filter: %s", zWhy);
  }
}

static double f_fpr(fsub *F) {
  double r = 0;
  sqlite3_bind_blob(F->sFpr, 1, F->a, F->n, SQLITE_STATIC);
  if (step1(F->sFpr) == SQLITE_ROW) r = sqlite3_column_double(F->sFpr, 0);
  done(F->sFpr);
  return r;
}

static int64_t f_count_of(fsub *F, const void *p, int n) {
  int64_t c = -1;
  sqlite3_bind_blob(F->sCount, 1, p, n, SQLITE_STATIC);
  if (step1(F->sCount) == SQLITE_ROW) c = sqlite3_column_int64(F->sCount, 0);
  done(F->sCount);
  return c;
}

/* cuckoo_contains(p, id): 1, 0, or -1 on error. */
static int f_contains_in(fsub *F, const void *p, int n, uint64_t id) {
  int r = -1;
  sqlite3_bind_blob(F->sContains, 1, p, n, SQLITE_STATIC);
  item_bind(F->sContains, 2, id, id % 5 == 0 && chance(0.3));
  if (step1(F->sContains) == SQLITE_ROW)
    r = sqlite3_column_int(F->sContains, 0);
  done(F->sContains);
  return r;
}

static void f_expect_found(fsub *F, uint64_t id, const char *zWhen) {
  int r = f_contains_in(F, F->a, F->n, id);
  PROP_CHECK(P_NO_FALSE_NEG, r == 1,
             "filter: item %llu (%lld copies) not found %s",
             (unsigned long long)id, (long long)mset_get(&F->m, id), zWhen);
}

static void f_expect_count(fsub *F, const char *zWhen) {
  int64_t c = f_count_of(F, F->a, F->n);
  PROP_CHECK(P_COUNT, c == F->m.nTotal, "cuckoo_count %lld, model %lld %s",
             (long long)c, (long long)F->m.nTotal, zWhen);
}

/* A new empty filter of random geometry. */
static void f_recreate(fsub *F) {
  static const double aEr[] = {0.05, 0.01, 0.001, 0.0001};
  static const char *azOpt[] = {
      "",          "bucket_size=2",      "bucket_size=8",           "semisort",
      "seed=%llu", "semisort seed=%llu", "bucket_size=8, seed=%llu"};
  static const int64_t aCap[] = {20, 100, 500, 2000, 8000};
  sqlite3_stmt *s;
  const char *zOpt = azOpt[rnd_below(7)];
  F->er = aEr[rnd_below(4)];
  F->cap = aCap[rnd_below(5)] + (int64_t)rnd_below(50);
  snprintf(F->zOpts, sizeof(F->zOpts), zOpt, (unsigned long long)(rnd() >> 1));
  s = tl_prep(F->db, "SELECT cuckoo_new(?1, ?2, ?3)");
  sqlite3_bind_int64(s, 1, F->cap);
  sqlite3_bind_double(s, 2, F->er);
  sqlite3_bind_text(s, 3, F->zOpts, -1, SQLITE_STATIC);
  if (sqlite3_step(s) != SQLITE_ROW) {
    fprintf(stderr, "model_test: cuckoo_new: %s\n", sqlite3_errmsg(F->db));
    exit(2);
  }
  f_set(F, sqlite3_column_blob(s, 0), sqlite3_column_bytes(s, 0));
  sqlite3_finalize(s);
  mset_clear(&F->m);
  F->bNew = 1;
  F->base = rnd_below((uint64_t)1 << 40);
  F->pool = (uint64_t)F->cap * 2 + 10;
  F->expectedFpr = 0;
}

static void f_init(fsub *F) {
  memset(F, 0, sizeof(*F));
  if (sqlite3_open(":memory:", &F->db) != SQLITE_OK) exit(2);
  mset_init(&F->m);
  F->sAdd1 = tl_prep(F->db, "SELECT cuckoo_add(?1, ?2)");
  F->sAdd3 = tl_prep(F->db, "SELECT cuckoo_add(?1, ?2, ?3, ?4)");
  F->sRemove = tl_prep(F->db, "SELECT cuckoo_remove(?1, ?2)");
  F->sContains = tl_prep(F->db, "SELECT cuckoo_contains(?1, ?2)");
  F->sCount = tl_prep(F->db, "SELECT cuckoo_count(?1)");
  F->sMerge = tl_prep(F->db, "SELECT cuckoo_merge(?1, ?2)");
  F->sFpr =
      tl_prep(F->db, "SELECT json_extract(cuckoo_info(?1), '$.expected_fpr')");
  f_recreate(F);
}

static void f_close(fsub *F) {
  sqlite3_finalize(F->sAdd1);
  sqlite3_finalize(F->sAdd3);
  sqlite3_finalize(F->sRemove);
  sqlite3_finalize(F->sContains);
  sqlite3_finalize(F->sCount);
  sqlite3_finalize(F->sMerge);
  sqlite3_finalize(F->sFpr);
  sqlite3_close(F->db);
  free(F->a);
  mset_free(&F->m);
}

/* An id to add: often one already present (copies), else from the pool. */
static uint64_t f_pick_add(fsub *F) {
  if (F->m.nList && chance(0.25)) return mset_random(&F->m);
  return F->base + rnd_below(F->pool);
}

/* Run statement s (filter bound as ?1, items bound): on success adopt the
** result and return 1; a documented refusal returns 0; anything else is
** a failure (returns -1). */
static int f_apply(fsub *F, sqlite3_stmt *s, const char *zFunc) {
  int rc = step1(s), r;
  if (rc == SQLITE_ROW) {
    f_set(F, sqlite3_column_blob(s, 0), sqlite3_column_bytes(s, 0));
    r = 1;
  } else {
    const char *zErr = sqlite3_errmsg(F->db);
    r = allowed_refusal(zErr) && strncmp(zErr, zFunc, strlen(zFunc)) == 0 ? 0
                                                                          : -1;
    PROP_CHECK(P_ERRORS, r == 0, "%s: unexpected error %d: %s", zFunc, rc,
               zErr);
    if (r == 0) F->nRefused++;
  }
  done(s);
  return r;
}

static void f_add(fsub *F, int nItem) {
  uint64_t aId[3];
  int i, r;
  sqlite3_stmt *s = nItem == 1 ? F->sAdd1 : F->sAdd3;
  sqlite3_bind_blob(s, 1, F->a, F->n, SQLITE_TRANSIENT);
  for (i = 0; i < nItem; i++) {
    aId[i] = f_pick_add(F);
    item_bind(s, i + 2, aId[i], aId[i] % 5 == 0 && chance(0.3));
  }
  r = f_apply(F, s, "cuckoo_add");
  if (r == 1) {
    for (i = 0; i < nItem; i++)
      mset_add(&F->m, aId[i], 1);
  }
  for (i = 0; i < nItem; i++) {
    if (mset_get(&F->m, aId[i]) > 0)
      f_expect_found(F, aId[i], r == 1 ? "after add" : "after a refused add");
  }
  f_expect_count(F, r == 1 ? "after add" : "after a refused add");
}

static void f_remove(fsub *F) {
  uint64_t id;
  if (F->m.nList == 0) return;
  id = mset_random(&F->m);
  sqlite3_bind_blob(F->sRemove, 1, F->a, F->n, SQLITE_TRANSIENT);
  item_bind(F->sRemove, 2, id, id % 5 == 0 && chance(0.3));
  if (f_apply(F, F->sRemove, "cuckoo_remove") != 1) return;
  if (mset_add(&F->m, id, -1) > 0) f_expect_found(F, id, "after remove");
  f_expect_count(F, "after remove");
}

static void f_probe(fsub *F) {
  if (F->m.nList && chance(0.5)) {
    f_expect_found(F, mset_random(&F->m), "(random probe)");
  } else {
    int r = f_contains_in(F, F->a, F->n, absent_id());
    PROP_CHECK(P_ERRORS, r >= 0, "cuckoo_contains failed: %s",
               sqlite3_errmsg(F->db));
    F->fp.nProbe++;
    F->fp.nPos += r == 1;
    F->fp.sumTarget += F->er;
    F->fp.sumExpected += F->expectedFpr;
  }
}

static void f_sweep(fsub *F) {
  uint64_t i;
  for (i = 0; i < F->m.nList; i++)
    f_expect_found(F, F->m.aList[i], "(sweep)");
  F->nSweep++;
  F->nSinceSweep = 0;
}

/* Class budget map for merges: key (bucket pair, fingerprint). */
static uint64_t f_class_of(const cf_filter *f, uint64_t hash) {
  cf_key k = cf_key_from(&f->p, hash);
  uint32_t i2 = cf_alt_bucket(f->p.nbuckets, k.i1, k.fp);
  uint32_t lo = k.i1 < i2 ? k.i1 : i2;
  return ((uint64_t)lo << 32) | k.fp;
}

/*
** Merge filter g (n bytes, holding the ids of gm) into F.  Checks that
** every item's pair holds max(copies in F, copies in g) afterwards and
** updates the model: each item gets the larger of its two counts, then
** items of one pair keep no more copies than the pair holds.
*/
static void f_merge_with(fsub *F, const uint8_t *g, int n, const mset *gm) {
  cf_filter fg, fOld;
  uint8_t *aOld;
  mset budget;
  const char *zWhy = 0;
  uint64_t i;
  int r;
  if (cf_open(&fg, g, (size_t)n, &zWhy) != CF_OK) {
    fail(P_AGG, "merge source is not a valid filter: %s", zWhy);
    return;
  }
  aOld = xalloc(0, (size_t)F->n);
  memcpy(aOld, F->a, (size_t)F->n);
  cf_open(&fOld, aOld, (size_t)F->n, 0);
  sqlite3_bind_blob(F->sMerge, 1, F->a, F->n, SQLITE_TRANSIENT);
  sqlite3_bind_blob(F->sMerge, 2, g, n, SQLITE_STATIC);
  r = f_apply(F, F->sMerge, "cuckoo_merge");
  F->nMerge++;
  if (r == 1) {
    /* New model counts: the larger of the two per item. */
    for (i = 0; i < gm->nList; i++) {
      uint64_t id = gm->aList[i];
      int64_t a = mset_get(&F->m, id), b = mset_get(gm, id);
      if (b > a) mset_add(&F->m, id, b - a);
    }
    /* Per pair: the filter holds max(old, g) copies; items keep at most
    ** that many together. */
    mset_init(&budget);
    for (i = 0; i < F->m.nList; i++) {
      uint64_t id = F->m.aList[i];
      uint64_t h = item_hash(F->cf.p.seed, id);
      uint64_t cls = f_class_of(&F->cf, h);
      cf_key k = cf_key_from(&F->cf.p, h);
      int64_t left, want, have;
      mslot *s = mset_find(&budget, cls);
      if (s == 0) {
        unsigned a = cf_copies(&fOld, k), b = cf_copies(&fg, k);
        want = a > b ? a : b;
        have = cf_copies(&F->cf, k);
        PROP_CHECK(P_MERGE, have == want,
                   "pair of item %llu holds %lld copies after the merge, "
                   "expected max(%u, %u)",
                   (unsigned long long)id, (long long)have, a, b);
        mset_add(&budget, cls, have + 1); /* +1: never 0, so it stays */
        s = mset_find(&budget, cls);
      }
      left = s->n - 1;
      want = mset_get(&F->m, id);
      if (want > left) {
        F->nCollapse += (uint64_t)(want - left);
        s->n = 1;
        if (mset_add(&F->m, id, left - want) == 0) i--; /* list shrank */
      } else {
        s->n -= want;
      }
    }
    mset_free(&budget);
    f_expect_count(F, "after merge");
  }
  free(aOld);
}

/* Ids [lo, lo + k) as a recursive CTE named r(i). */
#define RANGE_CTE                                                              \
  "WITH RECURSIVE r(i) AS (SELECT ?1 UNION ALL SELECT i + 1 FROM r "           \
  "WHERE i < ?1 + ?2 - 1) "

static int cmp_u64(const void *a, const void *b) {
  uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
  return x < y ? -1 : x > y;
}

/*
** The count of cuckoo_union over nShard fixed-geometry aggregates of ids
** [lo, lo + k), shard i % nShard: per pair (bucket pair, fingerprint) the
** largest number of a shard's items in it, summed over pairs.
*/
static int64_t f_union_count(fsub *F, uint64_t lo, uint64_t k, int nShard) {
  uint64_t *a = xalloc(0, sizeof(uint64_t) * 2 * k), i, j;
  int64_t total = 0;
  /* (class, shard) as two words: sort pairs by class, then shard */
  typedef struct cs {
    uint64_t cls, shard;
  } cs;
  cs *p = (cs *)a;
  for (i = 0; i < k; i++) {
    p[i].cls = f_class_of(&F->cf, item_hash(F->cf.p.seed, lo + i));
    p[i].shard = (lo + i) % (uint64_t)nShard;
  }
  qsort(p, k, sizeof(cs), cmp_u64); /* by cls (first word) */
  for (i = 0; i < k; i = j) {
    int64_t aN[8] = {0}, mx = 0;
    int sh;
    for (j = i; j < k && p[j].cls == p[i].cls; j++)
      aN[p[j].shard]++;
    for (sh = 0; sh < nShard; sh++)
      if (aN[sh] > mx) mx = aN[sh];
    total += mx;
  }
  free(a);
  return total;
}

/* Build a merge partner for F and merge it in. */
static void f_merge(fsub *F) {
  mset gm;
  uint64_t lo, k, i;
  mset_init(&gm);
  if (F->bNew) {
    /* A fixed-geometry cuckoo_agg (or a cuckoo_union of three shards)
    ** over a range of ids: same geometry as cuckoo_new(cap, er, opts). */
    int bUnion = chance(0.5);
    sqlite3_stmt *s, *sc;
    int64_t c, nFound;
    k = 1 + rnd_below((uint64_t)F->cap / 2 + 1);
    lo = F->base + rnd_below(F->pool);
    s = tl_prep(F->db, bUnion ? RANGE_CTE "SELECT cuckoo_union(f) FROM (SELECT "
                                          "cuckoo_agg(" ITEM_SQL(
                                              "i") ", ?3, ?4, ?5) "
                                                   "AS f FROM r GROUP BY i % 3)"
                              : RANGE_CTE
                           "SELECT cuckoo_agg(" ITEM_SQL("i") ", ?3, ?4, "
                                                              "?5) FROM r");
    sqlite3_bind_int64(s, 1, (sqlite3_int64)lo);
    sqlite3_bind_int64(s, 2, (sqlite3_int64)k);
    sqlite3_bind_double(s, 3, F->er);
    sqlite3_bind_int64(s, 4, F->cap);
    sqlite3_bind_text(s, 5, F->zOpts, -1, SQLITE_STATIC);
    if (step1(s) != SQLITE_ROW) {
      const char *zErr = sqlite3_errmsg(F->db);
      PROP_CHECK(P_ERRORS, allowed_refusal(zErr), "fixed cuckoo_agg: %s", zErr);
      sqlite3_finalize(s);
      mset_free(&gm);
      return;
    }
    for (i = 0; i < k; i++)
      mset_add(&gm, lo + i, 1);
    /* every item of the range is in the partner; its count is exact for
    ** one aggregate, at most k for a union of shards */
    sc = tl_prep(F->db, RANGE_CTE "SELECT count(*) FROM r WHERE "
                                  "cuckoo_contains(?3, " ITEM_SQL("i") ")");
    sqlite3_bind_int64(sc, 1, (sqlite3_int64)lo);
    sqlite3_bind_int64(sc, 2, (sqlite3_int64)k);
    sqlite3_bind_value(sc, 3, sqlite3_column_value(s, 0));
    nFound = step1(sc) == SQLITE_ROW ? sqlite3_column_int64(sc, 0) : -1;
    sqlite3_finalize(sc);
    PROP_CHECK(P_AGG, nFound == (int64_t)k,
               "%s over %llu items finds %lld of them",
               bUnion ? "cuckoo_union" : "cuckoo_agg", (unsigned long long)k,
               (long long)nFound);
    c = f_count_of(F, sqlite3_column_blob(s, 0), sqlite3_column_bytes(s, 0));
    {
      int64_t want = bUnion ? f_union_count(F, lo, k, 3) : (int64_t)k;
      PROP_CHECK(P_AGG, c == want,
                 "%s over %llu distinct items has count %lld, expected %lld",
                 bUnion ? "cuckoo_union" : "cuckoo_agg", (unsigned long long)k,
                 (long long)c, (long long)want);
    }
    F->nAgg++;
    {
      int n = sqlite3_column_bytes(s, 0);
      uint8_t *g = xalloc(0, (size_t)n);
      memcpy(g, sqlite3_column_blob(s, 0), (size_t)n);
      sqlite3_finalize(s);
      if (chance(0.1)) {
        /* a filter merged with itself is unchanged */
        uint8_t *self = xalloc(0, (size_t)F->n);
        int nSelf = F->n;
        memcpy(self, F->a, (size_t)nSelf);
        sqlite3_bind_blob(F->sMerge, 1, self, nSelf, SQLITE_STATIC);
        sqlite3_bind_blob(F->sMerge, 2, self, nSelf, SQLITE_STATIC);
        PROP_CHECK(P_MERGE,
                   step1(F->sMerge) == SQLITE_ROW &&
                       sqlite3_column_bytes(F->sMerge, 0) == nSelf &&
                       memcmp(sqlite3_column_blob(F->sMerge, 0), self,
                              (size_t)nSelf) == 0,
                   "cuckoo_merge(f, f) differs from f");
        done(F->sMerge);
        free(self);
      }
      f_merge_with(F, g, n, &gm);
      free(g);
    }
  } else {
    /* Same geometry as F: F emptied (header count 0, zero buckets), then
    ** a few items added one by one. */
    int n = F->n, j, nAdd = 1 + (int)rnd_below(30);
    uint8_t *g = xalloc(0, (size_t)n);
    memcpy(g, F->a, (size_t)n);
    memset(g + CF_HEADER_SIZE, 0, (size_t)n - CF_HEADER_SIZE);
    cf_put_u64(g + 24, 0);
    for (j = 0; j < nAdd; j++) {
      uint64_t id = f_pick_add(F);
      sqlite3_bind_blob(F->sAdd1, 1, g, n, SQLITE_TRANSIENT);
      item_bind(F->sAdd1, 2, id, 0);
      if (step1(F->sAdd1) == SQLITE_ROW &&
          sqlite3_column_bytes(F->sAdd1, 0) == n) {
        memcpy(g, sqlite3_column_blob(F->sAdd1, 0), (size_t)n);
        mset_add(&gm, id, 1);
      }
      done(F->sAdd1);
    }
    f_merge_with(F, g, n, &gm);
    free(g);
  }
  mset_free(&gm);
}

/* Replace F by a cuckoo_agg build over a range with duplicates. */
static void f_agg(fsub *F) {
  static const double aEr[] = {0.01, 0.001, 0.0001};
  uint64_t d = 1 + rnd_below(3000), k = d + rnd_below(2 * d), lo, i;
  int bFixed = chance(0.4);
  int64_t cap = (int64_t)d + (int64_t)rnd_below(d + 1);
  const char *zOpt = chance(0.3) ? "semisort" : chance(0.3) ? "seed=77" : "";
  sqlite3_stmt *s, *sc;
  int64_t c, nFound;
  double er = aEr[rnd_below(3)];
  lo = rnd_below((uint64_t)1 << 40);
  /* rows lo + (i mod d) for i < k: d distinct items, some repeated */
  s = tl_prep(F->db, "WITH RECURSIVE r(i) AS (SELECT 0 UNION ALL SELECT i + 1 "
                     "FROM r WHERE i < ?2 - 1), v(x) AS (SELECT ?1 + i % ?3 "
                     "FROM r) SELECT cuckoo_agg(" ITEM_SQL("x") ", ?4, ?5, ?6) "
                                                                "FROM v");
  sqlite3_bind_int64(s, 1, (sqlite3_int64)lo);
  sqlite3_bind_int64(s, 2, (sqlite3_int64)k);
  sqlite3_bind_int64(s, 3, (sqlite3_int64)d);
  sqlite3_bind_double(s, 4, er);
  if (bFixed) sqlite3_bind_int64(s, 5, cap);
  sqlite3_bind_text(s, 6, zOpt, -1, SQLITE_STATIC);
  if (step1(s) != SQLITE_ROW) {
    const char *zErr = sqlite3_errmsg(F->db);
    PROP_CHECK(P_ERRORS, bFixed && allowed_refusal(zErr), "cuckoo_agg: %s",
               zErr);
    sqlite3_finalize(s);
    return;
  }
  c = f_count_of(F, sqlite3_column_blob(s, 0), sqlite3_column_bytes(s, 0));
  PROP_CHECK(P_AGG, c == (int64_t)d,
             "cuckoo_agg over %llu rows of %llu distinct items: count %lld",
             (unsigned long long)k, (unsigned long long)d, (long long)c);
  sc = tl_prep(F->db, RANGE_CTE "SELECT count(*) FROM r WHERE "
                                "cuckoo_contains(?3, " ITEM_SQL("i") ")");
  sqlite3_bind_int64(sc, 1, (sqlite3_int64)lo);
  sqlite3_bind_int64(sc, 2, (sqlite3_int64)d);
  sqlite3_bind_value(sc, 3, sqlite3_column_value(s, 0));
  nFound = step1(sc) == SQLITE_ROW ? sqlite3_column_int64(sc, 0) : -1;
  sqlite3_finalize(sc);
  PROP_CHECK(P_AGG, nFound == (int64_t)d,
             "cuckoo_agg finds %lld of its %llu items", (long long)nFound,
             (unsigned long long)d);
  F->nAgg++;
  /* adopt it: the model is the d distinct items */
  f_set(F, sqlite3_column_blob(s, 0), sqlite3_column_bytes(s, 0));
  sqlite3_finalize(s);
  mset_clear(&F->m);
  for (i = 0; i < d; i++)
    mset_add(&F->m, lo + i, 1);
  F->er = er;
  F->cap = bFixed ? cap : (int64_t)d;
  snprintf(F->zOpts, sizeof(F->zOpts), "%s", zOpt);
  F->bNew = bFixed;
  F->base = lo;
  F->pool = 2 * d + 10;
}

/* cuckoo_agg as a window function over a sliding frame of random rows. */
static void f_window(fsub *F) {
  uint64_t nRow = 50 + rnd_below(600), d = 1 + rnd_below(nRow), i;
  int64_t frame = (int64_t)rnd_below(60), nBad;
  int bCap = chance(0.3);
  uint64_t lo = rnd_below((uint64_t)1 << 40);
  sqlite3_stmt *s;
  tl_exec(F->db, "DROP TABLE IF EXISTS temp.w;"
                 "CREATE TEMP TABLE w(i INTEGER PRIMARY KEY, v);"
                 "BEGIN");
  s = tl_prep(F->db, "INSERT INTO temp.w(v) VALUES(?1)");
  for (i = 0; i < nRow; i++) {
    item_bind(s, 1, lo + rnd_below(d), 0);
    sqlite3_step(s);
    done(s);
  }
  sqlite3_finalize(s);
  tl_exec(F->db, "COMMIT");
  /* every item of each frame is found, and the count is the frame's
  ** number of distinct items */
#define WINDOW_CHECK(zAgg)                                                     \
  "WITH f AS (SELECT i, " zAgg " OVER (ORDER BY i ROWS ?1 PRECEDING) AS f "    \
  "FROM temp.w) SELECT (SELECT count(*) FROM f JOIN temp.w AS s ON s.i "       \
  "BETWEEN f.i - ?1 AND f.i WHERE NOT cuckoo_contains(f.f, s.v)), (SELECT "    \
  "count(*) FROM f WHERE cuckoo_count(f.f) <> (SELECT count(DISTINCT s.v) "    \
  "FROM temp.w AS s WHERE s.i BETWEEN f.i - ?1 AND f.i))"
  /* (two statements: a window function runs whatever a CASE around it
  ** says, so the fixed capacity must not even be in the other one) */
  s = tl_prep(F->db, bCap ? WINDOW_CHECK("cuckoo_agg(v, 0.01, ?1 + 1)")
                          : WINDOW_CHECK("cuckoo_agg(v)"));
  sqlite3_bind_int64(s, 1, frame);
  if (step1(s) == SQLITE_ROW) {
    nBad = sqlite3_column_int64(s, 0);
    PROP_CHECK(P_NO_FALSE_NEG, nBad == 0,
               "window (frame %lld rows): %lld items of their frame not found",
               (long long)frame + 1, (long long)nBad);
    nBad = sqlite3_column_int64(s, 1);
    PROP_CHECK(P_WINDOW, nBad == 0,
               "window (frame %lld rows): %lld rows whose count is not the "
               "frame's distinct items",
               (long long)frame + 1, (long long)nBad);
  } else if (bCap && allowed_refusal(sqlite3_errmsg(F->db))) {
    /* A filter with a capacity can refuse an item below its capacity
    ** when it is tiny (docs/reference.md#limits): window frames refill
    ** one at every row, so the rare case shows. */
    aChecked[P_ERRORS]++;
    F->nRefused++;
  } else {
    fail(P_ERRORS, "window query: %s", sqlite3_errmsg(F->db));
  }
  sqlite3_finalize(s);
  F->nWindow++;
}

static void f_step(fsub *F) {
  uint64_t r = rnd_below(1000);
  if (F->nSinceSweep++ > F->m.nList + 500) f_sweep(F);
  if ((g_op & 1023) == 0) F->expectedFpr = f_fpr(F);
  if (r < 480) {
    f_probe(F);
  } else if (r < 700) {
    f_add(F, 1);
  } else if (r < 740) {
    f_add(F, 3);
  } else if (r < 990) {
    f_remove(F);
  } else if (r < 995) {
    /* merges and builds cost O(filter): rarer on big filters */
    if (chance(200.0 / (double)(F->cap + 200))) f_merge(F);
  } else if (r < 997) {
    if (chance(0.2)) f_agg(F);
  } else if (r < 998) {
    if (chance(0.1)) f_window(F);
  } else {
    if (chance(0.05)) {
      f_sweep(F);
      f_recreate(F);
    }
  }
}

/* ---------------------------------------------------------------------
** Subject V: a cuckoo virtual table in a database file
*/
typedef struct undo {
  uint64_t id;
  int64_t delta;
} undo;

#define V_NSTMT 10 /* the prepared statements of a connection (v_stmts) */

typedef struct vsub {
  char zFile[512];
  sqlite3 *db;
  mset m;
  /* ever: the copies of each item ever added to this table and not rolled
  ** back (deletes do not lower it).  A DELETE can leave a copy in place
  ** (docs/virtual-table.md#growth), so this bounds the copies of an
  ** item the table can hold, where m gives the live ones. */
  mset ever;
  undo *aUndo;
  uint64_t nUndo, nUndoAlloc;
  int depth;          /* 0: autocommit; 1: BEGIN; k > 1: k-1 savepoints */
  uint64_t aSpPos[8]; /* undo-log length at each savepoint */
  double er;
  uint64_t seed;
  char zJournal[16];
  uint64_t base, pool;
  double expectedFpr;
  uint64_t nSinceSweep;
  fpstat fp;
  sqlite3_stmt *sIns1, *sIns3, *sInsIgnore, *sDel, *sLook, *sLookIn, *sUpd,
      *sBulk, *sCount, *sFpr;
  /* The other connection to the file (0 until v_swap() first opens it)
  ** and its statements, in v_stmts() order: v_swap() makes it the one
  ** the operations use. */
  sqlite3 *dbAlt;
  sqlite3_stmt *aAlt[V_NSTMT];
  uint64_t nTable, nReopen, nRollback, nRollbackTo, nCommit, nCheck, nExport,
      nLeftover, nRefused, nSweep, nDb2, maxLevels;
  uint64_t nLogged; /* reopens and second connections that replayed a log */
  uint64_t nSwap, nSnap; /* writer changes (v_swap), snapshots (v_snapshot) */
  uint64_t nSharedSwap;  /* of nSwap, those on a shared page cache */
  int bShared;           /* the connections share a page cache */
  int64_t iCookie;       /* the table's cookie at v_begin()'s BEGIN */
  uint64_t nRefusedHere; /* refusals by the current table */
  uint64_t nOrStmt, nOrDup, nBulkDup, nFailMid, nRun, nRunBack, nTooMany,
      nTooManyShared, nAmbiguous;
} vsub;

static void v_prepare(vsub *V) {
  V->sIns1 = tl_prep(V->db, "INSERT INTO t(item) VALUES(?1)");
  V->sIns3 = tl_prep(V->db, "INSERT INTO t(item) VALUES(?1), (?2), (?3)");
  V->sInsIgnore = tl_prep(V->db, "INSERT OR IGNORE INTO t(item) VALUES(?1)");
  V->sDel = tl_prep(V->db, "DELETE FROM t WHERE item = ?1");
  V->sLook = tl_prep(V->db, "SELECT count(*) FROM t WHERE item = ?1");
  V->sLookIn =
      tl_prep(V->db, "SELECT count(*) FROM t WHERE item IN (?1, ?2, ?3, ?4)");
  V->sUpd = tl_prep(V->db, "UPDATE t SET item = ?2 WHERE item = ?1");
  V->sBulk = tl_prep(V->db, RANGE_CTE
                     "INSERT INTO t(item) SELECT " ITEM_SQL("i") " FROM r");
  V->sCount =
      tl_prep(V->db, "SELECT json_extract(cuckoo_table_info('t'), '$.count')");
  V->sFpr = tl_prep(
      V->db, "SELECT json_extract(cuckoo_table_info('t'), '$.expected_fpr')");
}

/* The current connection's prepared statements. */
static void v_stmts(vsub *V, sqlite3_stmt **ap[V_NSTMT]) {
  sqlite3_stmt **a[V_NSTMT] = {&V->sIns1, &V->sIns3,  &V->sInsIgnore,
                               &V->sDel,  &V->sLook,  &V->sLookIn,
                               &V->sUpd,  &V->sBulk,  &V->sCount,
                               &V->sFpr};
  memcpy(ap, a, sizeof(a));
}

static void v_finalize(vsub *V) {
  sqlite3_stmt **ap[V_NSTMT];
  int i;
  v_stmts(V, ap);
  for (i = 0; i < V_NSTMT; i++) {
    sqlite3_finalize(*ap[i]);
    *ap[i] = 0;
  }
}

/* A connection to the table's file: with a private page cache, or with
** the one the process's other shared-cache connections to it use (the
** way several connections share an in-memory database). */
static sqlite3 *v_connect(vsub *V) {
  char zSql[100], zUri[600];
  sqlite3 *db = 0;
  int rc;
  if (V->bShared) {
    snprintf(zUri, sizeof(zUri), "file:%s?cache=shared", V->zFile);
    rc = sqlite3_open_v2(zUri, &db,
                         SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE |
                             SQLITE_OPEN_URI,
                         0);
  } else {
    rc = sqlite3_open(V->zFile, &db);
  }
  if (rc != SQLITE_OK) {
    fprintf(stderr, "model_test: cannot open %s\n", V->zFile);
    exit(2);
  }
  snprintf(zSql, sizeof(zSql), "PRAGMA journal_mode=%s; PRAGMA synchronous=OFF",
           V->zJournal);
  tl_exec(db, zSql);
  return db;
}

static void v_open(vsub *V) { V->db = v_connect(V); }

static void v_disconnect(sqlite3 *db) {
  if (sqlite3_close(db) != SQLITE_OK) {
    fprintf(stderr, "model_test: close: %s\n", sqlite3_errmsg(db));
    exit(2);
  }
}

/* Close both connections. */
static void v_close(vsub *V) {
  int i;
  v_finalize(V);
  v_disconnect(V->db);
  V->db = 0;
  if (V->dbAlt) {
    for (i = 0; i < V_NSTMT; i++) {
      sqlite3_finalize(V->aAlt[i]);
      V->aAlt[i] = 0;
    }
    v_disconnect(V->dbAlt);
    V->dbAlt = 0;
  }
}

/* A new table with random options (outside any transaction). */
static void v_recreate(vsub *V) {
  static const char *azJournal[] = {"delete", "wal", "memory", "truncate"};
  static const int64_t aCap[] = {30, 100, 400, 2000};
  static const int aBlock[] = {64, 96, 200, 512, 0};
  static const int aCache[] = {1, 4, 64, 1024, 65536};
  static const double aEr[] = {0.01, 0.001, 0.0001};
  int bs = (int)rnd_below(3), growth = !chance(0.15);
  int block = aBlock[rnd_below(5)];
  char zSql[600], zBlock[40];
  if (V->db) v_close(V);
  unlink(V->zFile);
  snprintf(zSql, sizeof(zSql), "%s-journal", V->zFile);
  unlink(zSql);
  snprintf(zSql, sizeof(zSql), "%s-wal", V->zFile);
  unlink(zSql);
  snprintf(zSql, sizeof(zSql), "%s-shm", V->zFile);
  unlink(zSql);
  snprintf(V->zJournal, sizeof(V->zJournal), "%s", azJournal[rnd_below(4)]);
  /* one table in five on a shared page cache (not where the file name
  ** would need escaping in a URI) */
  V->bShared = chance(0.2) && strpbrk(V->zFile, "%?#") == 0;
  v_open(V);
  V->er = aEr[rnd_below(3)];
  V->seed = chance(0.5) ? 0 : rnd() >> 1;
  zBlock[0] = 0;
  if (block) snprintf(zBlock, sizeof(zBlock), ", block_size=%d", block);
  snprintf(zSql, sizeof(zSql),
           "CREATE VIRTUAL TABLE t USING cuckoo(capacity=%lld, "
           "error_rate=%g, growth=%s, bucket_size=%d, seed=%llu%s%s, "
           "cache_size=%d)",
           (long long)(aCap[rnd_below(4)] + (int64_t)rnd_below(30)), V->er,
           growth ? "on" : "off",
           bs == 0   ? 2
           : bs == 1 ? 4
                     : 8,
           (unsigned long long)V->seed, zBlock,
           bs == 1 && chance(0.4) ? ", semisort" : "",
           /* A tiny cache flushes and evicts all the time, but makes
           ** every cuckoo kick a block read: one table in five (and no
           ** full table with growth off, where every insert kicks 500
           ** times) */
           aCache[growth && chance(0.2) ? rnd_below(2) : 2 + rnd_below(3)]);
  tl_exec(V->db, zSql);
  /* For v_fail_mid(): each row inserted into lg inserts its item into t,
  ** then reads it back within the same statement (rd: a lookup and the
  ** table's count), then fails when it is the row stopat names. */
  tl_exec(V->db,
          "CREATE TABLE lg(i INTEGER); CREATE TABLE rd(i INTEGER, found, cnt);"
          "CREATE TABLE stopat(v INTEGER); INSERT INTO stopat VALUES (-1);"
          "CREATE TRIGGER lg_ins AFTER INSERT ON lg BEGIN "
          "INSERT INTO t(item) VALUES (" ITEM_SQL("new.i") ");"
          "INSERT INTO rd SELECT new.i, (SELECT count(*) FROM t WHERE item = "
          ITEM_SQL("new.i") "), json_extract(cuckoo_table_info('t'), "
          "'$.count');"
          "SELECT RAISE(ABORT, 'stopped at this row') "
          "WHERE new.i = (SELECT v FROM stopat); END");
  v_prepare(V);
  mset_clear(&V->m);
  mset_clear(&V->ever);
  V->nUndo = 0;
  V->depth = 0;
  V->base = rnd_below((uint64_t)1 << 40);
  V->pool = 5000 + rnd_below(30000);
  V->expectedFpr = 0;
  V->nRefusedHere = 0;
  V->nTable++;
}

static void v_init(vsub *V, const char *zDir) {
  memset(V, 0, sizeof(*V));
  snprintf(V->zFile, sizeof(V->zFile), "%s/model.db", zDir);
  mset_init(&V->m);
  mset_init(&V->ever);
  v_recreate(V);
}

/* A change to the model, logged when inside a transaction. */
static void v_change(vsub *V, uint64_t id, int64_t delta) {
  if (V->depth > 0) {
    if (V->nUndo == V->nUndoAlloc) {
      V->nUndoAlloc = V->nUndoAlloc ? 2 * V->nUndoAlloc : 1024;
      V->aUndo = xalloc(V->aUndo, sizeof(undo) * V->nUndoAlloc);
    }
    V->aUndo[V->nUndo].id = id;
    V->aUndo[V->nUndo].delta = delta;
    V->nUndo++;
  }
  mset_add(&V->m, id, delta);
  if (delta > 0) mset_add(&V->ever, id, delta);
}

/* Lookup: 1 found, 0 not, -1 error. */
static int v_found(vsub *V, uint64_t id) {
  int r = -1;
  item_bind(V->sLook, 1, id, id % 5 == 0 && chance(0.3));
  if (step1(V->sLook) == SQLITE_ROW) r = sqlite3_column_int(V->sLook, 0);
  PROP_CHECK(P_ERRORS, r >= 0, "lookup failed: %s", sqlite3_errmsg(V->db));
  done(V->sLook);
  return r;
}

static void v_expect_found(vsub *V, uint64_t id, const char *zWhen) {
  int r = v_found(V, id);
  PROP_CHECK(P_NO_FALSE_NEG, r == 1,
             "table: item %llu (%lld copies) not found %s",
             (unsigned long long)id, (long long)mset_get(&V->m, id), zWhen);
}

/* Copies of aId[0..nId) equal to id (the failing statement's rows). */
static int64_t n_in(const uint64_t *aId, int nId, uint64_t id) {
  int i;
  int64_t n = 0;
  for (i = 0; i < nId; i++)
    n += aId[i] == id;
  return n;
}

/*
** Is a "too many copies" refusal of a statement whose rows are
** aId[0..nId) one the model allows?  The table refuses when the newest
** level's two buckets for the item are full of its fingerprint
** (docs/virtual-table.md: "at most N copies" in the message; an older
** level passes the copy on).  Those N copies belong to the item or to
** items that share its fingerprint and bucket pair on that level, which
** the model computes from the exported level with the core's
** cf_key_from().  Bound: for some item x of the statement, the copies
** ever added (and not rolled back) of x and of every item sharing its
** pair, plus their rows in the statement, reach N.  "Ever added" and not
** the live count, because a DELETE can leave a copy in place.  The pair
** is read after the statement was undone: when the statement itself grew
** the table, the refusing level is gone, so only x's own copies count
** then (sharing a pair on that fresh level would need N copies of
** sharers from one statement).  For a one-row statement the level is the
** one that refused, and it must indeed hold N copies of the fingerprint
** in the pair.  Returns 1 if allowed.
*/
static int v_too_many_ok(vsub *V, const char *zErr, const uint64_t *aId,
                         int nId) {
  const char *z = strstr(zErr, "at most ");
  unsigned long nLimit;
  int i, j, ok = 0;
  sqlite3_stmt *s;
  if (z == 0 || nId == 0) return 0;
  nLimit = strtoul(z + 8, 0, 10);
  if (nLimit == 0) return 0;
  for (i = 0; i < nId; i++) {
    if (mset_get(&V->ever, aId[i]) + n_in(aId, nId, aId[i]) >=
        (int64_t)nLimit) {
      V->nTooMany++;
      if (nId > 1) return 1;
      ok = 1; /* still check the table's claim below */
    }
  }
  /* the newest level, as a filter BLOB */
  s = tl_prep(V->db, "SELECT cuckoo_export('main', 't', (SELECT "
                     "json_extract(cuckoo_table_info('t'), '$.levels') - 1))");
  if (sqlite3_step(s) == SQLITE_ROW) {
    cf_filter cf;
    int n = sqlite3_column_bytes(s, 0);
    uint8_t *a = xalloc(0, (size_t)n + 8);
    const char *zWhy = 0;
    memcpy(a, sqlite3_column_blob(s, 0), (size_t)n);
    if (cf_open(&cf, a, (size_t)n, &zWhy) != CF_OK) {
      fail(P_ERRORS, "export of the newest level does not open: %s",
           zWhy ? zWhy : "?");
      free(a);
      sqlite3_finalize(s);
      return 1;
    }
    for (i = 0; i < nId && !(ok && nId > 1); i++) {
      cf_key kx = cf_key_from(&cf.p, item_hash(V->seed, aId[i]));
      uint32_t x2 = cf_alt_bucket(cf.p.nbuckets, kx.i1, kx.fp);
      int64_t nBound = 0;
      uint64_t k;
      if (nId == 1) {
        unsigned c = cf_copies(&cf, kx);
        PROP_CHECK(P_ERRORS, c == nLimit,
                   "item %llu refused as too many copies (at most %lu), but "
                   "the newest level holds %u copies of its fingerprint in "
                   "its buckets",
                   (unsigned long long)aId[i], nLimit, c);
        if (ok) break;
      }
      for (k = 0; k < V->ever.nList; k++) {
        uint64_t y = V->ever.aList[k];
        cf_key ky = cf_key_from(&cf.p, item_hash(V->seed, y));
        if (ky.fp == kx.fp && (ky.i1 == kx.i1 || ky.i1 == x2))
          nBound += mset_get(&V->ever, y) + n_in(aId, nId, y);
      }
      for (j = 0; j < nId; j++) { /* the statement's new items */
        cf_key ky = cf_key_from(&cf.p, item_hash(V->seed, aId[j]));
        if (mset_get(&V->ever, aId[j]) == 0 &&
            n_in(aId, j, aId[j]) == 0 && ky.fp == kx.fp &&
            (ky.i1 == kx.i1 || ky.i1 == x2))
          nBound += n_in(aId, nId, aId[j]);
      }
      if (nBound >= (int64_t)nLimit) {
        V->nTooManyShared++;
        ok = 1;
      }
    }
    free(a);
  } else {
    fail(P_ERRORS, "export of the newest level: %s", sqlite3_errmsg(V->db));
    ok = 1;
  }
  sqlite3_finalize(s);
  return ok;
}

/* Run a write statement whose rows are aId[0..nId); 1 done, 0 documented
** refusal, -1 other error.  A "too many copies" refusal is documented only
** when v_too_many_ok() allows it. */
static int v_write(vsub *V, sqlite3_stmt *s, const char *zWhat,
                   const uint64_t *aId, int nId) {
  int rc = sqlite3_step(s), r;
  if (rc == SQLITE_DONE) {
    r = 1;
  } else {
    char *zErr = sqlite3_mprintf("%s", sqlite3_errmsg(V->db));
    int ext = sqlite3_extended_errcode(V->db);
    done(s);
    r = allowed_refusal(zErr) && strstr(zErr, "cuckoo table t") ? 0 : -1;
    if (r == 0 && strstr(zErr, "too many copies") &&
        !v_too_many_ok(V, zErr, aId, nId)) {
      r = -1;
      fail(P_ERRORS,
           "%s: refused as too many copies, but no item of the statement "
           "(first %llu, %d rows) can have that many (with the items "
           "sharing its fingerprint and buckets): %s",
           zWhat, nId ? (unsigned long long)aId[0] : 0ULL, nId, zErr);
    } else {
      PROP_CHECK(P_ERRORS, r == 0, "%s: unexpected error %d: %s", zWhat, ext,
                 zErr);
    }
    if (r == 0) {
      V->nRefused++;
      V->nRefusedHere++;
    }
    sqlite3_free(zErr);
  }
  done(s);
  return r;
}

static uint64_t v_pick_add(vsub *V) {
  if (V->m.nList && chance(0.2)) return mset_random(&V->m);
  return V->base + rnd_below(V->pool);
}

static void v_insert(vsub *V, int nItem) {
  uint64_t aId[3] = {0, 0, 0};
  sqlite3_stmt *s = nItem == 1 ? V->sIns1 : V->sIns3;
  int i, r;
  for (i = 0; i < nItem; i++) {
    aId[i] = v_pick_add(V);
    item_bind(s, i + 1, aId[i], aId[i] % 5 == 0 && chance(0.3));
  }
  r = v_write(V, s, "INSERT", aId, nItem);
  if (r == 1) {
    for (i = 0; i < nItem; i++)
      v_change(V, aId[i], 1);
  }
  for (i = 0; i < nItem; i++) {
    if (mset_get(&V->m, aId[i]) > 0)
      v_expect_found(V, aId[i],
                     r == 1 ? "after INSERT" : "after a refused INSERT");
  }
}

static void v_insert_ignore(vsub *V) {
  uint64_t id = v_pick_add(V);
  int before = v_found(V, id), r, n;
  item_bind(V->sInsIgnore, 1, id, 0);
  r = v_write(V, V->sInsIgnore, "INSERT OR IGNORE", &id, 1);
  if (r != 1 || before < 0) return;
  n = sqlite3_changes(V->db);
  PROP_CHECK(P_VTAB_MIRROR, n == !before,
             "INSERT OR IGNORE of item %llu: changes() %d, but a lookup just "
             "before %s it",
             (unsigned long long)id, n, before ? "found" : "did not find");
  if (n == 1) v_change(V, id, 1);
  v_expect_found(V, id, "after INSERT OR IGNORE");
}

static void v_delete(vsub *V) {
  uint64_t id;
  int r, n;
  if (V->m.nList == 0) return;
  id = mset_random(&V->m);
  item_bind(V->sDel, 1, id, id % 5 == 0 && chance(0.3));
  r = v_write(V, V->sDel, "DELETE", &id, 1);
  if (r != 1) return;
  n = sqlite3_changes(V->db);
  PROP_CHECK(P_VTAB_MIRROR, n == 1, "DELETE of present item %llu: changes() %d",
             (unsigned long long)id, n);
  v_change(V, id, -1);
  if (mset_get(&V->m, id) > 0) {
    v_expect_found(V, id, "after DELETE of one copy");
  } else if (chance(0.05) && v_found(V, id) == 1) {
    V->nLeftover++; /* left in place (or a false positive): allowed */
  }
}

static void v_update(vsub *V) {
  uint64_t idOld, idNew;
  int r;
  if (V->m.nList == 0) return;
  idOld = mset_random(&V->m);
  idNew = v_pick_add(V);
  if (idNew == idOld) return;
  item_bind(V->sUpd, 1, idOld, 0);
  item_bind(V->sUpd, 2, idNew, 0);
  r = v_write(V, V->sUpd, "UPDATE", &idNew, 1);
  if (r == 1) {
    v_change(V, idOld, -1);
    v_change(V, idNew, 1);
  }
  if (mset_get(&V->m, idOld) > 0) v_expect_found(V, idOld, "after UPDATE");
  if (mset_get(&V->m, idNew) > 0) v_expect_found(V, idNew, "after UPDATE");
}

static void v_bulk(vsub *V) {
  uint64_t lo = V->base + rnd_below(V->pool), k = 1 + rnd_below(400), i;
  uint64_t aId[400];
  for (i = 0; i < k; i++)
    aId[i] = lo + i;
  sqlite3_bind_int64(V->sBulk, 1, (sqlite3_int64)lo);
  sqlite3_bind_int64(V->sBulk, 2, (sqlite3_int64)k);
  if (v_write(V, V->sBulk, "INSERT ... SELECT", aId, (int)k) == 1) {
    for (i = 0; i < k; i++)
      v_change(V, lo + i, 1);
  }
  if (mset_get(&V->m, lo) > 0) v_expect_found(V, lo, "after INSERT ... SELECT");
}

static int64_t v_table_count(vsub *V);
static void v_undo_to(vsub *V, uint64_t pos);

/* Items of a statement, with repeats: mostly a few ids drawn again. */
static void v_pick_dups(vsub *V, uint64_t *aId, int n) {
  uint64_t a = v_pick_add(V), b = chance(0.5) ? v_pick_add(V) : a;
  int i;
  for (i = 0; i < n; i++)
    aId[i] = chance(0.4) ? a : chance(0.5) ? b : v_pick_add(V);
}

/* The distinct items of aId[0..n) no lookup finds now, in aNew; returns
** their number, or -1 if a lookup failed. */
static int v_absent_before(vsub *V, const uint64_t *aId, int n,
                           uint64_t *aNew) {
  int i, nNew = 0;
  for (i = 0; i < n; i++) {
    int r;
    if (n_in(aId, i, aId[i])) continue;
    r = v_found(V, aId[i]);
    if (r < 0) return -1;
    if (r == 0) aNew[nNew++] = aId[i];
  }
  return nNew;
}

/*
** INSERT OR IGNORE / OR REPLACE of 1-4 rows (VALUES or INSERT ... SELECT
** over VALUES), with repeated items.  Either adds an item only when it is
** not (probably) present, rows in statement order, so the table stores at
** most one copy of each item no lookup found just before, and nothing
** else; every row is found afterwards.  changes(): OR REPLACE counts
** every row (docs/virtual-table.md), OR IGNORE the copies stored, which
** the table's count(*) (read before and after, half of the time for
** OR IGNORE) shows.  When fewer were stored than the lookups predict, an
** earlier row of the statement made a later one a false positive: the
** model then adds none of them (what the table holds beyond the model is
** allowed: property 2 asks only count >= model).
*/
static void v_or_insert(vsub *V) {
  uint64_t aId[4], aNew[4];
  int bReplace = chance(0.4), nRow = 1 + (int)rnd_below(4);
  int bSelect = chance(0.5), bCount = bReplace || chance(0.5), nNew, i, r, n;
  int64_t c0 = -1, c1 = -1, nAdded;
  char zSql[200];
  sqlite3_stmt *s;
  v_pick_dups(V, aId, nRow);
  nNew = v_absent_before(V, aId, nRow, aNew);
  if (nNew < 0) return;
  if (bCount) c0 = v_table_count(V);
  snprintf(zSql, sizeof(zSql), "INSERT OR %s INTO t(item) %s(?1)%s%s%s%s",
           bReplace ? "REPLACE" : "IGNORE",
           bSelect ? "SELECT column1 FROM (VALUES " : "VALUES ",
           nRow > 1 ? ", (?2)" : "", nRow > 2 ? ", (?3)" : "",
           nRow > 3 ? ", (?4)" : "", bSelect ? ")" : "");
  s = tl_prep(V->db, zSql);
  for (i = 0; i < nRow; i++)
    item_bind(s, i + 1, aId[i], aId[i] % 5 == 0 && chance(0.3));
  r = v_write(V, s, bReplace ? "INSERT OR REPLACE" : "INSERT OR IGNORE", aId,
              nRow);
  n = sqlite3_changes(V->db);
  sqlite3_finalize(s);
  V->nOrStmt++;
  V->nOrDup += nRow > 1 && aId[0] == aId[1];
  if (bCount) c1 = v_table_count(V);
  if (r != 1) {
    PROP_CHECK(P_ROLLBACK, c1 == c0,
               "a refused INSERT OR %s changed the count from %lld to %lld",
               bReplace ? "REPLACE" : "IGNORE", (long long)c0, (long long)c1);
    return;
  }
  if (bReplace) {
    PROP_CHECK(P_VTAB_MIRROR, n == nRow,
               "INSERT OR REPLACE of %d rows: changes() %d", nRow, n);
  }
  nAdded = bCount ? c1 - c0 : n;
  if (bCount && !bReplace) {
    PROP_CHECK(P_VTAB_MIRROR, n == nAdded,
               "INSERT OR IGNORE: changes() %d, but the count grew by %lld", n,
               (long long)nAdded);
  }
  PROP_CHECK(P_VTAB_MIRROR, nAdded >= 0 && nAdded <= nNew,
             "INSERT OR %s of %d rows, %d distinct items absent before: %lld "
             "stored",
             bReplace ? "REPLACE" : "IGNORE", nRow, nNew, (long long)nAdded);
  if (nAdded == nNew) {
    for (i = 0; i < nNew; i++)
      v_change(V, aNew[i], 1);
  } else {
    V->nAmbiguous++;
  }
  for (i = 0; i < nRow; i++) {
    if (n_in(aId, i, aId[i]) == 0) {
      int f = v_found(V, aId[i]);
      PROP_CHECK(P_NO_FALSE_NEG, f == 1,
                 "item %llu of an INSERT OR %s not found after it",
                 (unsigned long long)aId[i], bReplace ? "REPLACE" : "IGNORE");
    }
  }
}

/*
** INSERT [OR IGNORE | OR REPLACE] INTO t SELECT over k rows cycling
** through m items (repeated items in one statement, in statement order).
** Plain: changes() is k, each row a copy, or the statement is refused as
** a whole (too many copies: up to 60 rows of one item); the others as in
** v_or_insert().
*/
static void v_bulk_dup(vsub *V) {
  uint64_t aId[60], aNew[60], lo = V->base + rnd_below(V->pool);
  int k = 2 + (int)rnd_below(59), m = 1 + (int)rnd_below(8), i, r, n, nNew = 0;
  int mode = (int)rnd_below(3); /* 0 plain, 1 OR IGNORE, 2 OR REPLACE */
  int64_t c0, c1;
  sqlite3_stmt *s;
#define BULK_DUP(zOr)                                                          \
  RANGE_CTE "INSERT " zOr " INTO t(item) SELECT " ITEM_SQL("(?3 + (i % ?4))")  \
      " FROM r"
  static const char *azSql[3] = {BULK_DUP(""), BULK_DUP("OR IGNORE"),
                                 BULK_DUP("OR REPLACE")};
  for (i = 0; i < k; i++)
    aId[i] = lo + (uint64_t)(i % m);
  if (mode) {
    nNew = v_absent_before(V, aId, k, aNew);
    if (nNew < 0) return;
  }
  c0 = v_table_count(V);
  s = tl_prep(V->db, azSql[mode]);
  sqlite3_bind_int64(s, 1, 0);
  sqlite3_bind_int64(s, 2, k);
  sqlite3_bind_int64(s, 3, (sqlite3_int64)lo);
  sqlite3_bind_int64(s, 4, m);
  r = v_write(V, s, "INSERT ... SELECT with repeated items", aId, k);
  n = sqlite3_changes(V->db);
  sqlite3_finalize(s);
  c1 = v_table_count(V);
  V->nBulkDup++;
  if (r != 1) {
    PROP_CHECK(P_ROLLBACK, c1 == c0,
               "a refused INSERT ... SELECT changed the count from %lld to "
               "%lld",
               (long long)c0, (long long)c1);
    return;
  }
  if (mode == 0) {
    PROP_CHECK(P_VTAB_MIRROR, n == k && c1 - c0 == k,
               "INSERT ... SELECT of %d rows: changes() %d, count grew by %lld",
               k, n, (long long)(c1 - c0));
    for (i = 0; i < k; i++)
      v_change(V, aId[i], 1);
  } else {
    PROP_CHECK(P_VTAB_MIRROR,
               (mode == 2 ? n == k : n == c1 - c0) && c1 - c0 >= 0 &&
                   c1 - c0 <= nNew,
               "INSERT OR %s ... SELECT of %d rows (%d items absent before): "
               "changes() %d, count grew by %lld",
               mode == 1 ? "IGNORE" : "REPLACE", k, nNew, n,
               (long long)(c1 - c0));
    if (c1 - c0 == nNew) {
      for (i = 0; i < nNew; i++)
        v_change(V, aNew[i], 1);
    } else {
      V->nAmbiguous++;
    }
  }
  for (i = 0; i < m && i < k; i++)
    if (mset_get(&V->m, aId[i]) > 0) v_expect_found(V, aId[i], "after "
                                                    "INSERT ... SELECT with "
                                                    "repeated items");
}

static int64_t v_cookie(vsub *V);

static void v_begin(vsub *V) {
  tl_exec(V->db, "BEGIN");
  V->iCookie = v_cookie(V);
  V->depth = 1;
  V->nUndo = 0;
}

/* The transaction's latest inserts (up to 8) that the model holds must
** still be found: a failed statement undoes only itself. */
static void v_check_recent(vsub *V, const char *zWhen) {
  uint64_t i;
  int n = 0;
  for (i = V->nUndo; i > 0 && n < 8; i--) {
    const undo *u = &V->aUndo[i - 1];
    if (u->delta > 0 && mset_get(&V->m, u->id) > 0) {
      v_expect_found(V, u->id, zWhen);
      n++;
    }
  }
}

/*
** A statement that fails midway, mostly inside a transaction: INSERT INTO
** lg of k rows whose trigger inserts each into t, reads it back in the
** same statement, and RAISEs on row j; an INSERT ... SELECT whose
** function fails on row j (integer overflow); or 17 to 40 copies of one
** item (too many copies, unless earlier levels take some).  A failed
** statement leaves the table's count as it was, the model unchanged, and
** the transaction's earlier inserts found; a statement that runs to the
** end stored every row, each found by the reads inside it, and the
** count cuckoo_table_info() gave after row r is the count before plus r.
*/
static void v_fail_mid(vsub *V) {
  uint64_t aId[40], lo = V->base + rnd_below(V->pool);
  int kind = (int)rnd_below(3), k = 1 + (int)rnd_below(40), i, r;
  int64_t j = -1, c0, c1;
  sqlite3_stmt *s;
  const char *zWant;
  char *zErr = 0;
  if (V->depth == 0 && chance(0.8)) v_begin(V);
  if (kind == 2) {
    k = 17 + (int)rnd_below(24);
    for (i = 0; i < k; i++)
      aId[i] = lo;
  } else {
    for (i = 0; i < k; i++)
      aId[i] = lo + (uint64_t)i;
    if (chance(0.7)) j = (int64_t)(lo + rnd_below((uint64_t)k));
  }
  c0 = v_table_count(V);
  if (kind == 0) {
    s = tl_prep(V->db, "UPDATE stopat SET v = ?1");
    sqlite3_bind_int64(s, 1, j);
    sqlite3_step(s);
    sqlite3_finalize(s);
    tl_exec(V->db, "DELETE FROM rd");
    s = tl_prep(V->db, RANGE_CTE "INSERT INTO lg SELECT i FROM r");
    zWant = "stopped at this row";
  } else if (kind == 1) {
    s = tl_prep(V->db, RANGE_CTE
                "INSERT INTO t(item) SELECT CASE WHEN i = ?3 THEN "
                "abs(-9223372036854775807 - 1) ELSE " ITEM_SQL("i") " END "
                "FROM r");
    sqlite3_bind_int64(s, 3, j);
    zWant = "integer overflow";
  } else {
    s = tl_prep(V->db, RANGE_CTE "INSERT INTO t(item) SELECT " ITEM_SQL(
                           "?1 + 0 * i") " FROM r");
    zWant = "too many copies";
  }
  sqlite3_bind_int64(s, 1, (sqlite3_int64)lo);
  sqlite3_bind_int64(s, 2, k);
  r = sqlite3_step(s);
  if (r != SQLITE_DONE)
    zErr = sqlite3_mprintf("%s", sqlite3_errmsg(V->db));
  sqlite3_finalize(s);
  V->nFailMid++;
  c1 = v_table_count(V);
  if (r == SQLITE_DONE) {
    PROP_CHECK(P_VTAB_MIRROR, j < 0 && c1 - c0 == k,
               "a statement of %d rows (kind %d, failing row %lld) ran to "
               "the end; the count grew by %lld",
               k, kind, (long long)j, (long long)(c1 - c0));
    for (i = 0; i < k; i++)
      v_change(V, aId[i], 1);
    if (kind == 0) {
      int64_t nBad =
          one_int(V->db, "SELECT count(*) FROM rd WHERE found IS NOT 1");
      int64_t nRd = one_int(V->db, "SELECT count(*) FROM rd");
      char zSql[120];
      PROP_CHECK(P_NO_FALSE_NEG, nBad == 0 && nRd == k,
                 "reads inside the inserting statement: %lld of %lld rows "
                 "did not find the item just inserted",
                 (long long)nBad, (long long)nRd);
      /* cuckoo_table_info's count after row r of the statement */
      snprintf(zSql, sizeof(zSql),
               "SELECT count(*) FROM rd WHERE cnt IS NOT %lld + rowid",
               (long long)c0);
      nBad = one_int(V->db, zSql);
      PROP_CHECK(P_VTAB_MIRROR, nBad == 0,
                 "cuckoo_table_info() inside the inserting statement: %lld "
                 "of %lld rows did not count the rows inserted before",
                 (long long)nBad, (long long)nRd);
    }
    v_expect_found(V, lo, "after a statement that ran to the end");
  } else {
    int bOk = strstr(zErr, zWant) != 0;
    if (!bOk && strstr(zErr, "cuckoo table t") && allowed_refusal(zErr)) {
      /* a row met a full table (growth off) or too many copies */
      bOk = !strstr(zErr, "too many copies") ||
            v_too_many_ok(V, zErr, aId, k);
    } else if (bOk && kind == 2) {
      bOk = v_too_many_ok(V, zErr, aId, k);
    }
    PROP_CHECK(P_ERRORS, bOk,
               "statement of %d rows (kind %d, failing row %lld): error %s",
               k, kind, (long long)j, zErr);
    PROP_CHECK(P_ROLLBACK, c1 == c0,
               "a statement that failed midway (%s) changed the count from "
               "%lld to %lld",
               zErr, (long long)c0, (long long)c1);
    if (kind == 0) {
      PROP_CHECK(P_ROLLBACK, one_int(V->db, "SELECT count(*) FROM rd") == 0,
                 "a failed statement left rows of its trigger");
    }
    v_check_recent(V, "after a failed statement in the transaction");
  }
  sqlite3_free(zErr);
}

/* One single-row INSERT of a run; returns 1 if it stored the copy. */
static int v_run_insert(vsub *V, uint64_t id) {
  item_bind(V->sIns1, 1, id, id % 5 == 0 && chance(0.3));
  if (v_write(V, V->sIns1, "INSERT (run)", &id, 1) != 1) return 0;
  v_change(V, id, 1);
  return 1;
}

/*
** A run of single-row INSERTs with no read between them, a SAVEPOINT in
** the middle of the run, then ROLLBACK TO it (60%) or not, more inserts,
** RELEASE.  The table's count afterwards is exactly what it was before the
** run plus the inserts kept (read before the run half of the time, so
** that nothing reads the table during the run); every kept item is found.
*/
static void v_run(vsub *V) {
  uint64_t aId[80], pos;
  int n1 = (int)rnd_below(30), n2 = 1 + (int)rnd_below(30),
      n3 = (int)rnd_below(10), i, nKept = 0, nBack = chance(0.6);
  int bCount = chance(0.5), nId = 0;
  int64_t c0 = -1, c1;
  if (V->depth == 0) v_begin(V);
  if (bCount) c0 = v_table_count(V);
  for (i = 0; i < n1; i++) {
    aId[nId] = v_pick_add(V);
    nKept += v_run_insert(V, aId[nId++]);
  }
  tl_exec(V->db, "SAVEPOINT run");
  pos = V->nUndo;
  for (i = 0; i < n2; i++) {
    uint64_t id = chance(0.3) && nId ? aId[rnd_below((uint64_t)nId)]
                                     : v_pick_add(V);
    int k = v_run_insert(V, id);
    if (!nBack) {
      aId[nId++] = id;
      nKept += k;
    }
  }
  if (nBack) {
    tl_exec(V->db, "ROLLBACK TO run");
    v_undo_to(V, pos);
    V->nRunBack++;
  }
  for (i = 0; i < n3; i++) {
    aId[nId] = v_pick_add(V);
    nKept += v_run_insert(V, aId[nId++]);
  }
  tl_exec(V->db, "RELEASE run");
  V->nRun++;
  if (bCount) {
    c1 = v_table_count(V);
    PROP_CHECK(P_ROLLBACK, c1 == c0 + nKept,
               "a run of inserts with a savepoint (%s): count %lld, expected "
               "%lld + %d kept",
               nBack ? "rolled back to" : "released", (long long)c1,
               (long long)c0, nKept);
  }
  for (i = 0; i < nId; i++)
    if (mset_get(&V->m, aId[i]) > 0)
      v_expect_found(V, aId[i], "after a run of inserts with a savepoint");
}

static void v_lookup_in(vsub *V) {
  uint64_t aId[4];
  int i, j, nDistinct = 0;
  int64_t got = -1;
  if (V->m.nList == 0) return;
  for (i = 0; i < 4; i++) {
    aId[i] = mset_random(&V->m);
    for (j = 0; j < i && aId[j] != aId[i]; j++) {
    }
    nDistinct += j == i;
    item_bind(V->sLookIn, i + 1, aId[i], 0);
  }
  if (step1(V->sLookIn) == SQLITE_ROW)
    got = sqlite3_column_int64(V->sLookIn, 0);
  done(V->sLookIn);
  PROP_CHECK(P_NO_FALSE_NEG, got == nDistinct,
             "IN lookup of %d present items returned %lld rows", nDistinct,
             (long long)got);
}

static void v_probe(vsub *V) {
  if (V->m.nList && chance(0.5)) {
    v_expect_found(V, mset_random(&V->m), "(random probe)");
  } else {
    int r = v_found(V, absent_id());
    V->fp.nProbe++;
    V->fp.nPos += r == 1;
    V->fp.sumTarget += V->er;
    V->fp.sumExpected += V->expectedFpr;
  }
}

/* The count a statement like sCount gives (-1 on an error). */
static int64_t count_of(sqlite3_stmt *s) {
  int64_t c = -1;
  if (step1(s) == SQLITE_ROW) c = sqlite3_column_int64(s, 0);
  done(s);
  return c;
}

static int64_t v_table_count(vsub *V) { return count_of(V->sCount); }

static void v_sweep(vsub *V) {
  uint64_t i;
  int64_t c;
  for (i = 0; i < V->m.nList; i++)
    v_expect_found(V, V->m.aList[i], "(sweep)");
  c = v_table_count(V);
  PROP_CHECK(P_COUNT, c >= V->m.nTotal,
             "table count %lld below the model's %lld", (long long)c,
             (long long)V->m.nTotal);
  V->nSweep++;
  V->nSinceSweep = 0;
}

static void v_check(vsub *V) {
  sqlite3_stmt *s = tl_prep(V->db, "SELECT cuckoo_check('t')");
  const char *z = "(no row)";
  if (sqlite3_step(s) == SQLITE_ROW)
    z = (const char *)sqlite3_column_text(s, 0);
  PROP_CHECK(P_CHECK, z && strcmp(z, "ok") == 0, "cuckoo_check: %s",
             z ? z : sqlite3_errmsg(V->db));
  sqlite3_finalize(s);
  V->nCheck++;
}

/* Undo the model back to undo-log length pos; afterwards every item whose
** copy the rollback brought back must be found. */
static void v_undo_to(vsub *V, uint64_t pos) {
  uint64_t i, nBack = 0;
  uint64_t aBack[16];
  for (i = V->nUndo; i > pos; i--) {
    const undo *u = &V->aUndo[i - 1];
    mset_add(&V->m, u->id, -u->delta);
    if (u->delta > 0) mset_add(&V->ever, u->id, -u->delta);
    if (u->delta < 0 && nBack < 16) aBack[nBack++] = u->id;
  }
  V->nUndo = pos;
  for (i = 0; i < nBack; i++) {
    int r;
    if (mset_get(&V->m, aBack[i]) == 0) continue; /* added in it, too */
    r = v_found(V, aBack[i]);
    PROP_CHECK(P_ROLLBACK, r == 1,
               "item %llu deleted in the undone part is not back",
               (unsigned long long)aBack[i]);
  }
}

/* The cookie row: other connections see a commit that changed the table
** only if it moved (docs/virtual-table.md). */
static int64_t v_cookie(vsub *V) {
  return one_int(V->db, "SELECT v FROM t_config WHERE k = 'cookie'");
}

/* After COMMIT (bCommit) or ROLLBACK of v_begin()'s transaction: a commit
** that kept an insert moved the cookie by exactly one, any other by at
** most one (one bump per transaction, whatever its savepoints and
** ROLLBACK TOs undid); a rollback left it as it was.  (A DELETE of an
** item that matches on several levels leaves the table as it was:
** docs/virtual-table.md#growth.) */
static void v_cookie_check(vsub *V, int bCommit) {
  int64_t d = (int64_t)((uint64_t)v_cookie(V) - (uint64_t)V->iCookie);
  uint64_t i, nIns = 0;
  for (i = 0; i < V->nUndo; i++)
    nIns += V->aUndo[i].delta > 0;
  if (bCommit && nIns > 0) {
    PROP_CHECK(P_VTAB_MIRROR, d == 1,
               "COMMIT of %llu inserts moved the cookie by %lld, not 1",
               (unsigned long long)nIns, (long long)d);
  } else {
    PROP_CHECK(P_VTAB_MIRROR, d == 0 || (bCommit && d == 1),
               "%s of a transaction that kept no insert moved the cookie "
               "by %lld",
               bCommit ? "COMMIT" : "ROLLBACK", (long long)d);
  }
}

/* COMMIT of v_begin()'s transaction. */
static void v_commit(vsub *V) {
  tl_exec(V->db, "COMMIT");
  V->depth = 0;
  v_cookie_check(V, 1);
  V->nUndo = 0;
  V->nCommit++;
}

static void v_txn(vsub *V) {
  char zSql[64];
  uint64_t r = rnd_below(100);
  if (V->depth == 0) {
    v_begin(V);
  } else if (r < 30 && V->depth < 8) {
    snprintf(zSql, sizeof(zSql), "SAVEPOINT s%d", V->depth);
    tl_exec(V->db, zSql);
    V->aSpPos[V->depth] = V->nUndo;
    V->depth++;
  } else if (r < 55 && V->depth > 1) {
    snprintf(zSql, sizeof(zSql), "RELEASE s%d", V->depth - 1);
    tl_exec(V->db, zSql);
    V->depth--;
  } else if (r < 70 && V->depth > 1) {
    snprintf(zSql, sizeof(zSql), "ROLLBACK TO s%d", V->depth - 1);
    tl_exec(V->db, zSql);
    v_undo_to(V, V->aSpPos[V->depth - 1]);
    V->nRollbackTo++;
  } else if (r < 85) {
    tl_exec(V->db, "ROLLBACK");
    v_undo_to(V, 0);
    V->depth = 0;
    V->nRollback++;
    v_cookie_check(V, 0);
  } else {
    v_commit(V);
  }
}

/* A second connection sees the committed state. */
static void v_db2(vsub *V) {
  sqlite3 *db2 = 0;
  sqlite3_stmt *s;
  int i;
  if (sqlite3_open(V->zFile, &db2) != SQLITE_OK) exit(2);
  s = tl_prep(db2, "SELECT count(*) FROM t WHERE item = ?1");
  for (i = 0; i < 50 && V->m.nList; i++) {
    uint64_t id = mset_random(&V->m);
    item_bind(s, 1, id, 0);
    PROP_CHECK(P_NO_FALSE_NEG,
               step1(s) == SQLITE_ROW && sqlite3_column_int(s, 0) == 1,
               "second connection: item %llu not found (%s)",
               (unsigned long long)id, sqlite3_errmsg(db2));
    done(s);
  }
  sqlite3_finalize(s);
  sqlite3_close(db2);
  V->nDb2++;
  if (one_int(V->db, "SELECT count(*) FROM t_log") > 0) V->nLogged++;
}

/* Outside a transaction, the other connection becomes the one the
** operations use.  Its block cache was filled before this one's last
** commits, so it must see them (docs/virtual-table.md: the cookie). */
static void v_swap(vsub *V) {
  sqlite3_stmt **ap[V_NSTMT];
  sqlite3 *db = V->db;
  int i;
  if (V->depth) return;
  if (V->dbAlt == 0) V->dbAlt = v_connect(V);
  v_stmts(V, ap);
  V->db = V->dbAlt;
  V->dbAlt = db;
  for (i = 0; i < V_NSTMT; i++) {
    sqlite3_stmt *t = *ap[i];
    *ap[i] = V->aAlt[i];
    V->aAlt[i] = t;
  }
  if (V->sIns1 == 0) v_prepare(V);
  V->nSwap++;
  V->nSharedSwap += V->bShared;
}

/* 1 if the other connection finds id, 0 if not, -1 on an error. */
static int v_alt_found(sqlite3_stmt *s, uint64_t id) {
  int r = -1;
  item_bind(s, 1, id, 0);
  if (step1(s) == SQLITE_ROW) r = sqlite3_column_int(s, 0);
  done(s);
  return r;
}

/* WAL: a read transaction of the other connection keeps its snapshot
** (the count, and every item then present) while this connection
** deletes, inserts and commits; once it ends, it sees the commits. */
static void v_snapshot(vsub *V) {
  uint64_t aId[16];
  int nId, i, nWrite;
  int64_t c0, c1, c2, cNow;
  sqlite3_stmt *sLook, *sCount;
  if (V->depth || strcmp(V->zJournal, "wal") != 0 || V->m.nList == 0 ||
      V->bShared) {
    return; /* (on a shared cache, a write waits for the other's reads) */
  }
  if (V->dbAlt == 0) V->dbAlt = v_connect(V);
  sLook = tl_prep(V->dbAlt, "SELECT count(*) FROM t WHERE item = ?1");
  sCount = tl_prep(V->dbAlt,
                   "SELECT json_extract(cuckoo_table_info('t'), '$.count')");
  tl_exec(V->dbAlt, "BEGIN");
  c0 = count_of(sCount);
  PROP_CHECK(P_COUNT, c0 >= V->m.nTotal,
             "other connection: table count %lld below the model's %lld",
             (long long)c0, (long long)V->m.nTotal);
  nId = V->m.nList < 16 ? (int)V->m.nList : 16;
  for (i = 0; i < nId; i++) {
    aId[i] = mset_random(&V->m);
    PROP_CHECK(P_NO_FALSE_NEG, v_alt_found(sLook, aId[i]) == 1,
               "other connection: item %llu not found (%s)",
               (unsigned long long)aId[i], sqlite3_errmsg(V->dbAlt));
  }
  /* this connection writes, in a transaction or not, and commits */
  if (chance(0.5)) v_begin(V);
  nWrite = 1 + (int)rnd_below(8);
  for (i = 0; i < nWrite; i++) {
    uint64_t r = rnd_below(4);
    if (r == 0) v_delete(V);
    else if (r == 1) v_insert(V, 1 + 2 * (int)rnd_below(2));
    else if (r == 2) v_insert_ignore(V);
    else v_bulk(V);
  }
  if (V->depth) v_commit(V);
  /* the snapshot is unchanged */
  c1 = count_of(sCount);
  PROP_CHECK(P_VTAB_MIRROR, c1 == c0,
             "other connection's read transaction: count %lld, then %lld "
             "after this connection committed",
             (long long)c0, (long long)c1);
  for (i = 0; i < nId; i++) {
    PROP_CHECK(P_NO_FALSE_NEG, v_alt_found(sLook, aId[i]) == 1,
               "other connection's read transaction: item %llu, found at "
               "its start, not found after this connection committed (%s)",
               (unsigned long long)aId[i], sqlite3_errmsg(V->dbAlt));
  }
  tl_exec(V->dbAlt, "COMMIT");
  /* and now it sees them */
  c2 = count_of(sCount);
  cNow = v_table_count(V);
  PROP_CHECK(P_VTAB_MIRROR, c2 == cNow,
             "other connection after its read transaction: count %lld, this "
             "connection's %lld",
             (long long)c2, (long long)cNow);
  for (i = 0; i < 16 && V->m.nList; i++) {
    uint64_t id = mset_random(&V->m);
    PROP_CHECK(P_NO_FALSE_NEG, v_alt_found(sLook, id) == 1,
               "other connection after its read transaction: item %llu not "
               "found (%s)",
               (unsigned long long)id, sqlite3_errmsg(V->dbAlt));
  }
  sqlite3_finalize(sLook);
  sqlite3_finalize(sCount);
  V->nSnap++;
  if (chance(0.5)) v_swap(V);
}

/* Export every level into a new table; it must find every item. */
static void v_export(vsub *V) {
  char zSql[200];
  sqlite3_stmt *s;
  uint64_t i;
  snprintf(zSql, sizeof(zSql),
           "DROP TABLE IF EXISTS u; CREATE VIRTUAL TABLE u USING "
           "cuckoo(capacity=10, seed=%llu)",
           (unsigned long long)V->seed);
  tl_exec(V->db, zSql);
  s = tl_prep(V->db, "INSERT INTO u(filter) SELECT cuckoo_export('main', 't', "
                     "level) FROM t_levels ORDER BY level");
  if (sqlite3_step(s) != SQLITE_DONE) {
    fail(P_ERRORS, "export/import: %s", sqlite3_errmsg(V->db));
  }
  sqlite3_finalize(s);
  s = tl_prep(V->db, "SELECT count(*) FROM u WHERE item = ?1");
  for (i = 0; i < V->m.nList; i++) {
    item_bind(s, 1, V->m.aList[i], 0);
    PROP_CHECK(P_NO_FALSE_NEG,
               step1(s) == SQLITE_ROW && sqlite3_column_int(s, 0) == 1,
               "imported copy: item %llu not found",
               (unsigned long long)V->m.aList[i]);
    done(s);
  }
  sqlite3_finalize(s);
  tl_exec(V->db, "DROP TABLE u");
  V->nExport++;
}

static void v_end_checks(vsub *V) {
  int64_t lv;
  char *z = 0;
  sqlite3_stmt *s;
  if (V->depth) {
    tl_exec(V->db, "COMMIT");
    V->depth = 0;
    V->nUndo = 0;
  }
  v_close(V);
  v_open(V);
  v_prepare(V);
  v_sweep(V);
  v_check(V);
  s = tl_prep(V->db, "PRAGMA integrity_check");
  if (sqlite3_step(s) == SQLITE_ROW)
    z = sqlite3_mprintf("%s", sqlite3_column_text(s, 0));
  sqlite3_finalize(s);
  PROP_CHECK(P_CHECK, z && strcmp(z, "ok") == 0, "integrity_check: %s", z);
  sqlite3_free(z);
  lv =
      one_int(V->db, "SELECT json_extract(cuckoo_table_info('t'), '$.levels')");
  if ((uint64_t)lv > V->maxLevels) V->maxLevels = (uint64_t)lv;
}

static void v_step(vsub *V) {
  uint64_t r = rnd_below(10000);
  if (V->nSinceSweep++ > V->m.nList + 2000) v_sweep(V);
  if ((g_op & 1023) == 0) {
    sqlite3_stmt *s = V->sFpr;
    if (step1(s) == SQLITE_ROW) V->expectedFpr = sqlite3_column_double(s, 0);
    done(s);
  }
  if (r < 4050) {
    v_probe(V);
  } else if (r < 4070) {
    v_swap(V);
  } else if (r < 4100) {
    v_snapshot(V);
  } else if (r < 4240) {
    v_or_insert(V);
  } else if (r < 4260) {
    v_bulk_dup(V);
  } else if (r < 4285) {
    v_fail_mid(V);
  } else if (r < 4300) {
    v_run(V);
  } else if (r < 6300) {
    v_insert(V, 1);
  } else if (r < 6600) {
    v_insert(V, 3);
  } else if (r < 7200) {
    v_insert_ignore(V);
  } else if (r < 9300) {
    v_delete(V);
  } else if (r < 9500) {
    v_update(V);
  } else if (r < 9700) {
    v_lookup_in(V);
  } else if (r < 9720) {
    v_bulk(V);
  } else if (r < 9960) {
    /* transactions: open most of the time, so most writes are inside
    ** one and commits are not a journal round trip each */
    if (V->depth == 0 || chance(0.25)) v_txn(V);
  } else if (r < 9975) {
    if (V->depth == 0) {
      v_close(V);
      v_open(V);
      v_prepare(V);
      V->nReopen++;
      if (one_int(V->db, "SELECT count(*) FROM t_log") > 0) V->nLogged++;
    }
  } else if (r < 9985) {
    if (V->depth == 0) v_db2(V);
  } else if (r < 9990) {
    if (chance(4000.0 / (double)(V->m.nTotal + 4000))) v_check(V);
  } else if (r < 9993) {
    if (V->depth == 0 && chance(4000.0 / (double)(V->m.nTotal + 4000)))
      v_export(V);
  } else if (r < 9996) {
    if (V->depth == 0 &&
        (V->m.nTotal > 25000 || V->nRefusedHere > 300 || chance(0.05))) {
      v_end_checks(V);
      v_recreate(V);
    }
  }
}

/* ---------------------------------------------------------------------
** Main
*/
/* One run; returns the number of failed properties.  Prints the report
** and a machine-readable "model_totals:" line for --jobs. */
static int run_model(uint64_t nOps, const char *zDir, const char *zOnly,
                     int quiet) {
  int k, nFail = 0, nPass = 0;
  struct timespec t0, t1;
  double secs;
  fsub F;
  vsub V;
  {
    char zCmd[600];
    snprintf(zCmd, sizeof(zCmd), "mkdir -p '%s'", zDir);
    if (system(zCmd) != 0) exit(2);
  }
  g_rng = g_seed * 0x2545F4914F6CDD1DULL + 12345;
  clock_gettime(CLOCK_MONOTONIC, &t0);
  f_init(&F);
  v_init(&V, zDir);
  for (g_op = 1; g_op <= nOps; g_op++) {
    if (zOnly ? zOnly[0] == 'f' : (rnd() & 1))
      f_step(&F);
    else
      v_step(&V);
    if (!quiet && g_op % 10000000 == 0) {
      clock_gettime(CLOCK_MONOTONIC, &t1);
      printf("  %llu operations, %.0f s\n", (unsigned long long)g_op,
             (double)(t1.tv_sec - t0.tv_sec));
      fflush(stdout);
    }
    if (g_nReported > 100) break;
  }
  /* short runs: every rare operation at least once */
  if (F.nWindow == 0) f_window(&F);
  if (F.nMerge == 0) f_merge(&F);
  if (V.nExport == 0 && V.depth == 0) v_export(&V);
  g_op = nOps;
  f_sweep(&F);
  v_end_checks(&V);
  clock_gettime(CLOCK_MONOTONIC, &t1);
  secs = (double)(t1.tv_sec - t0.tv_sec) +
         1e-9 * (double)(t1.tv_nsec - t0.tv_nsec);

  printf("model_test: seed %llu, %llu operations in %.1f s (%.0f per "
         "second)\n",
         (unsigned long long)g_seed, (unsigned long long)nOps, secs,
         (double)nOps / secs);
  printf("filters: %llu sweeps, %llu merges (%llu collapsed copies), %llu "
         "aggregate builds, %llu window runs, %llu refused adds\n",
         (unsigned long long)F.nSweep, (unsigned long long)F.nMerge,
         (unsigned long long)F.nCollapse, (unsigned long long)F.nAgg,
         (unsigned long long)F.nWindow, (unsigned long long)F.nRefused);
  printf("tables: %llu tables (up to %llu levels), %llu commits, %llu "
         "rollbacks, %llu rollbacks to a savepoint, %llu reopens, %llu "
         "second connections (%llu of those two replayed a log), %llu changes "
         "of the writing connection (%llu on a shared page cache), %llu WAL read "
         "transactions kept over "
         "the other's commits, %llu checks, %llu exports, %llu sweeps, "
         "%llu refused writes, %llu deleted items still found\n",
         (unsigned long long)V.nTable, (unsigned long long)V.maxLevels,
         (unsigned long long)V.nCommit, (unsigned long long)V.nRollback,
         (unsigned long long)V.nRollbackTo, (unsigned long long)V.nReopen,
         (unsigned long long)V.nDb2, (unsigned long long)V.nLogged,
         (unsigned long long)V.nSwap, (unsigned long long)V.nSharedSwap,
         (unsigned long long)V.nSnap,
         (unsigned long long)V.nCheck,
         (unsigned long long)V.nExport, (unsigned long long)V.nSweep,
         (unsigned long long)V.nRefused, (unsigned long long)V.nLeftover);
  printf("tables: %llu INSERT OR IGNORE/REPLACE statements (%llu with a "
         "repeated item, %llu storing fewer than the lookups predicted), %llu "
         "INSERT ... SELECT with repeated items, %llu statements failing "
         "midway or not, %llu runs of inserts with a savepoint (%llu rolled "
         "back to), %llu too-many refusals by the item's own copies, %llu "
         "by copies of items sharing its buckets\n",
         (unsigned long long)V.nOrStmt, (unsigned long long)V.nOrDup,
         (unsigned long long)V.nAmbiguous, (unsigned long long)V.nBulkDup,
         (unsigned long long)V.nFailMid, (unsigned long long)V.nRun,
         (unsigned long long)V.nRunBack, (unsigned long long)V.nTooMany,
         (unsigned long long)V.nTooManyShared);
  fp_report("filters", &F.fp, P_FPR_F);
  fp_report("tables", &V.fp, P_FPR_V);
  for (k = 0; k < P_N; k++) {
    printf("  %-48s %12llu checks %6llu violations\n", azProp[k],
           (unsigned long long)aChecked[k], (unsigned long long)aViolated[k]);
    if (aViolated[k] || aChecked[k] == 0)
      nFail++;
    else
      nPass++;
  }
  printf("model_totals: %llu %.3f %llu %llu %.6f %.6f %llu %llu %.6f %.6f "
         "%llu\n",
         (unsigned long long)nOps, secs, (unsigned long long)F.fp.nPos,
         (unsigned long long)F.fp.nProbe, F.fp.sumTarget, F.fp.sumExpected,
         (unsigned long long)V.fp.nPos, (unsigned long long)V.fp.nProbe,
         V.fp.sumTarget, V.fp.sumExpected,
         (unsigned long long)aChecked[P_NO_FALSE_NEG]);
  f_close(&F);
  v_close(&V);
  mset_free(&V.m);
  mset_free(&V.ever);
  free(V.aUndo);
  tl_nPass = nPass;
  tl_nFail = nFail;
  return tl_report("model_test");
}

/*
** --jobs J: J processes with seeds S, S+1, ..., N/J operations each, in
** directories DIR/job<j>, logs DIR/job<j>.log; their reports follow, then
** the combined totals.
*/
static int run_jobs(int nJob, uint64_t nOps, const char *zDir, int quiet) {
  char zLog[700], zLine[400];
  int j, k, nFail = 0, nPass = 0;
  uint64_t seed0 = g_seed;
  double sumSecs = 0, maxSecs = 0, aT[4] = {0, 0, 0, 0};
  unsigned long long nOpsAll = 0, nPosF = 0, nProbeF = 0, nPosV = 0,
                     nProbeV = 0, nNoFn = 0;
  struct timespec t0, t1;
  pid_t aPid[64];
  snprintf(zLog, sizeof(zLog), "mkdir -p '%s'", zDir);
  if (system(zLog) != 0) exit(2);
  fflush(stdout);
  clock_gettime(CLOCK_MONOTONIC, &t0);
  for (j = 0; j < nJob; j++) {
    aPid[j] = fork();
    if (aPid[j] < 0) {
      perror("fork");
      exit(2);
    }
    if (aPid[j] == 0) {
      char zSub[650];
      snprintf(zSub, sizeof(zSub), "%s/job%d", zDir, j);
      snprintf(zLog, sizeof(zLog), "%s/job%d.log", zDir, j);
      if (freopen(zLog, "w", stdout) == 0) _exit(2);
      g_seed = seed0 + (uint64_t)j;
      _exit(run_model(nOps / (uint64_t)nJob, zSub, 0, quiet) ? 1 : 0);
    }
  }
  for (j = 0; j < nJob; j++) {
    int status = 0;
    FILE *f;
    waitpid(aPid[j], &status, 0);
    snprintf(zLog, sizeof(zLog), "%s/job%d.log", zDir, j);
    printf("== job %d (seed %llu): %s\n", j, (unsigned long long)(seed0 + j),
           zLog);
    f = fopen(zLog, "r");
    while (f && fgets(zLine, sizeof(zLine), f)) {
      unsigned long long a[7];
      double secs, t[4];
      if (sscanf(zLine,
                 "model_totals: %llu %lf %llu %llu %lf %lf %llu %llu %lf %lf "
                 "%llu",
                 &a[0], &secs, &a[1], &a[2], &t[0], &t[1], &a[3], &a[4], &t[2],
                 &t[3], &a[5]) == 11) {
        nOpsAll += a[0];
        sumSecs += secs;
        if (secs > maxSecs) maxSecs = secs;
        nPosF += a[1];
        nProbeF += a[2];
        nPosV += a[3];
        nProbeV += a[4];
        nNoFn += a[5];
        for (k = 0; k < 4; k++)
          aT[k] += t[k];
        continue;
      }
      if (strncmp(zLine, "model_test: ", 12) == 0 &&
          strstr(zLine, " passed, ")) {
        continue; /* summed below */
      }
      fputs(zLine, stdout);
    }
    if (f) fclose(f);
    if (WIFEXITED(status) && WEXITSTATUS(status) == 0) {
      nPass++;
    } else {
      nFail++;
      printf("! job %d failed (status %d)\n", j, status);
    }
  }
  clock_gettime(CLOCK_MONOTONIC, &t1);
  printf("model_test: %d jobs, %llu operations in %.0f s wall clock (%.0f "
         "CPU-seconds of the jobs), %llu no-false-negative checks\n",
         nJob, nOpsAll,
         (double)(t1.tv_sec - t0.tv_sec) +
             1e-9 * (double)(t1.tv_nsec - t0.tv_nsec),
         sumSecs, nNoFn);
  printf("model_test: filters: %llu false positives in %llu probes: "
         "measured %.5f%%, target %.5f%%, expected at the probed loads "
         "%.5f%%\n",
         nPosF, nProbeF, nProbeF ? 100.0 * (double)nPosF / (double)nProbeF : 0,
         nProbeF ? 100.0 * aT[0] / (double)nProbeF : 0,
         nProbeF ? 100.0 * aT[1] / (double)nProbeF : 0);
  printf("model_test: tables: %llu false positives in %llu probes: "
         "measured %.5f%%, target %.5f%%, expected at the probed loads "
         "%.5f%%\n",
         nPosV, nProbeV, nProbeV ? 100.0 * (double)nPosV / (double)nProbeV : 0,
         nProbeV ? 100.0 * aT[2] / (double)nProbeV : 0,
         nProbeV ? 100.0 * aT[3] / (double)nProbeV : 0);
  (void)maxSecs;
  tl_nPass = nPass;
  tl_nFail = nFail;
  return tl_report("model_test");
}

int main(int argc, char **argv) {
  uint64_t nOps = 400000;
  const char *zDir = "build/model";
  const char *zOnly = 0; /* "f" or "v": one subject only (profiling) */
  int quiet = 0, k, nJob = 1;
  tl_zProgram = "model_test";
  const char *zSan = getenv("CUCKOO_SANITIZED");

  g_seed = 1;
  if (zSan && atoi(zSan)) nOps /= 4;
  for (k = 1; k < argc; k++) {
    if (strcmp(argv[k], "--ops") == 0 && k + 1 < argc) {
      nOps = (uint64_t)strtod(argv[++k], 0);
    } else if (strcmp(argv[k], "--seed") == 0 && k + 1 < argc) {
      g_seed = strtoull(argv[++k], 0, 10);
    } else if (strcmp(argv[k], "--dir") == 0 && k + 1 < argc) {
      zDir = argv[++k];
    } else if (strcmp(argv[k], "--jobs") == 0 && k + 1 < argc) {
      nJob = atoi(argv[++k]);
      if (nJob < 1 || nJob > 64) nJob = 1;
    } else if (strcmp(argv[k], "--only") == 0 && k + 1 < argc) {
      zOnly = argv[++k];
    } else if (strcmp(argv[k], "--quiet") == 0) {
      quiet = 1;
    } else {
      fprintf(stderr,
              "usage: %s [--ops N] [--seed S] [--jobs J] [--dir DIR] "
              "[--quiet]\n",
              argv[0]);
      return 2;
    }
  }
  sqlite3_auto_extension((void (*)(void))sqlite3_cuckoo_init);
  if (nJob > 1) return run_jobs(nJob, nOps, zDir, quiet);
  return run_model(nOps, zDir, zOnly, quiet) ? 1 : 0;
}
