/* Initialises the grids, runs jacobi_2d and prints a checksum of A. */
#include <stdio.h>

#include "jacobi.h"

static double A[N][N], B[N][N];

int main(void)
{
  for (int i = 0; i < N; i++)
    for (int j = 0; j < N; j++) {
      A[i][j] = (double) (i * (j + 2) % N) / N;
      B[i][j] = (double) (i * (j + 3) % N) / N;
    }
  jacobi_2d(TSTEPS, A, B);
  double sum = 0.0;
  for (int i = 0; i < N; i++)
    for (int j = 0; j < N; j++)
      sum += A[i][j] * (i + 1) + B[i][j];
  printf("checksum %.6f\n", sum);
  return 0;
}
