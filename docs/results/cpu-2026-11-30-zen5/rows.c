/* heat-3d's two sweeps over a grid the size of one time tile's window (18 x 34 x 120, in L2),
   fused as in the time tiles (a row of B, then the row of A one back): ns per point for the
   variants of README.md, "heat-3d's rows". Build: gcc -O3 -march=native -fopenmp -DVARIANT=\"name\"
   plus -DSTATIC (arrays static, not parameters), -DRESTRICT=restrict or -DRESTRICT= (parameters),
   -DALIGNED (parameters asserted 64-byte aligned), -DRUNTIME_NK (row length read at run time),
   '-DSIMD=_Pragma("omp simd")' or -DSIMD= . */
#include <stdio.h>
#include <stdlib.h>
#include <omp.h>
#ifndef NI
#define NI 18
#endif
#ifndef NJ
#define NJ 34
#endif
#define NK 120
#ifdef STATIC
static double sA[NI][NJ][NK] __attribute__((aligned(64))), sB[NI][NJ][NK] __attribute__((aligned(64)));
#define A sA
#define B sB
#define PARAMS int unused
#else
#define PARAMS double A[RESTRICT NI][NJ][NK], double B[RESTRICT NI][NJ][NK]
#endif
#ifdef RUNTIME_NK
#define KHI nk - 1
#else
#define KHI NK - 1
#endif
#define SB(i,j) for (int k = 1; k < KHI; k++) B[i][j][k] = 0.125 * (A[i + 1][j][k] - 2.0 * A[i][j][k] + A[i - 1][j][k]) + 0.125 * (A[i][j + 1][k] - 2.0 * A[i][j][k] + A[i][j - 1][k]) + 0.125 * (A[i][j][k + 1] - 2.0 * A[i][j][k] + A[i][j][k - 1]) + A[i][j][k];
#define SA(i,j) for (int k = 1; k < KHI; k++) A[i][j][k] = 0.125 * (B[i + 1][j][k] - 2.0 * B[i][j][k] + B[i - 1][j][k]) + 0.125 * (B[i][j + 1][k] - 2.0 * B[i][j][k] + B[i][j - 1][k]) + 0.125 * (B[i][j][k + 1] - 2.0 * B[i][j][k] + B[i][j][k - 1]) + B[i][j][k];
__attribute__((noinline)) void kernel(int T, int nk, PARAMS) {
#ifdef ALIGNED
  A = __builtin_assume_aligned(A, 64); B = __builtin_assume_aligned(B, 64);
#endif
  for (int t = 0; t < T; t++) {
    for (int i = 1; i < NI; i++) for (int j = 1; j < NJ; j++) {
      if (i < NI - 1 && j < NJ - 1) {
        SIMD
        SB(i, j)
      }
      if (i >= 2 && j >= 2) {
        SIMD
        SA(i - 1, j - 1)
      }
    }
  }
}
int main(int argc, char **argv) {
#ifndef STATIC
  double (*A)[NJ][NK], (*B)[NJ][NK];
  posix_memalign((void **)&A, 4096, sizeof(double) * NI * NJ * NK);
  posix_memalign((void **)&B, 4096, sizeof(double) * NI * NJ * NK);
#endif
  for (int i = 0; i < NI; i++) for (int j = 0; j < NJ; j++) for (int k = 0; k < NK; k++) A[i][j][k] = B[i][j][k] = (i + j + k) % 7;
  long pts = (long)(NI - 2) * (NJ - 2) * (NK - 2) * 2;
  int T = (int)(1640000000L / pts);
  int nk = argc > 5 ? 7 : NK;
  double t0 = omp_get_wtime();
#ifdef STATIC
  kernel(T, nk, 0);
#else
  kernel(T, nk, A, B);
#endif
  double s = omp_get_wtime() - t0;
  printf("%-40s %.3f ns/pt (%g)\n", VARIANT, s / T / pts * 1e9, A[NI/2][NJ/2][NK/2]);
}
