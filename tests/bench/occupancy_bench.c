/*
** Copyright (c) 2026 the cuckoo authors.  MIT License: see LICENSE.
**
** occupancy_bench.c: where the cost of the core filter (ext/cuckoo_filter.h)
** grows as a filter fills, the paper's insert-throughput and
** lookup-throughput plots redrawn from our own runs.
**
** Usage (from the repository root; `make bench` runs it with no argument):
**
**   build/bench/occupancy_bench             the table, on standard output
**   build/bench/occupancy_bench DIR         the table, and one data file
**                                           per filter in DIR (the input
**                                           of occupancy.gp)
**
** BENCH_SCALE (environment, default 1) divides the large filter's size,
** for a quick smoke run.
**
** Filters: b = 4; plain with 12-bit fingerprints and semi-sorted with
** 13-bit fingerprints (both 48 bits per bucket, so the same bucket
** count); an L2-sized filter (2^17 buckets, 768 KB, inside the 2 MB L2 of
** the development machine) and a 192 MB one (2^25 buckets, the paper's
** Table 3 size).  Each filter is filled with distinct 64-bit integers in
** steps of 5% occupancy (stored items over slots) until the first insert
** fails.  For every step the program reports:
**
**   insert    M items/s over the step (hashing included), the rate at
**             which the table takes items at that occupancy;
**   lookup 0% M lookups/s of items never inserted, at the occupancy the
**             step ends at;
**   lookup 100% M lookups/s of items drawn at random from those stored.
**
** Operations go through the batched API (cf_hash_int_batch, then
** cf_insert_batch or cf_contains_batch on chunks of CHUNK items), and the
** items of a chunk are generated outside the timed part.  The L2-sized
** filter is filled REPS_SMALL times, the 192 MB one REPS_BIG times, and
** each figure is the best of the repetitions, as in speed_bench.c: the
** machine is shared, and the least disturbed repetition is the closest to
** what the code can do (one step of the small filter takes about a
** millisecond).  Times are the process's CPU time, not wall time, so
** that other jobs holding the CPU do not count (they still compete for
** caches and memory).  Every positive lookup is checked: a false
** negative aborts the run.
*/
#include "bench.h"
#include "cuckoo_filter.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define CHUNK 4096
#define STEP_PCT 5
#define MAX_STEPS 32
#define REPS_SMALL 9
#define REPS_BIG 3
#define REPS 9                   /* the larger of the two */
#define NEG_BASE 0x4000000000ULL /* ids of absent items start here */

static int g_scale = 1;


/* Item id -> the 64-bit integer stored (a bijection: distinct ids give
** distinct items). */
static int64_t item_of(uint64_t id) {
  return (int64_t)(id * 0x9e3779b97f4a7c15ULL + 0x632be59bd9b4e019ULL);
}

/* A small deterministic generator for the positive lookups' ids. */
static uint64_t rnd(uint64_t *s) {
  *s ^= *s << 13;
  *s ^= *s >> 7;
  *s ^= *s << 17;
  return *s;
}

static void fail(const char *zMsg, unsigned long long a) {
  fprintf(stderr, "occupancy_bench: %s (%llu)\n", zMsg, a);
  exit(1);
}

/* One step of the fill, as measured. */
typedef struct step {
  double occ; /* occupancy at the end of the step, 0..1 */
  double ins; /* insert M items/s over the step */
  double neg; /* lookup M ops/s, items never inserted */
  double pos; /* lookup M ops/s, stored items */
  int last;   /* 1: the step ended with the first failed insert */
} step;

/*
** Time nProbe lookups of absent ids (positive == 0) or of ids drawn from
** 0 .. nStored-1; returns M lookups per second.
*/
static double time_lookups(const cf_filter *f, uint64_t nStored,
                           uint64_t nProbe, int positive, uint64_t *pRnd) {
  static int64_t aV[CHUNK];
  static uint64_t aH[CHUNK];
  static uint8_t aFound[CHUNK];
  uint64_t done = 0;
  double sec = 0;
  while (done < nProbe) {
    size_t i, n = CHUNK, found;
    double t0;
    if (nProbe - done < n) n = (size_t)(nProbe - done);
    for (i = 0; i < n; i++) {
      uint64_t id = positive ? rnd(pRnd) % nStored : NEG_BASE + rnd(pRnd);
      aV[i] = item_of(id);
    }
    t0 = cpu();
    cf_hash_int_batch(f->p.seed, aV, n, aH);
    found = cf_contains_batch(f, aH, n, aFound);
    sec += cpu() - t0;
    if (positive && found != n) fail("false negative", done);
    done += n;
  }
  return (double)nProbe / sec / 1e6;
}

/*
** Fill a fresh filter with params p step by step; writes at most
** MAX_STEPS steps into aStep and returns how many.
*/
static int fill(const cf_params *p, uint64_t nProbe, step *aStep) {
  static int64_t aV[CHUNK];
  static uint64_t aH[CHUNK];
  cf_filter f;
  void *buf = malloc(cf_blob_size(p));
  uint64_t slots = p->nbuckets * p->bucket_size, id = 0, seedRnd = 7;
  int nStep = 0, rc = CF_OK;
  if (buf == 0) fail("out of memory", cf_blob_size(p));
  if (cf_init(&f, p, buf) != CF_OK) fail("bad parameters", p->nbuckets);
  while (rc == CF_OK && nStep < MAX_STEPS) {
    uint64_t goal = slots * (uint64_t)(STEP_PCT * (nStep + 1)) / 100;
    uint64_t before = f.count;
    double sec = 0;
    step *s = &aStep[nStep++];
    while (rc == CF_OK && f.count < goal) {
      size_t i, n = CHUNK;
      double t0;
      if (goal - f.count < n) n = (size_t)(goal - f.count);
      for (i = 0; i < n; i++)
        aV[i] = item_of(id + i);
      t0 = cpu();
      cf_hash_int_batch(p->seed, aV, n, aH);
      id += cf_insert_batch(&f, aH, n, &rc);
      sec += cpu() - t0;
    }
    if (f.count != id) fail("count mismatch", f.count);
    s->occ = (double)f.count / (double)slots;
    s->ins = sec > 0 ? (double)(f.count - before) / sec / 1e6 : 0;
    s->neg = time_lookups(&f, f.count, nProbe, 0, &seedRnd);
    s->pos = f.count ? time_lookups(&f, f.count, nProbe, 1, &seedRnd) : 0;
    s->last = rc != CF_OK;
  }
  free(buf);
  return nStep;
}

/* The best (highest) of n rates. */
static double best(const double *a, int n) {
  double x = a[0];
  int i;
  for (i = 1; i < n; i++)
    x = a[i] > x ? a[i] : x;
  return x;
}

/* Run one filter (reps fills, best per step) and print its rows. */
static void run(const char *zName, const char *zVariant, uint64_t nbuckets,
                int semisort, int reps, uint64_t nProbe, const char *zDir) {
  static step aRun[REPS][MAX_STEPS];
  cf_params p;
  int r, i, nStep = MAX_STEPS;
  FILE *out = 0;
  memset(&p, 0, sizeof(p));
  p.nbuckets = nbuckets;
  p.bucket_size = 4;
  p.fp_bits = semisort ? 13 : 12;
  p.flags = semisort ? CF_FLAG_SEMISORT : 0;
  p.capacity = nbuckets * 4;
  for (r = 0; r < reps; r++) {
    int n = fill(&p, nProbe, aRun[r]);
    if (n < nStep) nStep = n; /* the repetitions fail at about the same step */
  }
  if (zDir) {
    char zPath[512];
    snprintf(zPath, sizeof(zPath), "%s/occupancy_%s_%s.dat", zDir, zName,
             zVariant);
    out = fopen(zPath, "w");
    if (out == 0) fail("cannot write the data file", 0);
    fprintf(out, "# occupancy%%  insert_Mops  lookup0_Mops  lookup100_Mops\n");
  }
  for (i = 0; i < nStep; i++) {
    double ins[REPS], neg[REPS], pos[REPS], occ = aRun[0][i].occ;
    for (r = 0; r < reps; r++) {
      ins[r] = aRun[r][i].ins;
      neg[r] = aRun[r][i].neg;
      pos[r] = aRun[r][i].pos;
    }
    printf("| %s | %s | %.1f%% | %.1f | %.1f | %.1f |\n", zName, zVariant,
           100 * occ, best(ins, reps), best(neg, reps), best(pos, reps));
    if (out)
      fprintf(out, "%.2f %.3f %.3f %.3f\n", 100 * occ, best(ins, reps),
              best(neg, reps), best(pos, reps));
  }
  if (out) fclose(out);
  fflush(stdout);
}

int main(int argc, char **argv) {
  const char *zScale = getenv("BENCH_SCALE");
  const char *zDir = argc > 1 ? argv[1] : 0;
  uint64_t bigBuckets;
  if (zScale && atoi(zScale) > 0) g_scale = atoi(zScale);
  bigBuckets = ((uint64_t)1 << 25) / (uint64_t)g_scale;
  printf(
      "Throughput as the filter fills, b = 4, hash included (M ops/s; "
      "CPU time; each row ends a %d%% step;\nbest of %d fills (L2-sized) or %d "
      "(192 MB); BENCH_SCALE=%d)\n\n",
      STEP_PCT, REPS_SMALL, REPS_BIG, g_scale);
  printf("| filter | variant | occupancy | insert | lookup 0%% | "
         "lookup 100%% |\n");
  printf("| --- | --- | ---: | ---: | ---: | ---: |\n");
  run("L2", "plain", (uint64_t)1 << 17, 0, REPS_SMALL, 1 << 19, zDir);
  run("L2", "semisort", (uint64_t)1 << 17, 1, REPS_SMALL, 1 << 19, zDir);
  run("192MB", "plain", bigBuckets, 0, REPS_BIG, (1 << 22) / g_scale, zDir);
  run("192MB", "semisort", bigBuckets, 1, REPS_BIG, (1 << 22) / g_scale, zDir);
  return 0;
}
