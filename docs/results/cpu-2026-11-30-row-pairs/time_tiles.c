/* heat-3d, LARGE (N=120, T=500), sweeps skewed by one per sweep in i and j, tiles of
   ST sweeps x TI x TJ, rows whole, in lexicographic order (-DSTREAM: the rows' tiles
   outside the planes' tiles); -DPAIRS: planes two at a time, values first, omp simd.
   Build: gcc -O3 -march=native -fopenmp -DST=16 -DTI=8 -DTJ=32 -DPAIRS time_tiles.c */
#include <stdio.h>
#include <stdlib.h>
#include <omp.h>
#define N 120
#define TS 500
#ifndef ST
#define ST 16
#endif
#ifndef TI
#define TI 16
#endif
#ifndef TJ
#define TJ 32
#endif
#define MAX(a,b) ((a)>(b)?(a):(b))
#define MIN(a,b) ((a)<(b)?(a):(b))
#define F(a,i,j,k) (0.125 * (a[i + 1][j][k] - 2.0 * a[i][j][k] + a[i - 1][j][k]) + 0.125 * (a[i][j + 1][k] - 2.0 * a[i][j][k] + a[i][j - 1][k]) + 0.125 * (a[i][j][k + 1] - 2.0 * a[i][j][k] + a[i][j][k - 1]) + a[i][j][k])
static void ref(int n, double A[N][N][N], double B[N][N][N]) {
  for (int t = 1; t <= TS; t++) {
    for (int i = 1; i < n - 1; i++) for (int j = 1; j < n - 1; j++) for (int k = 1; k < n - 1; k++) B[i][j][k] = F(A, i, j, k);
    for (int i = 1; i < n - 1; i++) for (int j = 1; j < n - 1; j++) for (int k = 1; k < n - 1; k++) A[i][j][k] = F(B, i, j, k);
  }
}
static void sweep_rows(int n, double (*src)[N][N], double (*dst)[N][N], int s, int ilo, int ihi, int jlo, int jhi) {
  int i = ilo;
#ifdef PAIRS
  for (; i + 1 <= ihi; i += 2)
    for (int j = jlo; j <= jhi; j++) {
      _Pragma("omp simd")
      for (int k = 1; k < n - 1; k++) { double v0 = F(src, i - s, j - s, k), v1 = F(src, i + 1 - s, j - s, k); dst[i - s][j - s][k] = v0; dst[i + 1 - s][j - s][k] = v1; }
    }
#endif
  for (; i <= ihi; i++)
    for (int j = jlo; j <= jhi; j++)
      for (int k = 1; k < n - 1; k++) dst[i - s][j - s][k] = F(src, i - s, j - s, k);
}
/* the tiles' loops: rows' tiles inside planes' tiles, or (-DSTREAM) outside them, so that
   a column of tiles streams along the planes */
#ifdef STREAM
#define TILES for (int jT = 1; jT < n - 1 + S; jT += TJ) for (int iT = 1; iT < n - 1 + S; iT += TI)
#else
#define TILES for (int iT = 1; iT < n - 1 + S; iT += TI) for (int jT = 1; jT < n - 1 + S; jT += TJ)
#endif
static void tiled(int n, double A[N][N][N], double B[N][N][N]) {
  int S = 2 * TS;                 /* sweeps; skewed coordinates i' = i + s, j' = j + s */
  for (int sT = 0; sT < S; sT += ST)
    TILES
        for (int s = sT; s < MIN(S, sT + ST); s++) {
          int ilo = MAX(iT, 1 + s), ihi = MIN(iT + TI - 1, n - 2 + s);
          int jlo = MAX(jT, 1 + s), jhi = MIN(jT + TJ - 1, n - 2 + s);
          if (ilo > ihi || jlo > jhi) continue;
          if (s % 2 == 0) sweep_rows(n, A, B, s, ilo, ihi, jlo, jhi); else sweep_rows(n, B, A, s, ilo, ihi, jlo, jhi);
        }
}
int main(int argc, char **argv) {
  double (*A)[N][N] = malloc(sizeof(double) * N * N * N), (*B)[N][N] = malloc(sizeof(double) * N * N * N);
  double (*C)[N][N] = malloc(sizeof(double) * N * N * N), (*D)[N][N] = malloc(sizeof(double) * N * N * N);
  int n = argc > 1 ? atoi(argv[1]) : N;
  for (int i = 0; i < N; i++) for (int j = 0; j < N; j++) for (int k = 0; k < N; k++)
    A[i][j][k] = B[i][j][k] = C[i][j][k] = D[i][j][k] = (double) (i + j + (N - k)) * 10 / N;
  double t0 = omp_get_wtime(); ref(n, C, D); double t1 = omp_get_wtime(); tiled(n, A, B); double t2 = omp_get_wtime();
  double err = 0; for (int i = 0; i < N; i++) for (int j = 0; j < N; j++) for (int k = 0; k < N; k++) { double e = A[i][j][k] - C[i][j][k]; err = MAX(err, e < 0 ? -e : e); }
  printf("ref %.3f s, tiled %.3f s (%.2fx), max err %g\n", t1 - t0, t2 - t1, (t1 - t0) / (t2 - t1), err);
}
