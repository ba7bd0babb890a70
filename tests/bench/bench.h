/*
** Copyright (c) 2026 the cuckoo authors.  MIT License: see LICENSE.
**
** bench.h: what target_bench.c and bulk_load.c share: CPU seconds of
** this process (user + system: on a shared machine they vary much less
** than wall-clock time) and the median of three timings.  Nothing here
** uses the extension, so bulk_load.c still builds against the sources of
** any commit.
*/
#ifndef CUCKOO_BENCH_H
#define CUCKOO_BENCH_H

#include <sys/resource.h>

static double cpu(void) {
  struct rusage ru;
  getrusage(RUSAGE_SELF, &ru);
  return (double)ru.ru_utime.tv_sec + (double)ru.ru_utime.tv_usec * 1e-6 +
         (double)ru.ru_stime.tv_sec + (double)ru.ru_stime.tv_usec * 1e-6;
}

/* The median of a[0..2] (a is reordered). */
static double median3(double *a) {
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
