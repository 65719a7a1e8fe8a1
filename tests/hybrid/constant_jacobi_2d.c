/* PolyBench's 2-D Jacobi stencil (two arrays, two sweeps per step) written with its sizes
 * as constants, as most stencils outside PolyBench are: the fixed sizes leave the tiles'
 * element sets with divisions that crashed isl's coalescing (a segmentation fault in
 * isl_set_wrap_facet) while the launches' buffers were planned. The sizes are no
 * multiples of the tiles. */
#include <stdio.h>
#define N 70
#define T 9

static void run(double A[N][N], double B[N][N])
{
#pragma scop
  for (int t = 0; t < T; t++) {
    for (int i = 1; i < N - 1; i++)
      for (int j = 1; j < N - 1; j++)
        B[i][j] = 0.2 * (A[i][j] + A[i][j - 1] + A[i][j + 1] + A[i + 1][j] + A[i - 1][j]);
    for (int i = 1; i < N - 1; i++)
      for (int j = 1; j < N - 1; j++)
        A[i][j] = 0.2 * (B[i][j] + B[i][j - 1] + B[i][j + 1] + B[i + 1][j] + B[i - 1][j]);
  }
#pragma endscop
}

int main(void)
{
  static double A[N][N], B[N][N];
  for (int i = 0; i < N; i++)
    for (int j = 0; j < N; j++) {
      A[i][j] = (double) ((i * 5 + j * 3) % 13) / 7.0;
      B[i][j] = (double) ((i * 3 + j * 7) % 11) / 5.0;
    }
  run(A, B);
  fprintf(stderr, "==BEGIN DUMP_ARRAYS==\nbegin dump: A\n");
  for (int i = 0; i < N; i++)
    for (int j = 0; j < N; j++)
      fprintf(stderr, "%0.17g\n", A[i][j]);
  fprintf(stderr, "end   dump: A\nbegin dump: B\n");
  for (int i = 0; i < N; i++)
    for (int j = 0; j < N; j++)
      fprintf(stderr, "%0.17g\n", B[i][j]);
  fprintf(stderr, "end   dump: B\n==END   DUMP_ARRAYS==\n");
  return 0;
}
