// covers: matrices behind pointers, addressed as flat sequences (c[i * m + j]): read as c[?][m], a[?][k], b[?][m]
#include <stdio.h>
#include <stdlib.h>
static void compute(int n, int m, int k, const double *a, const double *b, double *c)
{
#pragma scop
  for (int i = 0; i < n; i++)
    for (int j = 0; j < m; j++) {
      c[i * m + j] = 0.0;
      for (int l = 0; l < k; l++)
        c[i * m + j] += a[i * k + l] * b[l * m + j];
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
  enum { SIZE = 2000 };
  double *a = malloc(sizeof(double) * SIZE), *b = malloc(sizeof(double) * SIZE), *c = malloc(sizeof(double) * SIZE);
  for (int t = 0; t < SIZE; t++) { a[t] = (t % 13) * 0.5; b[t] = (t % 7) - 3.0; c[t] = -1.0; }
  compute(37, 29, 19, a, b, c);
  compute(0, 5, 3, a, b, c);
  compute(4, 3, 0, a, b, c);
  compute(5, 41, 33, a + 100, b + 7, c + 1100);
  fprintf(stderr, "==BEGIN DUMP_ARRAYS==\n");
  dump("c", c, SIZE);
  fprintf(stderr, "==END   DUMP_ARRAYS==\n");
  free(a); free(b); free(c);
  return 0;
}
