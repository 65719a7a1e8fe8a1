/* Two time loops in one SCoP, with loops around them: a grid filled, a 1-D three-point
 * stencil in two buffers chosen by the step's parity, a 2-D five-point Jacobi stencil
 * (two arrays) seeded from the 1-D one, and a column summed at the end. The C target
 * tiles each time loop along time and leaves the other loops to isl's schedule. The
 * sizes are no multiples of the tiles. */
#include <stdio.h>
#define N 61
#define M 47
#define T 9

static void run(double L[2][N], double A[N][M], double B[N][M], double sums[M])
{
#pragma scop
  for (int i = 0; i < N; i++)
    L[0][i] = (double) ((i * 7) % 13) / 4.0;
  for (int t = 0; t < T; t++)
    for (int i = 1; i < N - 1; i++)
      L[(t + 1) % 2][i] = 0.33 * (L[t % 2][i - 1] + L[t % 2][i] + L[t % 2][i + 1]);
  for (int i = 0; i < N; i++)
    for (int j = 0; j < M; j++)
      A[i][j] = L[T % 2][i] * (double) ((j * 3) % 5);
  for (int t = 0; t < T; t++) {
    for (int i = 1; i < N - 1; i++)
      for (int j = 1; j < M - 1; j++)
        B[i][j] = 0.2 * (A[i][j] + A[i - 1][j] + A[i + 1][j] + A[i][j - 1] + A[i][j + 1]);
    for (int i = 1; i < N - 1; i++)
      for (int j = 1; j < M - 1; j++)
        A[i][j] = 0.2 * (B[i][j] + B[i - 1][j] + B[i + 1][j] + B[i][j - 1] + B[i][j + 1]);
  }
  for (int j = 0; j < M; j++) {
    sums[j] = 0.0;
    for (int i = 0; i < N; i++)
      sums[j] += A[i][j];
  }
#pragma endscop
}

int main(void)
{
  static double L[2][N], A[N][M], B[N][M], sums[M];
  for (int i = 0; i < N; i++) {
    L[1][i] = L[0][i] = -1.0;
    for (int j = 0; j < M; j++)
      B[i][j] = -1.0;
  }
  run(L, A, B, sums);
  fprintf(stderr, "==BEGIN DUMP_ARRAYS==\nbegin dump: A\n");
  for (int i = 0; i < N; i++)
    for (int j = 0; j < M; j++)
      fprintf(stderr, "%0.17g\n", A[i][j]);
  fprintf(stderr, "end   dump: A\nbegin dump: L\n");
  for (int b = 0; b < 2; b++)
    for (int i = 0; i < N; i++)
      fprintf(stderr, "%0.17g\n", L[b][i]);
  fprintf(stderr, "end   dump: L\nbegin dump: sums\n");
  for (int j = 0; j < M; j++)
    fprintf(stderr, "%0.17g\n", sums[j]);
  fprintf(stderr, "end   dump: sums\n==END   DUMP_ARRAYS==\n");
  return 0;
}
