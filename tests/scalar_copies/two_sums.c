/* Two sums in one scalar inside each (i, j), the second only where a condition holds:
   two webs of `w` with a copy each per j. Sizes known at run time. */
#include <stdio.h>
#include <stdlib.h>

static void kernel(int n, int m, double A[n][m], double B[m][m], double C[n][m], double D[n][m])
{
  double w;
#pragma scop
  for (int i = 0; i < n; i++) {
    for (int j = 0; j < m; j++) {
      w = A[i][j];
      for (int k = 0; k < i; k++)
        w -= 0.5 * B[k][j];
      C[i][j] = w;
      w = D[i][j];
      for (int k = 0; k < i; k++)
        if (k % 3 != 1)
          w += B[k][j] * 0.25;
      D[i][j] = w + 1.0;
    }
  }
#pragma endscop
}

int main(int argc, char **argv)
{
  int n = argc > 1 ? atoi(argv[1]) : 37, m = argc > 2 ? atoi(argv[2]) : 45, i, j;
  double (*A)[m] = malloc(sizeof(double[n][m])), (*C)[m] = malloc(sizeof(double[n][m]));
  double (*D)[m] = malloc(sizeof(double[n][m])), (*B)[m] = malloc(sizeof(double[m][m]));
  for (i = 0; i < n; i++)
    for (j = 0; j < m; j++) {
      A[i][j] = ((i * 5 + j * 3) % 17) / 8.0;
      C[i][j] = -1.0;
      D[i][j] = ((i + 2 * j) % 7) / 4.0;
    }
  for (i = 0; i < m; i++)
    for (j = 0; j < m; j++)
      B[i][j] = ((i * j + 1) % 13) / 16.0;
  kernel(n, m, A, B, C, D);
  fprintf(stderr, "==BEGIN DUMP_ARRAYS==\n");
  const char *names[] = {"A", "C", "D"};
  double (*arrays[])[m] = {A, C, D};
  for (int a = 0; a < 3; a++) {
    fprintf(stderr, "begin dump: %s\n", names[a]);
    for (i = 0; i < n; i++)
      for (j = 0; j < m; j++)
        fprintf(stderr, "%0.17g\n", arrays[a][i][j]);
    fprintf(stderr, "end   dump: %s\n", names[a]);
  }
  fprintf(stderr, "==END   DUMP_ARRAYS==\n");
  return 0;
}
