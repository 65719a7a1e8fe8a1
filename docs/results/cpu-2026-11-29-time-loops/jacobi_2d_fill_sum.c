/* PolyBench's jacobi-2d at LARGE (1,300 x 1,300, 500 steps) with the grid filled before
 * the time loop and summed after it, all in one SCoP: the time loop is one of three. */
#include <stdio.h>
#include <omp.h>
#define N 1300
#define T 500
static double A[N][N], B[N][N];
static double total;

static void run(void)
{
#pragma scop
  for (int i = 0; i < N; i++)
    for (int j = 0; j < N; j++) {
      A[i][j] = ((double) i * (j + 2) + 2) / N;
      B[i][j] = ((double) i * (j + 3) + 3) / N;
    }
  for (int t = 0; t < T; t++) {
    for (int i = 1; i < N - 1; i++)
      for (int j = 1; j < N - 1; j++)
        B[i][j] = 0.2 * (A[i][j] + A[i][j - 1] + A[i][1 + j] + A[1 + i][j] + A[i - 1][j]);
    for (int i = 1; i < N - 1; i++)
      for (int j = 1; j < N - 1; j++)
        A[i][j] = 0.2 * (B[i][j] + B[i][j - 1] + B[i][1 + j] + B[1 + i][j] + B[i - 1][j]);
  }
  total = 0.0;
  for (int i = 0; i < N; i++)
    for (int j = 0; j < N; j++)
      total += A[i][j];
#pragma endscop
}

int main(void)
{
  double start = omp_get_wtime();
  run();
  printf("%.3f s, sum %.12e\n", omp_get_wtime() - start, total);
  return 0;
}
