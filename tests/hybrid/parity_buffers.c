/* Pluto's way of writing a 2-D Jacobi stencil: one array of two buffers, step t reading
 * A[t % 2] and writing A[(t + 1) % 2]. The buffer follows from the step: --hybrid tiles
 * the positions (i, j). The sizes are no multiples of the tiles. */
#include <stdio.h>
#define N 45
#define M 67
#define T 11

static void run(double A[2][N][M])
{
#pragma scop
  for (int t = 0; t < T; t++)
    for (int i = 1; i < N - 1; i++)
      for (int j = 1; j < M - 1; j++)
        A[(t + 1) % 2][i][j] = 0.2 * (A[t % 2][i][j] + A[t % 2][i - 1][j] + A[t % 2][i + 1][j]
                                      + A[t % 2][i][j - 1] + A[t % 2][i][j + 1]);
#pragma endscop
}

int main(void)
{
  static double A[2][N][M];
  for (int i = 0; i < N; i++)
    for (int j = 0; j < M; j++) {
      A[0][i][j] = (double) ((i * 5 + j * 3) % 17) / 8.0;
      A[1][i][j] = A[0][i][j];
    }
  run(A);
  fprintf(stderr, "==BEGIN DUMP_ARRAYS==\nbegin dump: A\n");
  for (int b = 0; b < 2; b++)
    for (int i = 0; i < N; i++)
      for (int j = 0; j < M; j++)
        fprintf(stderr, "%0.17g\n", A[b][i][j]);
  fprintf(stderr, "end   dump: A\n==END   DUMP_ARRAYS==\n");
  return 0;
}
