/* A 2-D parallel nest with a block size (3) that does not divide the tile size (32):
   compiling must take about a second, as with block[4,4]; it ran out of 60 s of CPU. */
#include <stdio.h>
#define N 37
#define M 29
static void add(int n, int m, double A[N][M], double B[N][M], int K[N])
{
#pragma scop
  for (int i = 0; i < n; i++)
    for (int j = 0; j < m; j++)
      A[i][j] = B[i][j] + (double) K[i];
#pragma endscop
}
int main(void)
{
  static double A[N][M], B[N][M];
  static int K[N];
  for (int i = 0; i < N; i++) {
    K[i] = i % 5;
    for (int j = 0; j < M; j++)
      B[i][j] = (i * 7 + j) % 11;
  }
  add(N - 3, M - 4, A, B, K);
  fprintf(stderr, "==BEGIN DUMP_ARRAYS==\nbegin dump: A\n");
  for (int i = 0; i < N; i++)
    for (int j = 0; j < M; j++)
      fprintf(stderr, "%0.17g\n", A[i][j]);
  fprintf(stderr, "end   dump: A\n==END   DUMP_ARRAYS==\n");
  return 0;
}
