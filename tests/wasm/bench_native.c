/*
** Copyright (c) 2026 the cuckoo authors.  MIT License: see LICENSE.
**
** bench_native.c: the lookups of make bench-wasm, native.  Built with gcc
** -O2 from the same C as bindings/wasm/cuckoo-filter.wasm (the core and
** bindings/wasm/src/filter.c), and timed the same way as tests/wasm/bench.mjs
** times the WebAssembly build in Chromium:
**
**   bench_native N ROUNDS
**
** makes a filter for N integers (error rate 0.001), adds 0 .. N-1, then
** for ROUNDS rounds looks up 0 .. 2N-1 (half present) with
** ckf_bench_ints() and with one ckf_op() call per item; prints the median
** rate of each, in lookups per second, as JSON.
*/
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

typedef struct ckf ckf;
ckf *ckf_create(double capacity, double error_rate, unsigned bucket_size,
                const uint8_t *pSeed, int semisort, int *pRc);
int ckf_op(ckf *h, int op, int kind, const void *p, size_t n, double d);
uint32_t ckf_bench_ints(const ckf *h, double first, uint32_t n);

static double now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static int cmp(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

int main(int argc, char **argv) {
  uint32_t n = argc > 1 ? (uint32_t)atol(argv[1]) : 1000000;
  int rounds = argc > 2 ? atoi(argv[2]) : 5, r, rc;
  uint8_t seed[8] = {0};
  double loop[64], call[64];
  uint32_t found = 0, hits, i;
  ckf *h = ckf_create(n, 0.001, 4, seed, 0, &rc);
  if (h == 0 || rounds < 1 || rounds > 64) return 1;
  for (i = 0; i < n; i++) {
    int64_t v = i;
    if (ckf_op(h, 2, 1, &v, 8, 0) != 0) return 1;
  }
  for (r = 0; r < rounds; r++) {
    double t = now();
    found = ckf_bench_ints(h, 0, 2 * n);
    loop[r] = 2.0 * n / (now() - t);
    t = now();
    hits = 0;
    for (i = 0; i < 2 * n; i++) {
      int64_t v = i;
      hits += (uint32_t)ckf_op(h, 1, 1, &v, 8, 0);
    }
    call[r] = 2.0 * n / (now() - t);
    if (hits != found) return 1;
  }
  qsort(loop, (size_t)rounds, sizeof(double), cmp);
  qsort(call, (size_t)rounds, sizeof(double), cmp);
  printf("{\"n\": %u, \"loop\": %.0f, \"call\": %.0f, \"found\": %u}\n", n,
         loop[rounds / 2], call[rounds / 2], found);
  return 0;
}
