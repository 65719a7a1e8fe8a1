/* Pluto's way of writing a stencil: one array of two halves, A[(t + 1) % 2] computed from
   A[t % 2]; the kernel writes one half while its lanes pass elements of the other.
   Sizes at run time. */
#include <stdio.h>
#include <stdlib.h>
static void kernel(int steps, int n, int m, double A[2][n][m])
{
#pragma scop
  for (int t = 0; t < steps; t++)
    for (int i = 1; i < n - 1; i++)
      for (int j = 1; j < m - 1; j++)
        A[(t + 1) % 2][i][j] = 0.2 * (A[t % 2][i][j] + A[t % 2][i][j - 1] + A[t % 2][i][j + 1] + A[t % 2][i - 1][j] + A[t % 2][i + 1][j]);
#pragma endscop
}
int main(int argc, char **argv)
{
  int steps = argc > 1 ? atoi(argv[1]) : 5, n = argc > 2 ? atoi(argv[2]) : 77, m = argc > 3 ? atoi(argv[3]) : 133;
  double (*A)[n][m] = malloc(sizeof(double[2][n][m]));
  for (int h = 0; h < 2; h++)
    for (int i = 0; i < n; i++)
      for (int j = 0; j < m; j++)
        A[h][i][j] = ((i * 13 + j * 7 + h) % 29) / 7.0;
  kernel(steps, n, m, A);
  fprintf(stderr, "==BEGIN DUMP_ARRAYS==\nbegin dump: A\n");
  for (int h = 0; h < 2; h++)
    for (int i = 0; i < n; i++)
      for (int j = 0; j < m; j++)
        fprintf(stderr, "%0.17g\n", A[h][i][j]);
  fprintf(stderr, "end   dump: A\n==END   DUMP_ARRAYS==\n");
  return 0;
}
