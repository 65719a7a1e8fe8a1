/* lu_rows.c with `w` declared in each loop body that uses it: a variable of the SCoP. */
#include <stdio.h>
#include <stdlib.h>

static void kernel(int n, double A[n][n], double b[n], double x[n], double y[n])
{
  int i, j, k;
#pragma scop
  for (i = 0; i < n; i++) {
    for (j = 0; j < i; j++) {
      double w = A[i][j];
      for (k = 0; k < j; k++)
        w -= A[i][k] * A[k][j];
      A[i][j] = w / A[j][j];
    }
    for (j = i; j < n; j++) {
      double w = A[i][j];
      for (k = 0; k < i; k++)
        w -= A[i][k] * A[k][j];
      A[i][j] = w;
    }
  }
  for (i = 0; i < n; i++) {
    double w = b[i];
    for (j = 0; j < i; j++)
      w -= A[i][j] * y[j];
    y[i] = w;
  }
  for (i = n - 1; i >= 0; i--) {
    double w = y[i];
    for (j = i + 1; j < n; j++)
      w -= A[i][j] * x[j];
    x[i] = w / A[i][i];
  }
#pragma endscop
}

int main(int argc, char **argv)
{
  int n = argc > 1 ? atoi(argv[1]) : 77, i, j;
  double (*A)[n] = malloc(sizeof(double[n][n]));
  double *b = malloc(n * sizeof(double)), *x = malloc(n * sizeof(double)), *y = malloc(n * sizeof(double));
  for (i = 0; i < n; i++) {
    b[i] = (i + 1) / (double) n / 2.0 + 4;
    x[i] = y[i] = -1.0;
    for (j = 0; j < n; j++)
      A[i][j] = (j <= i ? (double) (-j % n) / n + 1 : 0.0) + (i == j ? n : 0.0) + ((i * 7 + j * 3) % 11) / 10.0;
  }
  kernel(n, A, b, x, y);
  fprintf(stderr, "==BEGIN DUMP_ARRAYS==\n");
  fprintf(stderr, "begin dump: x\n");
  for (i = 0; i < n; i++)
    fprintf(stderr, "%0.17g\n", x[i]);
  fprintf(stderr, "end   dump: x\n");
  fprintf(stderr, "begin dump: A\n");
  for (i = 0; i < n; i++)
    for (j = 0; j < n; j++)
      fprintf(stderr, "%0.17g\n", A[i][j]);
  fprintf(stderr, "end   dump: A\n");
  fprintf(stderr, "==END   DUMP_ARRAYS==\n");
  return 0;
}
