/*
 * polybench.c: runtime of ppcg-py's own implementation of the PolyBench/C
 * 4.2.1 kernels: aligned allocation, cache flushing and timing.
 * Compiles as C (gnu99 / c99) and as C++.
 */
#ifndef _POSIX_C_SOURCE
# define _POSIX_C_SOURCE 200112L
#endif

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "polybench.h"

/* Alignment of the arrays (bytes). */
#ifndef POLYBENCH_ALIGNMENT
# define POLYBENCH_ALIGNMENT 4096
#endif

/* Size of the buffer touched to flush the caches (bytes). */
#ifndef POLYBENCH_CACHE_SIZE_BYTES
# define POLYBENCH_CACHE_SIZE_BYTES (64UL * 1024UL * 1024UL)
#endif

static double polybench_t_start;
static double polybench_t_end;

static double polybench_now(void)
{
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double) ts.tv_sec + (double) ts.tv_nsec * 1.0e-9;
}

void *polybench_alloc_data(unsigned long long int n, int elt_size)
{
  unsigned long long int bytes = n * (unsigned long long int) elt_size;
  void *ptr = NULL;

  if (bytes == 0)
    bytes = 1;
  if (posix_memalign(&ptr, POLYBENCH_ALIGNMENT, (size_t) bytes) != 0
      || ptr == NULL) {
    fprintf(stderr, "[PolyBench] posix_memalign: cannot allocate %llu bytes\n",
            bytes);
    exit(1);
  }
  memset(ptr, 0, (size_t) bytes);
  return ptr;
}

void polybench_free_data(void *ptr)
{
  free(ptr);
}

void polybench_flush_cache(void)
{
  size_t count = POLYBENCH_CACHE_SIZE_BYTES / sizeof(double);
  double *buf = (double *) calloc(count, sizeof(double));
  volatile double sink = 0.0;
  double acc = 0.0;
  size_t i;

  if (buf == NULL)
    return;
  for (i = 0; i < count; i++)
    buf[i] = (double) (i & 7);
  for (i = 0; i < count; i++)
    acc += buf[i];
  sink = acc;
  (void) sink;
  free(buf);
}

void polybench_timer_start(void)
{
#ifndef POLYBENCH_NO_FLUSH_CACHE
  polybench_flush_cache();
#endif
  polybench_t_end = 0.0;
  polybench_t_start = polybench_now();
}

void polybench_timer_stop(void)
{
  polybench_t_end = polybench_now();
}

void polybench_timer_print(void)
{
  printf("%0.6f\n", polybench_t_end - polybench_t_start);
}
