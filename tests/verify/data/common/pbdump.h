/* Prints arrays the way PolyBench's POLYBENCH_DUMP_ARRAYS does, for the
 * verification tests.  C and C++ compatible: the reference is built as C,
 * the generated host file as C++. */
#ifndef PBDUMP_H
#define PBDUMP_H
#include <stdio.h>

static inline void pbdump_begin(void) { fprintf(stderr, "==BEGIN DUMP_ARRAYS==\n"); }

static inline void pbdump_end(void) { fprintf(stderr, "==END   DUMP_ARRAYS==\n"); }

static inline void pbdump_doubles(const char *name, const double *a, int n)
{
  int i;
  fprintf(stderr, "begin dump: %s", name);
  for (i = 0; i < n; i++) {
    if (i % 20 == 0)
      fprintf(stderr, "\n");
    fprintf(stderr, "%0.2lf ", a[i]);
  }
  fprintf(stderr, "\nend   dump: %s\n", name);
}
#endif
