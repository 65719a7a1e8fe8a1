/* Jacobi 2-D stencil: the SCoP ppcg-py maps to the GPU (or to OpenMP loops). */
#include "jacobi.h"

void jacobi_2d(int tsteps, double A[N][N], double B[N][N])
{
#pragma scop
  for (int t = 0; t < tsteps; t++) {
    for (int i = 1; i < N - 1; i++)
      for (int j = 1; j < N - 1; j++)
        B[i][j] = AVERAGE5(A[i][j], A[i][j - 1], A[i][j + 1], A[i - 1][j], A[i + 1][j]);
    for (int i = 1; i < N - 1; i++)
      for (int j = 1; j < N - 1; j++)
        A[i][j] = AVERAGE5(B[i][j], B[i][j - 1], B[i][j + 1], B[i - 1][j], B[i + 1][j]);
  }
#pragma endscop
}
