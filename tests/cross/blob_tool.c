/*
** Copyright (c) 2026 the cuckoo authors.  MIT License: see LICENSE.
**
** blob_tool.c: filter BLOBs that travel between CPUs (make cross).  The
** BLOB format is the same bytes on every machine; this tool makes that a
** tested fact between x86-64, s390x (big endian) and aarch64.
**
**   blob_tool write DIR   build every case's filter and write it to
**                         DIR/<case>.blob, and the same filter after more
**                         operations to DIR/<case>.next.blob
**   blob_tool check DIR   read another machine's files and check that
**                         (1) this machine builds byte-identical BLOBs,
**                         (2) the file opens, every item added is found
**                             (single and batched lookups) and the count
**                             is right, and
**                         (3) the file's own bytes, after the same further
**                             operations done here, equal its .next.blob.
**
** The cases cover bucket sizes 2, 4 and 8, several fingerprint widths
** (whole-word and field-by-field buckets), semi-sorted buckets, seeds,
** and items of every kind (integers, reals, text, BLOBs), inserted and
** removed one at a time and in batches.  Deterministic.  The last line
** is "blob_tool: N passed, N failed".
*/
#include "cuckoo_filter.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int nPass = 0, nFail = 0;

static void check(int ok, const char *zCase, const char *zWhat) {
  if (ok) {
    nPass++;
  } else {
    nFail++;
    printf("! %s: %s\n", zCase, zWhat);
  }
}

typedef struct bt_case {
  const char *zName;
  uint64_t capacity;
  double error_rate;
  unsigned bucket_size;
  uint32_t flags;
  uint64_t seed;
  int nItem; /* items of state A; the next state adds nItem / 2 more */
} bt_case;

static const bt_case aCase[] = {
    {"b4-default", 1000, 0.001, 4, 0, 0, 900},
    {"b2-f12", 500, 0.01, 2, 0, 7, 450},
    {"b8-f16", 3000, 0.0001, 8, 0, 123456789, 2500},
    {"b4-f24", 2000, 1e-6, 4, 0, 42, 1900},
    {"b4-f32", 700, 2e-9, 4, 0, 1, 600},
    {"b4-f5", 1500, 0.2, 4, 0, 99, 1300},
    {"ss-f9", 2000, 0.01, 4, CF_FLAG_SEMISORT, 3, 1800},
    {"ss-f13", 4000, 0.001, 4, CF_FLAG_SEMISORT, 0, 3700},
    {"ss-f24", 1000, 1e-6, 4, CF_FLAG_SEMISORT, 0xffffffffffffULL, 900},
    {"big", 200000, 0.001, 4, 0, 5, 190000},
};

/* Item i's hash: kinds in turn (integer, real, text, BLOB). */
static uint64_t item_hash(uint64_t seed, int i) {
  char z[32];
  int n;
  switch (i % 4) {
  case 0: return cf_hash_int(seed, (int64_t)i * 2654435761LL - 7);
  case 1: return cf_hash_real(seed, i + 0.25);
  case 2:
    n = snprintf(z, sizeof(z), "item-%d", i);
    return cf_hash_text(seed, z, (size_t)n);
  default:
    /* i's bytes, least significant first, then 0..2 padding bytes */
    z[0] = (char)(i & 0xff);
    z[1] = (char)((i >> 8) & 0xff);
    z[2] = (char)((i >> 16) & 0xff);
    z[3] = (char)((i >> 24) & 0xff);
    z[4] = z[5] = 0x5a;
    return cf_hash_blob(seed, z, 4 + (size_t)(i % 3));
  }
}

static int case_params(const bt_case *c, cf_params *p) {
  int rc =
      cf_params_for(p, c->capacity, c->error_rate, c->bucket_size, c->seed);
  if (rc == CF_OK && c->flags) {
    /* semi-sorted buckets: same geometry with the flag */
    p->flags = c->flags;
    rc = cf_params_check(p);
  }
  return rc;
}

/* Items lo..hi-1: even ones one at a time, odd ones in one batch. */
static void add_items(cf_filter *f, int lo, int hi) {
  uint64_t *a = malloc(sizeof(uint64_t) * (size_t)(hi - lo + 1));
  size_t n = 0;
  int i;
  if (a == 0) abort();
  for (i = lo; i < hi; i++) {
    if (i % 2 == 0) {
      cf_insert(f, cf_key_of(f, item_hash(f->p.seed, i)));
    } else {
      a[n++] = item_hash(f->p.seed, i);
    }
  }
  cf_insert_batch(f, a, n, 0);
  free(a);
}

/* Remove items lo..hi-1 that are multiples of 7 (batched) and of 11. */
static void remove_items(cf_filter *f, int lo, int hi) {
  uint64_t *a = malloc(sizeof(uint64_t) * (size_t)(hi - lo + 1));
  size_t n = 0;
  int i;
  if (a == 0) abort();
  for (i = lo; i < hi; i++) {
    if (i % 7 == 0) a[n++] = item_hash(f->p.seed, i);
    if (i % 11 == 0 && i % 7 != 0) {
      cf_remove(f, cf_key_of(f, item_hash(f->p.seed, i)));
    }
  }
  cf_remove_batch(f, a, n, 0);
  free(a);
}

static int removed(int i) { return i % 7 == 0 || i % 11 == 0; }

/* State A of case c in a new buffer (caller frees). */
static uint8_t *build(const bt_case *c, cf_filter *f) {
  cf_params p;
  uint8_t *buf;
  if (case_params(c, &p) != CF_OK) return 0;
  buf = calloc(1, cf_blob_size(&p));
  if (buf == 0 || cf_init(f, &p, buf) != CF_OK) {
    free(buf);
    return 0;
  }
  add_items(f, 0, c->nItem);
  remove_items(f, 0, c->nItem);
  return buf;
}

/* The further operations of the next state. */
static void advance(const bt_case *c, cf_filter *f) {
  add_items(f, c->nItem, c->nItem + c->nItem / 4);
  remove_items(f, 0, c->nItem / 3);
}

static int write_file(const char *zDir, const char *zName, const char *zSuf,
                      const uint8_t *a, size_t n) {
  char zPath[512];
  FILE *fp;
  int ok;
  snprintf(zPath, sizeof(zPath), "%s/%s%s", zDir, zName, zSuf);
  fp = fopen(zPath, "wb");
  if (fp == 0) return 0;
  ok = fwrite(a, 1, n, fp) == n;
  return fclose(fp) == 0 && ok;
}

static uint8_t *read_file(const char *zDir, const char *zName, const char *zSuf,
                          size_t *pn) {
  char zPath[512];
  FILE *fp;
  uint8_t *a = 0;
  long n;
  snprintf(zPath, sizeof(zPath), "%s/%s%s", zDir, zName, zSuf);
  fp = fopen(zPath, "rb");
  if (fp == 0) return 0;
  if (fseek(fp, 0, SEEK_END) == 0 && (n = ftell(fp)) > 0 &&
      fseek(fp, 0, SEEK_SET) == 0 && (a = malloc((size_t)n)) != 0 &&
      fread(a, 1, (size_t)n, fp) != (size_t)n) {
    free(a);
    a = 0;
  }
  fclose(fp);
  if (a) *pn = (size_t)n;
  return a;
}

static void do_write(const char *zDir, const bt_case *c) {
  cf_filter f;
  uint8_t *buf = build(c, &f);
  check(buf != 0, c->zName, "filter built");
  if (buf == 0) return;
  check(write_file(zDir, c->zName, ".blob", f.blob, f.blob_size), c->zName,
        "state A written");
  advance(c, &f);
  check(write_file(zDir, c->zName, ".next.blob", f.blob, f.blob_size), c->zName,
        "next state written");
  free(buf);
}

static void do_check(const char *zDir, const bt_case *c) {
  cf_filter mine, theirs;
  size_t nA = 0, nNext = 0, i, nFound;
  uint8_t *buf = build(c, &mine);
  uint8_t *a = read_file(zDir, c->zName, ".blob", &nA);
  uint8_t *aNext = read_file(zDir, c->zName, ".next.blob", &nNext);
  uint64_t *aHash;
  uint8_t *aFound;
  const char *zWhy = 0;
  int k, nLive = 0, bAll = 1;

  check(buf != 0 && a != 0 && aNext != 0, c->zName, "files read");
  if (buf == 0 || a == 0 || aNext == 0) goto done;
  /* (1) the same bytes built here */
  check(nA == mine.blob_size && memcmp(a, mine.blob, nA) == 0, c->zName,
        "state A byte-identical to this machine's");
  /* (2) the other machine's BLOB read here */
  check(cf_open(&theirs, a, nA, &zWhy) == CF_OK, c->zName,
        zWhy ? zWhy : "cf_open");
  if (zWhy) goto done;
  aHash = malloc(sizeof(uint64_t) * (size_t)c->nItem);
  aFound = malloc((size_t)c->nItem);
  if (aHash == 0 || aFound == 0) abort();
  for (k = 0; k < c->nItem; k++) {
    aHash[k] = item_hash(theirs.p.seed, k);
    if (!removed(k)) {
      nLive++;
      if (!cf_contains(&theirs, cf_key_of(&theirs, aHash[k]))) bAll = 0;
    }
  }
  check(bAll, c->zName, "every item found (single lookups)");
  nFound = cf_contains_batch(&theirs, aHash, (size_t)c->nItem, aFound);
  bAll = 1;
  for (i = 0; i < (size_t)c->nItem; i++) {
    if (!removed((int)i) && !aFound[i]) bAll = 0;
  }
  check(bAll && nFound >= (size_t)nLive, c->zName,
        "every item found (batched lookups)");
  check(theirs.count == (uint64_t)nLive, c->zName, "count");
  free(aHash);
  free(aFound);
  /* (3) written here from their bytes: their next state */
  advance(c, &theirs);
  check(theirs.blob_size == nNext && memcmp(theirs.blob, aNext, nNext) == 0,
        c->zName, "next state byte-identical when written here");
done:
  free(buf);
  free(a);
  free(aNext);
}

int main(int argc, char **argv) {
  size_t i;
  int bWrite;
  if (argc != 3 ||
      (strcmp(argv[1], "write") != 0 && strcmp(argv[1], "check") != 0)) {
    fprintf(stderr, "usage: blob_tool write|check DIR\n");
    return 2;
  }
  bWrite = strcmp(argv[1], "write") == 0;
  for (i = 0; i < sizeof(aCase) / sizeof(aCase[0]); i++) {
    if (bWrite) {
      do_write(argv[2], &aCase[i]);
    } else {
      do_check(argv[2], &aCase[i]);
    }
  }
  printf("blob_tool: %d passed, %d failed\n", nPass, nFail);
  return nFail ? 1 : 0;
}
