/* A 7-point Jacobi sweep over an NI x NI x NK grid (two arrays), timed around the SCoP.
   Build: gcc -O3 -march=native -fopenmp -DNI=64 -DNK=1024 -DTS=64 long_rows.c (and ppcg-py's
   --target=c --openmp --tile output of it, with the same -D's given to ppcg-py). */
#include <stdio.h>
#include <stdlib.h>
#include <omp.h>
#ifndef NI
#define NI 64
#endif
#ifndef NK
#define NK 1024
#endif
#ifndef TS
#define TS 64
#endif
static double A[NI][NI][NK], B[NI][NI][NK];
static void kernel(int ts, int ni, int nk)
{
  int t, i, j, k;
#pragma scop
  for (t = 0; t < ts; t++) {
    for (i = 1; i < ni - 1; i++)
      for (j = 1; j < ni - 1; j++)
        for (k = 1; k < nk - 1; k++)
          B[i][j][k] = 0.4 * A[i][j][k] + 0.1 * (A[i - 1][j][k] + A[i + 1][j][k] + A[i][j - 1][k] + A[i][j + 1][k] + A[i][j][k - 1] + A[i][j][k + 1]);
    for (i = 1; i < ni - 1; i++)
      for (j = 1; j < ni - 1; j++)
        for (k = 1; k < nk - 1; k++)
          A[i][j][k] = B[i][j][k];
  }
#pragma endscop
}
int main(void)
{
  for (int i = 0; i < NI; i++) for (int j = 0; j < NI; j++) for (int k = 0; k < NK; k++) A[i][j][k] = B[i][j][k] = (i * 3 + j * 7 + k) % 13 / 13.0;
  double t0 = omp_get_wtime();
  kernel(TS, NI, NK);
  double t1 = omp_get_wtime();
  double s = 0; for (int i = 0; i < NI; i++) for (int j = 0; j < NI; j++) for (int k = 0; k < NK; k++) s += A[i][j][k];
  printf("%.4f s sum %.10g\n", t1 - t0, s);
  return 0;
}
