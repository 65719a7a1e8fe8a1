// covers: a 3-D grid behind a pointer, its places written in several groupings ((i * m + j) * p + k,
// i * m * p + j * p + k), a neighbour one row before the first (a digit of -1 outside the loops' rows)
#include <stdio.h>
#include <stdlib.h>
static void compute(int n, int m, int p, int steps, double *a, double *b)
{
#pragma scop
  for (int t = 0; t < steps; t++) {
    for (int i = 1; i < n - 1; i++)
      for (int j = 1; j < m - 1; j++)
        for (int k = 1; k < p - 1; k++)
          b[(i * m + j) * p + k] = 0.125 * (a[((i - 1) * m + j) * p + k] + a[((i + 1) * m + j) * p + k]
              + a[(i * m + j - 1) * p + k] + a[(i * m + j + 1) * p + k] + a[i * m * p + j * p + k - 1]
              + a[i * m * p + j * p + k + 1]) + 0.25 * a[(i * m + j) * p + k];
    for (int i = 1; i < n - 1; i++)
      for (int j = 1; j < m - 1; j++)
        for (int k = 1; k < p - 1; k++)
          a[(i * m + j) * p + k] = b[(i * m + j) * p + k];
  }
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
  enum { SIZE = 7000 };
  double *a = malloc(sizeof(double) * SIZE), *b = malloc(sizeof(double) * SIZE);
  for (int t = 0; t < SIZE; t++) { a[t] = (t * 7) % 31; b[t] = 0.0; }
  compute(11, 13, 17, 4, a, b);
  compute(2, 9, 9, 3, a, b);
  compute(9, 5, 1, 2, a, b);
  compute(6, 7, 19, 3, a + 2000, b + 2000);
  fprintf(stderr, "==BEGIN DUMP_ARRAYS==\n");
  dump("a", a, SIZE); dump("b", b, SIZE);
  fprintf(stderr, "==END   DUMP_ARRAYS==\n");
  free(a); free(b);
  return 0;
}
