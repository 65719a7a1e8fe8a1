// covers: leading dimensions that only the parameters keep whole (b[i * ldb + j], j < m): checked when the SCoP starts (ldb >= m, lda >= m), the original code running where they fail (rows that overlap)
#include <stdio.h>
#include <stdlib.h>
static void compute(int n, int m, int lda, int ldb, double alpha, const double *a, double *b)
{
#pragma scop
  for (int i = 0; i < n; i++)
    for (int j = 0; j < m; j++)
      b[i * ldb + j] += alpha * a[i * lda + j];
#pragma endscop
}

static void dump(const char *name, const double *v, int count)
{
  fprintf(stderr, "begin dump: %s\n", name);
  for (int t = 0; t < count; t++) fprintf(stderr, "%0.17g\n", v[t]);
  fprintf(stderr, "end   dump: %s\n", name);
}

int main(void)
{
  enum { SIZE = 2000 };
  double *a = malloc(sizeof(double) * SIZE), *b = malloc(sizeof(double) * SIZE);
  for (int t = 0; t < SIZE; t++) { a[t] = t % 17; b[t] = t % 5; }
  compute(33, 29, 31, 40, 0.5, a, b);
  compute(0, 5, 5, 5, 2.0, a, b);
  compute(7, 0, 3, 3, 2.0, a, b);
  compute(5, 12, 12, 13, -1.0, a + 3, b + 1400);
  compute(9, 7, 4, 5, 1.5, a + 11, b + 1500);        /* rows of b overlap: the original code */
  compute(6, 8, 9, 3, 0.25, a + 20, b + 1600);
  fprintf(stderr, "==BEGIN DUMP_ARRAYS==\n");
  dump("b", b, SIZE);
  fprintf(stderr, "==END   DUMP_ARRAYS==\n");
  free(a); free(b);
  return 0;
}
