/* heat-3d's two sweeps over a grid the size of one time tile's window (18 x 34 x 120, about L2),
 fused as in the time tiles (a row of B, then the row of A one back), with the planes one at a time
 or two at a time (unroll-and-jam of i by 2): the second computing both rows' values before
 storing either, the third storing between them. PRAG is put before the pairs' row loops.
 Build: gcc -O3 -march=native -fopenmp '-DPRAG=_Pragma("omp simd")' pairs_in_l2.c, or -DPRAG= .
 The three sums printed must agree. */
#ifndef PRAG
#define PRAG
#endif
#include <stdio.h>
#include <stdlib.h>
#include <omp.h>
#define NI 18
#define NJ 34
#define NK 120
#define F(a,i,j,k) (0.125 * (a[i + 1][j][k] - 2.0 * a[i][j][k] + a[i - 1][j][k]) + 0.125 * (a[i][j + 1][k] - 2.0 * a[i][j][k] + a[i][j - 1][k]) + 0.125 * (a[i][j][k + 1] - 2.0 * a[i][j][k] + a[i][j][k - 1]) + a[i][j][k])
__attribute__((noinline)) void k1(int T, int nk, double A[NI][NJ][NK], double B[NI][NJ][NK]) {
  for (int t = 0; t < T; t++)
    for (int i = 1; i < NI; i++) for (int j = 1; j < NJ; j++) {
      if (i < NI - 1 && j < NJ - 1) for (int k = 1; k < nk - 1; k++) B[i][j][k] = F(A, i, j, k);
      if (i >= 2 && j >= 2) for (int k = 1; k < nk - 1; k++) A[i-1][j-1][k] = F(B, i-1, j-1, k);
    }
}
/* pairs of rows, values first */
__attribute__((noinline)) void k2(int T, int nk, double A[NI][NJ][NK], double B[NI][NJ][NK]) {
  for (int t = 0; t < T; t++) {
    for (int i = 1; i < NI - 1; i += 2) for (int j = 1; j < NJ; j++) {
      if (j < NJ - 1) {
        if (i + 1 < NI - 1) PRAG for (int k = 1; k < nk - 1; k++) { double v0 = F(A, i, j, k), v1 = F(A, i + 1, j, k); B[i][j][k] = v0; B[i+1][j][k] = v1; }
        else for (int k = 1; k < nk - 1; k++) B[i][j][k] = F(A, i, j, k);
      }
      if (j >= 2) {
        if (i >= 2) PRAG for (int k = 1; k < nk - 1; k++) { double v0 = F(B, i - 1, j - 1, k), v1 = F(B, i, j - 1, k); A[i-1][j-1][k] = v0; A[i][j-1][k] = v1; }
        else for (int k = 1; k < nk - 1; k++) A[i][j-1][k] = F(B, i, j - 1, k);
      }
    }
    for (int j = 2; j < NJ; j++) for (int k = 1; k < nk - 1; k++) A[NI-2][j-1][k] = F(B, NI-2, j - 1, k);
  }
}
/* pairs, plain order (store, then the next row) */
__attribute__((noinline)) void k3(int T, int nk, double A[NI][NJ][NK], double B[NI][NJ][NK]) {
  for (int t = 0; t < T; t++) {
    for (int i = 1; i < NI - 1; i += 2) for (int j = 1; j < NJ; j++) {
      if (j < NJ - 1) {
        if (i + 1 < NI - 1) PRAG for (int k = 1; k < nk - 1; k++) { B[i][j][k] = F(A, i, j, k); B[i+1][j][k] = F(A, i + 1, j, k); }
        else for (int k = 1; k < nk - 1; k++) B[i][j][k] = F(A, i, j, k);
      }
      if (j >= 2) {
        if (i >= 2) PRAG for (int k = 1; k < nk - 1; k++) { A[i-1][j-1][k] = F(B, i - 1, j - 1, k); A[i][j-1][k] = F(B, i, j - 1, k); }
        else for (int k = 1; k < nk - 1; k++) A[i][j-1][k] = F(B, i, j - 1, k);
      }
    }
    for (int j = 2; j < NJ; j++) for (int k = 1; k < nk - 1; k++) A[NI-2][j-1][k] = F(B, NI-2, j - 1, k);
  }
}
int main(int argc, char **argv) {
  double (*A)[NJ][NK], (*B)[NJ][NK];
  posix_memalign((void **)&A, 4096, sizeof(double) * NI * NJ * NK);
  posix_memalign((void **)&B, 4096, sizeof(double) * NI * NJ * NK);
  for (int v = 0; v < 3; v++) {
    for (int i = 0; i < NI; i++) for (int j = 0; j < NJ; j++) for (int k = 0; k < NK; k++) A[i][j][k] = B[i][j][k] = (i * 7 + j * 3 + k) % 11;
    long pts = (long)(NI - 2) * (NJ - 2) * (NK - 2) * 2;
    int T = argc > 1 ? 3 : (int)(1640000000L / pts);
    int nk = argc > 5 ? 7 : NK;
    double t0 = omp_get_wtime();
    if (v == 0) k1(T, nk, A, B); else if (v == 1) k2(T, nk, A, B); else k3(T, nk, A, B);
    double s = omp_get_wtime() - t0, sum = 0;
    for (int i = 0; i < NI; i++) for (int j = 0; j < NJ; j++) for (int k = 0; k < NK; k++) sum += A[i][j][k] * (1 + i + j * 0.5 + k * 0.25);
    printf("%s %.3f ns/pt (%.10g)\n", v == 0 ? "one row" : v == 1 ? "pairs, values first" : "pairs, stores between", s / T / pts * 1e9, sum);
  }
}
