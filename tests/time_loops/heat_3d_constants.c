/* PolyBench's heat-3d with its sizes as constants (no parameters), between a fill and a
 * sum: isl's scheduler ran for minutes on the exact constraints and finishes at once
 * without their constant upper bounds (schedule/relaxed.py). No multiple of the tiles. */
#include <stdio.h>
#define N 13
#define T 7

static void run(double A[N][N][N], double B[N][N][N], double total[1])
{
#pragma scop
  for (int i = 0; i < N; i++)
    for (int j = 0; j < N; j++)
      for (int k = 0; k < N; k++)
        A[i][j][k] = B[i][j][k] = (double) (i + j + (N - k)) * 10 / N;
  for (int t = 1; t <= T; t++) {
    for (int i = 1; i < N - 1; i++)
      for (int j = 1; j < N - 1; j++)
        for (int k = 1; k < N - 1; k++)
          B[i][j][k] = 0.125 * (A[i + 1][j][k] - 2.0 * A[i][j][k] + A[i - 1][j][k])
                     + 0.125 * (A[i][j + 1][k] - 2.0 * A[i][j][k] + A[i][j - 1][k])
                     + 0.125 * (A[i][j][k + 1] - 2.0 * A[i][j][k] + A[i][j][k - 1]) + A[i][j][k];
    for (int i = 1; i < N - 1; i++)
      for (int j = 1; j < N - 1; j++)
        for (int k = 1; k < N - 1; k++)
          A[i][j][k] = 0.125 * (B[i + 1][j][k] - 2.0 * B[i][j][k] + B[i - 1][j][k])
                     + 0.125 * (B[i][j + 1][k] - 2.0 * B[i][j][k] + B[i][j - 1][k])
                     + 0.125 * (B[i][j][k + 1] - 2.0 * B[i][j][k] + B[i][j][k - 1]) + B[i][j][k];
  }
  total[0] = 0.0;
  for (int i = 0; i < N; i++)
    for (int j = 0; j < N; j++)
      for (int k = 0; k < N; k++)
        total[0] += A[i][j][k];
#pragma endscop
}

int main(void)
{
  static double A[N][N][N], B[N][N][N], total[1];
  run(A, B, total);
  fprintf(stderr, "==BEGIN DUMP_ARRAYS==\nbegin dump: A\n");
  for (int i = 0; i < N; i++)
    for (int j = 0; j < N; j++)
      for (int k = 0; k < N; k++)
        fprintf(stderr, "%0.17g\n", A[i][j][k]);
  fprintf(stderr, "end   dump: A\nbegin dump: total\n%0.17g\nend   dump: total\n==END   DUMP_ARRAYS==\n", total[0]);
  return 0;
}
