/* PolyBench's heat-3d at LARGE (120^3, 500 steps) with the grid filled before the time
 * loop and summed after it, all in one SCoP: the time loop is one of three. */
#include <stdio.h>
#include <omp.h>
#define N 120
#define T 500
static double A[N][N][N], B[N][N][N];
static double total;

static void run(void)
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
  total = 0.0;
  for (int i = 0; i < N; i++)
    for (int j = 0; j < N; j++)
      for (int k = 0; k < N; k++)
        total += A[i][j][k];
#pragma endscop
}

int main(void)
{
  double start = omp_get_wtime();
  run();
  printf("%.3f s, sum %.12e\n", omp_get_wtime() - start, total);
  return 0;
}
