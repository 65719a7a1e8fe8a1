/* A SCoP that fills its grid, runs a 2-D five-point stencil with one array updated in
 * place from a copy (two sweeps per step) and sums a row after the time loop: --hybrid
 * tiles the time loop, a child of the SCoP's outer sequence, and leaves the rest to
 * isl's schedule. The sizes are no multiples of the tiles. */
#include <stdio.h>
#define N 53
#define M 71
#define T 13

static void run(float A[N][M], float B[N][M], float total[1])
{
#pragma scop
  for (int i = 0; i < N; i++)
    for (int j = 0; j < M; j++)
      A[i][j] = (float) ((i * 7 + j * 3) % 11) * 0.25f;
  for (int t = 0; t < T; t++) {
    for (int i = 1; i < N - 1; i++)
      for (int j = 1; j < M - 1; j++)
        B[i][j] = 0.2f * (A[i][j] + A[i - 1][j] + A[i + 1][j] + A[i][j - 1] + A[i][j + 1]);
    for (int i = 1; i < N - 1; i++)
      for (int j = 1; j < M - 1; j++)
        A[i][j] = B[i][j];
  }
  total[0] = 0.0f;
  for (int j = 0; j < M; j++)
    total[0] += A[N / 2][j];
#pragma endscop
}

int main(void)
{
  static float A[N][M], B[N][M], total[1];
  for (int i = 0; i < N; i++)
    for (int j = 0; j < M; j++)
      B[i][j] = -1.0f;
  run(A, B, total);
  fprintf(stderr, "==BEGIN DUMP_ARRAYS==\nbegin dump: A\n");
  for (int i = 0; i < N; i++)
    for (int j = 0; j < M; j++)
      fprintf(stderr, "%0.9g\n", A[i][j]);
  fprintf(stderr, "end   dump: A\nbegin dump: total\n%0.9g\nend   dump: total\n==END   DUMP_ARRAYS==\n", total[0]);
  return 0;
}
