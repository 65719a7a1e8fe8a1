// covers: BLAS-style leading dimensions (a[i * lda + j], j < m <= lda): rows of lda elements, which --ctx states
// args: --ctx '[n, m, lda, ldb] -> { : lda >= m and ldb >= m }'
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
  fprintf(stderr, "==BEGIN DUMP_ARRAYS==\n");
  dump("b", b, SIZE);
  fprintf(stderr, "==END   DUMP_ARRAYS==\n");
  free(a); free(b);
  return 0;
}
