/* As rows_then_reversed.c, with a scalar that each iteration of the parallel loop sets
   and reads: a copy per thread (lastprivate), which OpenMP writes back at the end of
   each execution, so the loop keeps its barriers. */
#include <stdio.h>
#define N 37
#define T 5

static void kernel(double A[N][N], double x[N], double y[N])
{
  int t, i, j;
  double s;
#pragma scop
  for (t = 0; t < T; t++) {
    for (i = 0; i < N; i++)
      for (j = 0; j < N; j++)
        {
          s = A[i][j] * x[i];
          y[j] = y[j] + s;
        }
    for (j = 0; j < N; j++)
      x[j] = y[N - 1 - j] * 0.5;
  }
#pragma endscop
}

static double A[N][N], x[N], y[N];

int main(void)
{
  int i, j;
  for (i = 0; i < N; i++) {
    x[i] = i % 7;
    y[i] = 0;
    for (j = 0; j < N; j++)
      A[i][j] = (i * j % 11) / 11.0;
  }
  kernel(A, x, y);
  fprintf(stderr, "==BEGIN DUMP_ARRAYS==\n");
  fprintf(stderr, "begin dump: y\n");
  for (i = 0; i < N; i++)
    fprintf(stderr, "%0.17g\n", y[i]);
  fprintf(stderr, "end   dump: y\n");
  fprintf(stderr, "==END   DUMP_ARRAYS==\n");
  return 0;
}
