/* The serial loop over rows carries a dependence from column j + 1 to column j: the
   parallel loop over columns needs its barrier at every row. */
#include <stdio.h>
#define N 41

static void kernel(double A[N][N], double B[N][N])
{
  int i, j;
#pragma scop
  for (i = 1; i < N; i++)
    for (j = 0; j < N - 1; j++)
      B[i][j] = B[i - 1][j + 1] * 0.5 + A[i][j];
#pragma endscop
}

static double A[N][N], B[N][N];

int main(void)
{
  int i, j;
  for (i = 0; i < N; i++)
    for (j = 0; j < N; j++) {
      A[i][j] = (i + 2 * j) % 13;
      B[i][j] = (i * j) % 5;
    }
  kernel(A, B);
  fprintf(stderr, "==BEGIN DUMP_ARRAYS==\n");
  fprintf(stderr, "begin dump: B\n");
  for (i = 0; i < N; i++)
    for (j = 0; j < N; j++)
      fprintf(stderr, "%0.17g\n", B[i][j]);
  fprintf(stderr, "end   dump: B\n");
  fprintf(stderr, "==END   DUMP_ARRAYS==\n");
  return 0;
}
