/*
** Copyright (c) 2026 the cuckoo authors.  MIT License: see LICENSE.
**
** bench.h: what every benchmark of tests/bench shares, and nothing that
** uses the extension (so that bulk_load.c still builds against the
** sources of any commit).  Its whole API:
**
**   double cpu(void)            the one clock of every benchmark: CPU
**                               seconds (user + system, all threads) of
**                               this process, CLOCK_PROCESS_CPUTIME_ID.
**                               On a shared machine it leaves out the
**                               time other jobs hold the CPU, which wall
**                               time does not.  Time spent waiting for
**                               the disk is not counted either: a
**                               benchmark of I/O says so and reports
**                               what it read (vtab_bench's cold lookup).
**   double median3(double *a)   the median of a[0..2] (a is reordered),
**                               for a figure taken three times.
**
** A new benchmark includes "bench.h", times with cpu() and is built and
** run by tests/bench/Makefile (every *_bench.c).
*/
#ifndef CUCKOO_BENCH_H
#define CUCKOO_BENCH_H

#include <time.h>

static inline double cpu(void) {
  struct timespec ts;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static inline double median3(double *a) {
  double x;
#define SWAP(i, j)                                                             \
  if (a[i] > a[j]) {                                                           \
    x = a[i];                                                                  \
    a[i] = a[j];                                                               \
    a[j] = x;                                                                  \
  }
  SWAP(0, 1);
  SWAP(1, 2);
  SWAP(0, 1);
#undef SWAP
  return a[1];
}

#endif /* CUCKOO_BENCH_H */
